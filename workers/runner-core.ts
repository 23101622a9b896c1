// The job logic of one runner worker, shared by every environment. No static Node or DOM import:
// the entry (runner.node-worker.ts, or the browser sandbox's worker) passes in a message port and
// a Pyodide loader. One worker boots, says "ready", runs exactly ONE job, replies once, and is
// terminated by the host.
//
// Everything that runs after tool code has run uses only references captured here at start-up:
// tool code can reach JS globals (`import js`, `pyodide_js`) and overwrite them, and it can
// replace attributes of the edge_runner module, so neither is looked up again.
import type { PyodideAPI } from "pyodide";
import type { BootMessage, CallJobMessage, DiscoverJobMessage, HostToWorker, PyodideAssets, PythonFiles, WorkerToHost } from "./protocol.ts";

/** The two things a worker needs from its environment's message channel. */
export interface RunnerPort {
  postMessage(msg: WorkerToHost, transfer?: ArrayBuffer[]): void;
  onMessage(handler: (msg: HostToWorker) => void): void;
}

/** Options the core asks the environment's loader to pass to `loadPyodide` (plus its own asset options). */
export interface RunnerLoadOptions {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: Record<string, string>;
  _makeSnapshot?: boolean;
  _loadSnapshot?: Uint8Array;
}

export type PyodideLoader = (assets: PyodideAssets, options: RunnerLoadOptions) => Promise<PyodideAPI>;

export interface RunnerWorkerHooks {
  /** Called once the worker has nothing more to do (after its reply or a fatal error). */
  finished?(): void;
  /** Passes of edge_runner.preload() a spare (boot message `warmUp`) runs after a snapshot boot,
   *  before it says "ready": for an entry that compiles Pyodide's wasm itself (a Node runner
   *  process), so the job's code paths are compiled, and the hottest optimized, before the job.
   *  A "hurry" message ends it early. Default 0. */
  warmUpPasses?: number;
}

/** Where the runner's Python files live inside the interpreter's file system. */
export const PYTHON_ROOT = "/edge";

const DEFAULT_STDERR_LIMIT = 65_536;

/** A python callable as seen from JS (a PyProxy): called with JS values, returns a JS value. */
type PyCallable = ((...args: unknown[]) => unknown) & { destroy?: () => void };

interface Runtime {
  discover: PyCallable;
  call: PyCallable;
  sign: PyCallable;
  toBytes: PyCallable;
}

export function startRunnerWorker(port: RunnerPort, loadPyodide: PyodideLoader, hooks: RunnerWorkerHooks = {}): void {
  // Captured before any await and before any tool code exists.
  const post = port.postMessage.bind(port);
  const parseJson = JSON.parse;
  const hasOwn = Object.prototype.hasOwnProperty;
  const now = performance.now.bind(performance);
  const finished = hooks.finished;
  const warmUpPasses = Math.max(0, Math.floor(hooks.warmUpPasses ?? 0));

  let phase: "idle" | "booting" | "ready" | "busy" | "finished" = "idle";
  let runtime: Runtime | undefined;
  let queued: DiscoverJobMessage | CallJobMessage | undefined;
  let hurried = false;
  const sink = new BoundedText(DEFAULT_STDERR_LIMIT);

  const finish = (): void => {
    phase = "finished";
    queued = undefined;
    runtime = undefined;
    finished?.();
  };
  const fatal = (message: string): void => {
    if (phase === "finished") return;
    post({ type: "fatal", message });
    finish();
  };

  // The handler is installed synchronously, before the first await (a module worker that awaits
  // first loses the boot message).
  port.onMessage((msg) => {
    if (phase === "finished") return; // one job per worker: anything after the reply is ignored
    const type = msg && typeof msg === "object" ? (msg as { type?: unknown }).type : undefined;
    if (type === "boot") {
      if (phase !== "idle") return fatal("boot received twice");
      phase = "booting";
      void boot(msg as BootMessage);
    } else if (type === "hurry") {
      hurried = true; // a job waits for this spare; harmless once it is ready
    } else if (type === "discover" || type === "call") {
      const job = msg as DiscoverJobMessage | CallJobMessage;
      if (phase === "ready") run(job);
      else if (phase === "booting" && !queued) queued = job;
      else fatal("a runner worker takes exactly one job");
    } else {
      fatal(`unexpected message type ${String(type)}`);
    }
  });

  async function boot(msg: BootMessage): Promise<void> {
    const started = now();
    if (typeof msg.stderrLimit === "number" && msg.stderrLimit >= 0) sink.limit = msg.stderrLimit;
    const makeSnapshot = msg.makeSnapshot === true;
    const fromSnapshot = !makeSnapshot && msg.snapshot instanceof Uint8Array;
    let py: PyodideAPI;
    let bootMs = 0;
    try {
      const options: RunnerLoadOptions = { stdout: sink.line, stderr: sink.line, env: { HOME: "/home/pyodide" } };
      if (makeSnapshot) options._makeSnapshot = true;
      if (fromSnapshot) options._loadSnapshot = msg.snapshot;
      py = await loadPyodide(msg.pyodide, options);
      // Captured output goes to the bounded sink whatever Python does to sys.stdout later.
      py.setStdout({ batched: sink.line });
      py.setStderr({ batched: sink.line });
      writePythonFiles(py, msg.pythonFiles);
      py.runPython(`import sys\nif ${JSON.stringify(PYTHON_ROOT)} not in sys.path:\n    sys.path.insert(0, ${JSON.stringify(PYTHON_ROOT)})`);
      const mod = py.pyimport("edge_runner") as unknown as Record<string, PyCallable | undefined>;
      // From a snapshot, edge_runner and edgestudio come back already imported and preloaded.
      if (!fromSnapshot && typeof mod.preload === "function") callAndDrop(mod.preload);
      if (makeSnapshot) {
        (mod as unknown as { destroy?: () => void }).destroy?.();
        const bytes = py.makeMemorySnapshot();
        const buffer = bytes.buffer as ArrayBuffer;
        post({ type: "snapshot", bytes, bootMs: Math.round(now() - started) }, [buffer]);
        return finish();
      }
      const toBytes = py.runPython("lambda b: b.to_bytes()") as PyCallable;
      if (typeof mod.discover !== "function" || typeof mod.call !== "function" || typeof mod.sign !== "function") {
        throw new Error("edge_runner lacks discover/call/sign");
      }
      runtime = { discover: mod.discover, call: mod.call, sign: mod.sign, toBytes };
      bootMs = Math.round(now() - started); // what follows is warm-up, not boot
      // A spare may warm its code up while nobody needs it (hooks.warmUpPasses); a job or a
      // "hurry" that arrives meanwhile ends the warm-up at the next pass.
      if (fromSnapshot && msg.warmUp === true && typeof mod.preload === "function") {
        for (let i = 0; i < warmUpPasses && !hurried && !queued; i++) {
          callAndDrop(mod.preload);
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
      }
    } catch (err) {
      return fatal(`boot failed: ${describe(err)}${sink.text ? `\n${sink.text}` : ""}`);
    }
    sink.clear(); // boot chatter is not the job's output
    phase = "ready";
    post({ type: "ready", bootMs, fromSnapshot });
    const job = queued;
    queued = undefined;
    if (job) run(job);
  }

  function run(job: DiscoverJobMessage | CallJobMessage): void {
    const rt = runtime;
    if (!rt) return fatal("runner not booted");
    phase = "busy";
    const jobId = String(job.jobId);
    let source: unknown;
    try {
      source = rt.toBytes(job.source);
      let reply: unknown;
      let hmac: string | undefined;
      if (job.type === "discover") {
        reply = rt.discover(source, String(job.expectedSha256), String(job.filename));
      } else {
        // The secret lives only in this closure; Python sees it only after the tool returned.
        const secret = String(job.secret);
        const callId = String(job.callId);
        reply = rt.call(source, String(job.expectedSha256), String(job.filename), String(job.toolName), String(job.argsJson), callId);
        if (typeof reply === "string") {
          const parsed = safeParse(parseJson, reply);
          if (parsed && hasOwn.call(parsed, "ok") && parsed.ok === true && hasOwn.call(parsed, "result_sha256") && typeof parsed.result_sha256 === "string") {
            const signed = rt.sign(secret, callId, parsed.result_sha256);
            if (typeof signed === "string") hmac = signed;
          }
        }
      }
      if (typeof reply !== "string") return fatal("edge_runner returned a non-string reply");
      const out: WorkerToHost = { type: "done", jobId, reply, stderr: sink.text };
      if (hmac !== undefined) out.hmac = hmac;
      post(out);
      finish();
    } catch (err) {
      fatal(`job failed: ${describe(err)}`);
    } finally {
      (source as { destroy?: () => void } | undefined)?.destroy?.();
    }
  }
}

function writePythonFiles(py: PyodideAPI, files: PythonFiles): void {
  for (const [rel, text] of Object.entries(files)) {
    if (rel.startsWith("/") || rel.split("/").includes("..")) throw new Error(`bad python file path ${rel}`);
    const path = `${PYTHON_ROOT}/${rel}`;
    py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    py.FS.writeFile(path, text, { encoding: "utf8" });
  }
}

function callAndDrop(fn: PyCallable): void {
  const out = fn();
  (out as { destroy?: () => void } | undefined)?.destroy?.();
}

function safeParse(parse: typeof JSON.parse, text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

/** Text with a hard size bound; the rest is counted, not kept. */
class BoundedText {
  private kept = "";
  private dropped = 0;
  constructor(public limit: number) {}
  get text(): string {
    return this.dropped > 0 ? `${this.kept}\n[… ${this.dropped} more characters of output not kept]` : this.kept;
  }
  readonly line = (line: string): void => {
    const chunk = `${line}\n`;
    const room = this.limit - this.kept.length;
    if (room >= chunk.length) this.kept += chunk;
    else {
      if (room > 0) this.kept += chunk.slice(0, room);
      this.dropped += chunk.length - Math.max(room, 0);
    }
  };
  clear(): void {
    this.kept = "";
    this.dropped = 0;
  }
}
