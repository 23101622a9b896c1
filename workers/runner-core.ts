// The job logic of one runner worker, shared by every environment. No static Node or DOM import:
// the entry (runner.node-worker.ts, or the browser sandbox's worker) passes in a message port and
// a Pyodide loader. One worker boots, says "ready", runs exactly ONE job, replies once, and is
// terminated by the host.
//
// Everything that runs after tool code has run uses only references captured here at start-up:
// tool code can reach JS globals (`import js`, `pyodide_js`) and overwrite them, and it can
// replace attributes of the edge_runner module, so neither is looked up again.
import type { PyodideAPI } from "pyodide";
import type { BootMessage, CallJobMessage, DiscoverJobMessage, HostToWorker, PyodideAssets, PythonFiles, WorkerToHost, WorkspaceMount } from "./protocol.ts";

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

  let phase: "idle" | "booting" | "ready" | "busy" | "finished" = "idle";
  let runtime: Runtime | undefined;
  /** Pyodide's file system, captured at boot (before any tool code exists in this worker). */
  let fs: MemFs | undefined;
  let queued: DiscoverJobMessage | CallJobMessage | undefined;
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
      fs = py.FS as unknown as MemFs;
    } catch (err) {
      return fatal(`boot failed: ${describe(err)}${sink.text ? `\n${sink.text}` : ""}`);
    }
    sink.clear(); // boot chatter is not the job's output
    phase = "ready";
    post({ type: "ready", bootMs: Math.round(now() - started), fromSnapshot });
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
        // The person's files, read-only, before the tools file (and its top-level code) loads.
        if (job.workspace) mountWorkspace(fs!, job.workspace);
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

/** The part of Emscripten's FS API (and its MEMFS) the workspace mount uses. */
interface FsNode {
  mode: number;
  node_ops: Record<string, unknown>;
  contents?: Uint8Array | null;
  usedBytes?: number;
}
export interface MemFs {
  mkdir(path: string): void;
  mount(type: unknown, opts: object, mountpoint: string): void;
  chmod(path: string, mode: number): void;
  lookupPath(path: string): { node: FsNode };
  filesystems: { MEMFS: { createNode(parent: FsNode, name: string, mode: number, dev: number): FsNode } };
  ErrnoError: new (errno: number) => Error;
}

export const WORKSPACE_MOUNT = "/workspace";
const EPERM = 63; // WASI errno numbering, as Emscripten uses it
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

/**
 * The workspace snapshot at /workspace, read-only: its own MEMFS mount (so /workspace itself cannot
 * be renamed or removed: EBUSY), files 0444 and folders 0555 (open for writing, create, remove and
 * rename fail with EACCES → PermissionError), and chmod/utime refused (EPERM) so the modes cannot
 * be lifted through the file API. The copy dies with this one-job worker whatever happens to it.
 *
 * Nodes are made with MEMFS.createNode and handed the job's bytes (this worker owns its structured
 * clone): ≈ 100× faster than FS.writeFile per file, which keeps a 1 MB mount well under 10 ms.
 */
export function mountWorkspace(fs: MemFs, mount: WorkspaceMount): void {
  const memfs = fs.filesystems.MEMFS;
  fs.mkdir(WORKSPACE_MOUNT);
  fs.mount(memfs, {}, WORKSPACE_MOUNT);
  fs.chmod(WORKSPACE_MOUNT, 0o555);
  const root = fs.lookupPath(WORKSPACE_MOUNT).node;
  const dirs = new Map<string, FsNode>([["", root]]);
  const files = new Set<string>();
  const split = (rel: string): [string, string] => {
    if (typeof rel !== "string" || !rel || rel.startsWith("/") || rel.includes("\0") || rel.split("/").some((p) => p === "" || p === "." || p === "..")) {
      throw new Error(`bad workspace path ${JSON.stringify(rel)}`);
    }
    const i = rel.lastIndexOf("/");
    return [i < 0 ? "" : rel.slice(0, i), rel.slice(i + 1)];
  };
  const dirOf = (rel: string): FsNode => {
    const known = dirs.get(rel);
    if (known) return known;
    if (files.has(rel)) throw new Error(`workspace path ${JSON.stringify(rel)} is both a file and a folder`);
    const [parent, name] = split(rel);
    const node = memfs.createNode(dirOf(parent), name, S_IFDIR | 0o555, 0);
    dirs.set(rel, node);
    return node;
  };
  for (const dir of mount.dirs) dirOf(dir);
  const nodes: FsNode[] = [];
  for (const [rel, data] of Object.entries(mount.files)) {
    const [parent, name] = split(rel);
    if (dirs.has(rel) || files.has(rel)) throw new Error(`workspace path ${JSON.stringify(rel)} given twice`);
    const node = memfs.createNode(dirOf(parent), name, S_IFREG | 0o444, 0);
    node.contents = data instanceof Uint8Array ? data : new Uint8Array(0);
    node.usedBytes = node.contents.byteLength;
    files.add(rel);
    nodes.push(node);
  }
  const deny = (): never => {
    throw new fs.ErrnoError(EPERM);
  };
  const locked = new Map<Record<string, unknown>, Record<string, unknown>>();
  for (const node of [...dirs.values(), ...nodes]) {
    let ops = locked.get(node.node_ops);
    if (!ops) locked.set(node.node_ops, (ops = { ...node.node_ops, setattr: deny }));
    node.node_ops = ops;
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
