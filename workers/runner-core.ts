// One runner worker, shared by every environment: the dispatcher of its messages. No static Node
// or DOM import: the entry (runner.node-process.ts, or the browser sandbox's worker,
// runner.worker.ts) passes in a message port and a Pyodide loader. One worker boots
// (runner-boot.ts), says "ready", runs exactly ONE job (runner-jobs.ts: its packages,
// runner-packages.ts; its read-only mounts, runner-mounts.ts), replies once, and is terminated by
// the host.
//
// Everything that runs after tool code has run uses only references captured at start-up (here,
// and in the modules above when they are evaluated): tool code can reach JS globals (`import js`,
// `pyodide_js`) and overwrite them, and it can replace attributes of the edge_runner module, so
// neither is looked up again. The reply's HMAC is computed in JavaScript (runner-jobs.ts), never in
// the Python interpreter that runs tool code.
import { BoundedText } from "./bounded-text.ts";
import type {
  BootMessage,
  CallJobMessage,
  DiscoverJobMessage,
  HostToWorker,
  SnapshotFileRef,
  WorkerToHost,
} from "./protocol.ts";
import { bootPyodide, type BootContext, type BootOutcome, type PyodideLoader, type Runtime } from "./runner-boot.ts";
import { runJob, type JobContext } from "./runner-jobs.ts";
import type { MemFs } from "./runner-mounts.ts";
import { describe } from "./runner-replies.ts";

export type { PyodideLoader, RunnerLoadOptions } from "./runner-boot.ts";

/** The two things a worker needs from its environment's message channel. */
export interface RunnerPort {
  postMessage(msg: WorkerToHost, transfer?: ArrayBuffer[]): void;
  onMessage(handler: (msg: HostToWorker) => void): void;
}

export interface RunnerWorkerHooks {
  /** Called once the worker has nothing more to do (after its reply or a fatal error). */
  finished?(): void;
  /** Passes of edge_runner.preload() a spare (boot message `warmUp`) runs after a snapshot boot,
   *  before it says "ready": for an entry that compiles Pyodide's wasm itself (a Node runner
   *  process), so the job's code paths are compiled, and the hottest optimized, before the job.
   *  A "hurry" message ends it early. Default 0. */
  warmUpPasses?: number;
  /** Called once a spare's warm-up is done and no job waits for it, before it says "ready": the
   *  entry may reclaim what the boot left behind (the Node runner runs a full GC, so the copy of
   *  the snapshot and Pyodide's wasm bytes go back to the system instead of staying in every idle
   *  spare). */
  settle?(): void;
  /** The bytes of a boot's `snapshotFile`, for an entry that may read files (a Node runner
   *  process): a promise, so Pyodide starts while they are read; it rejects when they cannot be
   *  booted, and the boot fails. */
  snapshot?(ref: SnapshotFileRef): Promise<Uint8Array>;
}

const DEFAULT_STDERR_LIMIT = 65_536;
/** Most output a runner keeps beside its reply, whatever the host asks (the reply must fit a frame). */
const MAX_STDERR_LIMIT = 32_768;

export function startRunnerWorker(port: RunnerPort, loadPyodide: PyodideLoader, hooks: RunnerWorkerHooks = {}): void {
  // Captured before any await and before any tool code exists.
  const post = port.postMessage.bind(port);
  const now = performance.now.bind(performance);
  const later = setTimeout;
  const finished = hooks.finished;
  const settle = hooks.settle;
  const warmUpPasses = Math.max(0, Math.floor(hooks.warmUpPasses ?? 0));
  const snapshotFile = hooks.snapshot;

  let phase: "idle" | "booting" | "ready" | "busy" | "finished" = "idle";
  let runtime: Runtime | undefined;
  /** Pyodide's file system, captured at boot (before any tool code exists in this worker). */
  let fs: MemFs | undefined;
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
  const bootContext: BootContext = {
    post,
    now,
    sink,
    warmUpPasses,
    // After boot() has returned: until then its frames still hold the snapshot's bytes (a
    // snapshot file's read), and a collection inside it would keep them. Skipped once a job runs.
    settle: settle && (() => void later(() => phase === "ready" && settle(), 0)),
    waiting: () => hurried || !!queued,
    booted: (booted, memfs) => {
      runtime = booted;
      fs = memfs;
    },
  };
  const jobContext: JobContext = { post, fatal, finish, sink };

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
      if (phase === "ready") void run(job);
      else if (phase === "booting" && !queued) queued = job;
      else fatal("a runner worker takes exactly one job");
    } else {
      fatal(`unexpected message type ${String(type)}`);
    }
  });

  async function boot(msg: BootMessage): Promise<void> {
    const started = now();
    if (typeof msg.stderrLimit === "number" && msg.stderrLimit >= 0)
      sink.limit = Math.min(msg.stderrLimit, MAX_STDERR_LIMIT);
    const snapshot =
      msg.snapshot instanceof Uint8Array
        ? msg.snapshot
        : msg.snapshotFile
          ? snapshotFile?.(msg.snapshotFile)
          : undefined;
    let ready: BootOutcome & { kind: "ready" };
    try {
      const outcome = await bootPyodide(msg, snapshot, loadPyodide, started, bootContext);
      if (outcome.kind === "snapshot") return finish();
      ready = outcome;
    } catch (err) {
      return fatal(`boot failed: ${describe(err)}${sink.text ? `\n${sink.text}` : ""}`);
    }
    sink.clear(); // boot chatter is not the job's output
    phase = "ready";
    post({ type: "ready", bootMs: ready.bootMs, fromSnapshot: ready.fromSnapshot });
    const job = queued;
    queued = undefined;
    if (job) void run(job);
  }

  async function run(job: DiscoverJobMessage | CallJobMessage): Promise<void> {
    const rt = runtime;
    if (!rt) return fatal("runner not booted");
    phase = "busy";
    await runJob(rt, fs, job, jobContext);
  }
}
