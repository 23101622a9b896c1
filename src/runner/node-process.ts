// Runner PROCESSES for the Node adapter: each runner is a child process under Node's permission
// model, never a thread of the CLI (SPEC §5). What the child may do is fixed here, by flags:
// read Pyodide's own files and nothing else; no file writes, child processes, workers, native
// addons, WASI or inspector (none of them is allowed, so all are denied); an empty environment;
// its own stdio. The protocol travels as frames on a private pipe (fd 3); whatever reaches the
// child's fd 1 and 2 is captured here, bounded, as the job's stderr. What the permission model
// does not cover is closed in the child (workers/runner.node-process.ts) or listed in
// docs/security.md.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Readable } from "node:stream";
import { build } from "esbuild";
import { BoundedText } from "../../workers/bounded-text.ts";
import { encodeFrame, FrameReader, type FrameMessage } from "../../workers/frames.ts";
import type { PyodideAssets } from "../../workers/protocol.ts";
import type { RunnerWorkerFactory, RunnerWorkerHandle } from "./pool.ts";

const ENTRY = fileURLToPath(new URL("../../workers/runner.node-process.ts", import.meta.url));
/** The files of the pyodide package a runner reads (checked by the permission model). */
export const PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"] as const;
/** Largest frame accepted from a runner: the snapshot maker's reply is ≈ 31 MB; a tool's reply
 *  is bounded long before this by the result and stderr limits. Anything larger kills the runner. */
const MAX_RUNNER_FRAME = 256 * 1024 * 1024;
/** Output a runner writes to its fd 1/2 that is kept (the pool bounds the job's stderr again). */
const OUTPUT_LIMIT = 65_536;
const EXIT_TAIL = 4096;

/** `--permission` (Node 22+) or `--experimental-permission` (Node 20–21); undefined without either. */
function permissionFlag(): string | undefined {
  const flags = process.allowedNodeEnvironmentFlags;
  if (flags.has("--permission")) return "--permission";
  if (flags.has("--experimental-permission")) return "--experimental-permission";
  return undefined;
}

/** V8's WebAssembly compilers for a runner: Liftoff (the baseline compiler) only. A runner lives
 *  for one job, so TurboFan's optimized code never pays for itself: with V8's default dynamic
 *  tier-up a warm call took 72–138 ms (its background TurboFan jobs compete with the call on two
 *  cores), Liftoff only 16–23 ms; a 1 s CPU-bound tool also ran faster (≈ 0.95 s vs 1.4–2.3 s).
 *  Measured on Node 20.20 / V8 11.3 (docs/runner.md). */
const WASM_COMPILERS = ["--liftoff-only"];

/** The node arguments of a runner process, up to the script: the permission model, the reads, V8. */
function runnerNodeArgs(indexDir: string): string[] {
  const flag = permissionFlag();
  if (!flag) throw new Error(`Node ${process.versions.node} has no permission model; Edge's runners need Node 20 or newer`);
  return [flag, ...PYODIDE_FILES.map((f) => `--allow-fs-read=${join(indexDir, f)}`), ...WASM_COMPILERS, "--no-warnings", "--input-type=module"];
}

let script: Promise<string> | undefined;

/** The runner entry and what it imports, bundled into one plain ES module (once per process). */
function runnerScript(): Promise<string> {
  script ??= build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: `node${process.versions.node.split(".")[0]}`,
    logLevel: "silent",
    legalComments: "none",
  }).then((out) => {
    const text = out.outputFiles[0]?.text;
    if (!text) throw new Error("bundling the runner entry produced no output");
    return text;
  });
  script.catch(() => {
    script = undefined; // a failed bundle is retried by the next spawn
  });
  return script;
}

// While any runner process lives, a SIGUSR1 listener keeps this process's inspector closed: by
// default Node opens it on 127.0.0.1:9229 when it receives SIGUSR1, from any process of the user.
// Runners cannot signal (the child entry refuses it); this also covers anything else on the machine.
let live = 0;
const ignoreSigusr1 = (): void => undefined;
function holdInspectorClosed(): () => void {
  if (live++ === 0) process.on("SIGUSR1", ignoreSigusr1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--live === 0) process.off("SIGUSR1", ignoreSigusr1);
  };
}

/** The process adapter behind createNodeRunnerHost. */
export function nodeProcessFactory(indexURL: string): RunnerWorkerFactory {
  const indexDir = fileURLToPath(new URL(indexURL, "file:///"));
  const args = runnerNodeArgs(indexDir);
  const code = runnerScript();
  code.catch(() => undefined); // reported by the spawn that needs it
  return {
    pyodideAssets: (): PyodideAssets => ({ kind: "indexURL", indexURL }),
    warmsUp: true, // each process compiles Pyodide's wasm for itself
    spawn: () => new RunnerProcess([...args, "-e"], code, indexDir),
  };
}

type RunnerChannel = Readable & { write(chunk: Uint8Array): boolean; destroy(): void };

/** One runner process, as the pool sees it (RunnerWorkerHandle). */
class RunnerProcess implements RunnerWorkerHandle {
  private child: ChildProcess | undefined;
  /** fd 3 of the child: the protocol's frames, both ways. */
  private channel: RunnerChannel | undefined;
  /** Frames posted before the process started (the runner script is still being bundled). */
  private queued: Uint8Array[] = [];
  private messageHandler: ((msg: unknown) => void) | undefined;
  private exitHandler: ((reason: string) => void) | undefined;
  private exited = false;
  private readonly output = new BoundedText(OUTPUT_LIMIT);
  private tail = "";
  private release: (() => void) | undefined;

  constructor(args: string[], code: Promise<string>, cwd: string) {
    code.then(
      (text) => this.start(args, text, cwd),
      (err: unknown) => this.exit(`the runner script could not be built: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  private start(args: string[], text: string, cwd: string): void {
    if (this.exited) return;
    const child = spawn(process.execPath, [...args, text], {
      cwd,
      env: {}, // tool code sees no environment variable of the host, in process.env or /proc/self/environ
      stdio: ["ignore", "pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    this.child = child;
    this.release = holdInspectorClosed();
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding("utf8");
      stream?.on("data", (chunk: string) => {
        this.output.append(chunk);
        this.tail = (this.tail + chunk).slice(-EXIT_TAIL);
      });
    }
    const channel = child.stdio[3] as RunnerChannel;
    this.channel = channel;
    const reader = new FrameReader(MAX_RUNNER_FRAME);
    channel.on("data", (chunk: Buffer) => {
      let messages: FrameMessage[];
      try {
        messages = reader.push(chunk);
      } catch (err) {
        this.exit(`protocol violation: ${err instanceof Error ? err.message : String(err)}`);
        return this.kill();
      }
      for (const msg of messages) this.receive(msg);
    });
    channel.on("error", () => undefined); // EPIPE after the child died; its exit is reported below
    child.on("error", (err) => this.exit(`runner process error: ${err.message}`));
    child.on("close", (code, signal) => this.exit(signal ? `runner process killed by ${signal}` : `runner process exited with code ${code}`));
    for (const chunk of this.queued) channel.write(chunk);
    this.queued = [];
  }

  private receive(msg: FrameMessage): void {
    if (this.exited) return;
    if (msg.type === "ready") this.output.clear(); // boot chatter is not the job's output
    if (msg.type !== "done") return this.messageHandler?.(msg);
    // Output the tool wrote to fd 1/2 before its reply joins the reply's stderr. It was written
    // before the reply, so it is readable now; one turn of the event loop lets it be read.
    setImmediate(() => {
      if (this.exited) return;
      const printed = this.output.text;
      this.output.clear();
      if (printed && (msg.stderr === undefined || typeof msg.stderr === "string")) msg.stderr = `${msg.stderr ?? ""}${printed}`;
      this.messageHandler?.(msg);
    });
  }

  private exit(reason: string): void {
    if (this.exited) return;
    this.exited = true;
    this.release?.();
    this.exitHandler?.(this.tail ? `${reason}; runner output: ${this.tail}` : reason);
  }

  post(msg: Parameters<RunnerWorkerHandle["post"]>[0]): void {
    if (this.exited) return;
    const chunks = encodeFrame(msg as unknown as FrameMessage);
    if (!this.channel) this.queued.push(...chunks);
    else for (const chunk of chunks) this.channel.write(chunk);
  }

  onMessage(handler: (msg: unknown) => void): void {
    this.messageHandler = handler;
  }

  onExit(handler: (reason: string) => void): void {
    this.exitHandler = handler;
  }

  /** The pool ends this runner: no exit is reported for it. */
  terminate(): void {
    this.exited = true;
    this.release?.();
    this.kill();
  }

  private kill(): void {
    this.child?.kill("SIGKILL");
    this.channel?.destroy();
  }
}
