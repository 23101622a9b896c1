// The generic RunnerHost: one fresh worker per job, a pool of booted-but-unused spares, a memory
// snapshot to boot from, hard timeouts, and the reply checks of verify.ts. Environment-neutral:
// an adapter (node.ts, the browser sandbox) only knows how to spawn a worker.
import { EdgeError, errorJson, type ErrorCode } from "../contract/errors.ts";
import { randomHex } from "../contract/hash.ts";
import {
  parseWorkerToHost,
  type BootMessage,
  type CallJobMessage,
  type DiscoverJobMessage,
  type HostToWorker,
  type PyodideAssets,
  type PythonFiles,
  type SnapshotFileRef,
  type WorkerToHost,
  type WorkerToHostParse,
} from "../../workers/protocol.ts";
import type { CallJob, CallOutcome, DiscoverJob, DiscoverOutcome, RunnerHost } from "./host.ts";
import {
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_STDERR_LIMIT,
  failedDiscovery,
  unverifiedCall,
  verifyCallReply,
  verifyDiscoverReply,
  type CallVerdict,
} from "./verify.ts";
import { raceSignal } from "../contract/abort.ts";

/** One spawned worker, as the adapter exposes it. */
export interface RunnerWorkerHandle {
  post(msg: HostToWorker, transfer?: ArrayBuffer[]): void;
  onMessage(handler: (msg: unknown) => void): void;
  /** The worker exited or failed (uncaught error, OOM, process.exit); called at most once.
   *  `withEnvironment`: it died because what it ran in died (the browser's sandbox frame), not
   *  because of what it ran or booted from. */
  onExit(handler: (reason: string, withEnvironment?: boolean) => void): void;
  terminate(): void;
}

/** What a worker is spawned for: one job, or making the memory snapshot (which sends its bytes). */
export type RunnerRole = "job" | "snapshot";

export interface RunnerWorkerFactory {
  spawn(role?: RunnerRole): RunnerWorkerHandle;
  /** How the worker reaches Pyodide's files (sent in every boot message). */
  pyodideAssets(): PyodideAssets;
  /** Its workers compile Pyodide themselves (no shared compiled module), so spares warm up while
   *  they wait (BootMessage.warmUp) and are hurried when a job needs one still booting. */
  warmsUp?: boolean;
  /** Its workers may read a stored snapshot's file (SnapshotStore.reference) themselves. */
  readsSnapshotFiles?: boolean;
}

/** Where memory snapshots are kept between hosts (disk in Node, IndexedDB/Cache in a browser). */
export interface SnapshotStore {
  get(): Promise<Uint8Array | undefined>;
  /** Where the stored snapshot is, for workers that read it themselves and check its sha256
   *  (RunnerWorkerFactory.readsSnapshotFiles): the host then never reads its bytes. */
  reference?(): Promise<SnapshotFileRef | undefined>;
  put(bytes: Uint8Array): Promise<void>;
  /** Forget a snapshot that failed to boot. */
  discard?(): Promise<void>;
}

export interface RunnerHostOptions {
  /** The runner's Python sources (edge_runner.py, edgestudio/…), or a loader for them. */
  pythonFiles: PythonFiles | (() => Promise<PythonFiles>);
  /** Per-job hard limit (default 10 000 ms); a job's own timeoutMs wins. */
  timeoutMs?: number;
  /** Booted-but-unused workers kept ready (default DEFAULT_SPARES; 0 = boot per job). */
  spares?: number;
  /** Workers started at once, when the host is created, for the first jobs (default 0): a one-shot
   *  command that knows how many jobs it runs (`edge tools call`: a discovery and a call) boots
   *  them while it parses its arguments and reads the tools file. Used like spares, never refilled. */
  prestart?: number;
  /** Snapshot store; null/undefined = always boot plainly. */
  snapshot?: SnapshotStore | null;
  /** Canonical JSON size limit of a result (default 65 536 bytes). */
  maxResultBytes?: number;
  /** Bound on captured print()/stderr per job (default 16 384 characters). */
  stderrLimit?: number;
  /** Limit for a worker's boot (default 60 000 ms) → runner_boot_failed. */
  bootTimeoutMs?: number;
}

/** Chosen from bench/runner.bench.ts (see docs/runner.md): one spare hides boot for sequential
 *  calls; a second costs another Pyodide heap and competes for the two cores during a burst. */
export const DEFAULT_SPARES = 1;
export const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_BOOT_TIMEOUT_MS = 60_000;

export interface RunnerHostStats {
  spares: number;
  sparesReady: number;
  snapshot: "unknown" | "loading" | "making" | "ready" | "absent" | "failed";
  workersSpawned: number;
  bootsFromSnapshot: number;
  plainBoots: number;
  lastBootMs?: number;
}

export interface PoolRunnerHost extends RunnerHost {
  /** Resolves when the snapshot is settled (loaded, or made in the background) and the configured
   *  number of spares is booted. Optional: jobs never wait for the snapshot. */
  warm(): Promise<void>;
  /** Resolves when every worker started so far has been sent its boot message: what the host
   *  itself had to do for them (reading the snapshot, copying it to them) is done. */
  started(): Promise<void>;
  stats(): RunnerHostStats;
}

interface BootInfo {
  bootMs: number;
  fromSnapshot: boolean;
}

type JobEnd =
  | { kind: "message"; msg: unknown }
  | { kind: "timeout" }
  | { kind: "crashed"; reason: string }
  | { kind: "aborted" }
  | { kind: "boot_failed"; reason: string };

/** A boot that ended because the worker's environment died (see RunnerWorkerHandle.onExit). */
class EnvironmentLost extends Error {}

/** A worker from spawn to terminate. */
class Runner {
  state: "booting" | "ready" | "taken" | "dead" = "booting";
  readonly ready: Promise<BootInfo>;
  private resolveReady!: (info: BootInfo) => void;
  private rejectReady!: (err: Error) => void;
  private jobListener: ((end: JobEnd) => void) | undefined;

  /** Set when its boot message is sent: whether it boots from the memory snapshot. */
  usesSnapshot = false;

  constructor(
    private readonly handle: RunnerWorkerHandle,
    private readonly onDeath: (runner: Runner) => void,
  ) {
    this.ready = new Promise<BootInfo>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => undefined); // observed by whoever takes the runner
    handle.onMessage((msg) => this.onMessage(msg));
    handle.onExit((reason, withEnvironment) => this.onExit(reason, withEnvironment === true));
  }

  boot(msg: BootMessage): void {
    this.handle.post(msg);
  }

  private onMessage(msg: unknown): void {
    if (this.state === "booting") {
      const parsed = parseWorkerToHost(msg);
      if (parsed.ok && parsed.message.type === "ready") {
        this.state = "ready";
        this.resolveReady({ bootMs: parsed.message.bootMs || 0, fromSnapshot: parsed.message.fromSnapshot });
      } else {
        this.kill(`boot: ${unexpected(parsed)}`);
      }
    } else if (this.state === "taken") {
      const listener = this.jobListener;
      this.jobListener = undefined;
      listener?.({ kind: "message", msg });
    } else if (this.state === "ready") {
      // An idle spare has no business talking: no tool code ran in it, so this is a fault.
      this.kill("an idle spare sent a message");
    }
  }

  private onExit(reason: string, withEnvironment = false): void {
    if (this.state === "dead") return;
    const wasBooting = this.state === "booting";
    this.state = "dead";
    if (wasBooting) this.rejectReady(withEnvironment ? new EnvironmentLost(reason) : new Error(reason));
    const listener = this.jobListener;
    this.jobListener = undefined;
    listener?.({ kind: "crashed", reason });
    this.onDeath(this);
  }

  /** Post one job; resolves with the first thing that ends it. */
  run(job: DiscoverJobMessage | CallJobMessage, timeoutMs: number, signal: AbortSignal | undefined): Promise<JobEnd> {
    return new Promise<JobEnd>((resolve) => {
      let settled = false;
      const end = (e: JobEnd): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.jobListener = undefined;
        this.kill("job finished");
        resolve(e);
      };
      const onAbort = (): void => end({ kind: "aborted" });
      const timer = setTimeout(() => end({ kind: "timeout" }), timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (this.state === "dead") return end({ kind: "crashed", reason: "the runner died before the job started" });
      this.jobListener = end;
      this.handle.post(job);
    });
  }

  /** A job waits for this booting runner: it may skip the rest of its warm-up. */
  hurry(): void {
    if (this.state === "booting") this.handle.post({ type: "hurry" });
  }

  kill(reason: string): void {
    if (this.state === "dead") return;
    this.handle.terminate();
    this.onExit(reason);
  }
}

export function createRunnerHost(factory: RunnerWorkerFactory, options: RunnerHostOptions): PoolRunnerHost {
  const spareTarget = Math.max(0, Math.floor(options.spares ?? DEFAULT_SPARES));
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const bootTimeout = options.bootTimeoutMs ?? DEFAULT_BOOT_TIMEOUT_MS;
  const maxResultBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const stderrLimit = options.stderrLimit ?? DEFAULT_STDERR_LIMIT;
  const store = options.snapshot ?? null;

  let closed = false;
  const spares: Runner[] = [];
  const live = new Set<Runner>();
  let pythonFiles: Promise<PythonFiles> | undefined;
  let snapshotState: RunnerHostStats["snapshot"] = store ? "unknown" : "absent";
  /** The snapshot workers boot from: its bytes, or where a worker reads them (SnapshotStore.reference). */
  let snapshotImage: Uint8Array | SnapshotFileRef | undefined;
  let snapshotReady: Promise<void> | undefined;
  let maker: RunnerWorkerHandle | undefined;
  let making: Promise<void> | undefined;
  /** Ends the snapshot being made (close): its boot timer would otherwise keep the process alive. */
  let abortMaking: (() => void) | undefined;
  const stats = { workersSpawned: 0, bootsFromSnapshot: 0, plainBoots: 0, lastBootMs: undefined as number | undefined };

  const files = (): Promise<PythonFiles> => {
    pythonFiles ??= typeof options.pythonFiles === "function" ? options.pythonFiles() : Promise.resolve(options.pythonFiles);
    return pythonFiles;
  };

  /** Load the stored snapshot once; when there is none, make one in a background worker. */
  function settleSnapshot(): Promise<void> {
    if (!store) return Promise.resolve();
    snapshotReady ??= (async () => {
      snapshotState = "loading";
      try {
        const ref = factory.readsSnapshotFiles ? await store.reference?.() : undefined;
        if (ref && ref.size > 0) {
          snapshotImage = ref;
          snapshotState = "ready";
          return;
        }
        const bytes = await store.get();
        if (bytes && bytes.byteLength > 0) {
          snapshotImage = bytes;
          snapshotState = "ready";
          return;
        }
      } catch {
        // unreadable cache: same as none
      }
      snapshotState = "making";
      making = makeSnapshot();
    })();
    return snapshotReady;
  }

  async function makeSnapshot(): Promise<void> {
    if (!store || closed) return;
    try {
      const bytes = await new Promise<Uint8Array>((resolve, reject) => {
        void files().then((pf) => {
          if (closed) return reject(new Error("closed"));
          const handle = factory.spawn("snapshot");
          maker = handle;
          stats.workersSpawned++;
          const timer = setTimeout(() => reject(new Error("snapshot boot timed out")), bootTimeout * 2);
          abortMaking = () => {
            clearTimeout(timer);
            reject(new Error("closed"));
          };
          handle.onMessage((msg) => {
            clearTimeout(timer);
            const parsed = parseWorkerToHost(msg);
            if (parsed.ok && parsed.message.type === "snapshot") resolve(parsed.message.bytes);
            else reject(new Error(`snapshot worker: ${unexpected(parsed)}`));
          });
          handle.onExit((reason) => {
            clearTimeout(timer);
            reject(new Error(`snapshot worker exited: ${reason}`));
          });
          handle.post({ type: "boot", pythonFiles: pf, pyodide: factory.pyodideAssets(), makeSnapshot: true });
        }, reject);
      });
      maker?.terminate();
      maker = undefined;
      if (closed) return;
      snapshotImage = bytes;
      snapshotState = "ready";
      await store.put(bytes).catch(() => undefined);
    } catch {
      maker?.terminate();
      maker = undefined;
      if (snapshotState === "making") snapshotState = "failed";
    }
  }

  /** A new runner's worker, started now; its boot message follows (bootRunner). */
  function createRunner(): Runner {
    const handle = factory.spawn();
    stats.workersSpawned++;
    const runner = new Runner(handle, (r) => {
      live.delete(r);
      const i = spares.indexOf(r);
      if (i >= 0) spares.splice(i, 1);
    });
    live.add(runner);
    if (closed) runner.kill("host closed");
    return runner;
  }

  /** Send the boot message once the Python files are read (and, with `afterSnapshot`, once the
   *  snapshot is settled: loaded, or made first). The worker starts before: its own start-up
   *  overlaps these reads. `spare` when nobody waits for it yet, so its boot may include warm-up. */
  async function bootRunner(runner: Runner, allowSnapshot: boolean, spare: boolean, afterSnapshot = false): Promise<void> {
    let pf: PythonFiles;
    try {
      [pf] = await Promise.all([files(), afterSnapshot ? settleSnapshot() : undefined]);
      if (afterSnapshot) await making;
    } catch (err) {
      runner.kill(`the runner's Python files could not be read: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    if (runner.state === "dead") return; // the host closed (or the worker died) meanwhile
    const snap = allowSnapshot && snapshotState === "ready" ? snapshotImage : undefined;
    runner.usesSnapshot = snap !== undefined;
    // The snapshot is copied (structured clone), never transferred or shared: tool code in one
    // worker must not be able to write into the bytes the next worker boots from.
    const boot: BootMessage = { type: "boot", pythonFiles: pf, pyodide: factory.pyodideAssets(), stderrLimit };
    if (snap instanceof Uint8Array) boot.snapshot = snap;
    else if (snap) boot.snapshotFile = snap;
    if (spare && factory.warmsUp) boot.warmUp = true;
    runner.boot(boot);
    const bootTimer = setTimeout(() => runner.kill("boot timed out"), bootTimeout);
    runner.ready.then(
      (info) => {
        clearTimeout(bootTimer);
        stats.lastBootMs = info.bootMs;
        if (info.fromSnapshot) stats.bootsFromSnapshot++;
        else stats.plainBoots++;
      },
      () => clearTimeout(bootTimer),
    );
  }

  const booting = new Set<Promise<void>>();
  /** bootRunner, tracked for started(). */
  function sendBoot(runner: Runner, allowSnapshot: boolean, spare: boolean, afterSnapshot = false): Promise<void> {
    const sent = bootRunner(runner, allowSnapshot, spare, afterSnapshot);
    booting.add(sent);
    const done = (): void => void booting.delete(sent);
    sent.then(done, done);
    return sent;
  }

  /** A new runner, its boot message sent. */
  async function spawnRunner(allowSnapshot: boolean, spare = false): Promise<Runner> {
    const runner = createRunner();
    await sendBoot(runner, allowSnapshot, spare);
    return runner;
  }

  const spawning = new Set<Promise<Runner>>();
  function refill(): void {
    if (closed) return;
    const idle = spares.filter((r) => r.state === "booting" || r.state === "ready").length + spawning.size;
    for (let i = idle; i < spareTarget; i++) {
      // A spare that fails to boot just drops out of the pool (onDeath); the next job refills it.
      const pending = spawnRunner(true, true);
      spawning.add(pending);
      pending.then(
        (runner) => {
          spawning.delete(pending);
          if (runner.state !== "dead") spares.push(runner);
        },
        () => {
          spawning.delete(pending);
        },
      );
    }
  }

  /** A booted runner for one job: a ready spare, else a booting one, else a fresh (cold) boot.
   *  If a snapshot boot fails, the snapshot is dropped and the job gets one plain boot — unless the
   *  runner read the stored file itself (SnapshotStore.reference) and refused it: then, as when
   *  the store's own check refuses its bytes, a new snapshot is made and the job boots from it.
   *  If the boot died with its environment (a lost sandbox frame), the job gets one more boot as
   *  it was. */
  async function acquire(): Promise<Runner> {
    await settleSnapshot();
    // While the first snapshot is being made, wait for it rather than boot plainly beside it: two
    // Pyodide boots at once on two cores take longer than the snapshot plus a boot from it.
    if (snapshotState === "making" && !spares.some((r) => r.state === "ready")) await making;
    let runner = spares.find((r) => r.state === "ready") ?? spares.find((r) => r.state === "booting");
    if (runner) {
      spares.splice(spares.indexOf(runner), 1);
      if (factory.warmsUp) runner.hurry();
    } else runner = await spawnRunner(true);
    runner.state = runner.state === "ready" ? "taken" : runner.state;
    try {
      await runner.ready;
    } catch (err) {
      if (closed || !(runner.usesSnapshot || err instanceof EnvironmentLost)) throw err;
      if (!(err instanceof EnvironmentLost)) {
        const referenced = snapshotImage !== undefined && !(snapshotImage instanceof Uint8Array);
        snapshotState = "failed";
        snapshotImage = undefined;
        await store?.discard?.().catch(() => undefined);
        if (referenced && !closed) {
          snapshotState = "making";
          await (making = makeSnapshot());
        }
      }
      runner = await spawnRunner(snapshotState === "ready");
      await runner.ready;
    }
    if (runner.state === "dead") throw new Error("the runner died after boot");
    runner.state = "taken";
    return runner;
  }

  /** Acquire a runner and run one job on it, with timeout and abort. */
  async function runJob(job: DiscoverJobMessage | CallJobMessage, timeoutMs: number, signal?: AbortSignal): Promise<JobEnd> {
    if (closed) throw new EdgeError("invalid_argument", {}, "This RunnerHost is closed.");
    if (signal?.aborted) return { kind: "aborted" };
    let runner: Runner;
    const acquiring = acquire();
    try {
      runner = await raceSignal(acquiring, signal, () => new Error("aborted"));
    } catch (err) {
      if (signal?.aborted) {
        acquiring.then((r) => r.kill("aborted"), () => undefined);
        return { kind: "aborted" };
      }
      refill();
      return { kind: "boot_failed", reason: err instanceof Error ? err.message : String(err) };
    }
    if (signal?.aborted) {
      runner.kill("aborted");
      return { kind: "aborted" };
    }
    return runner.run(job, timeoutMs, signal);
  }

  /** Replacements boot after the job, not during it: on two cores a boot next to the job roughly
   *  doubles the job's latency. Spawning also costs the main thread (a new worker, a copy of the
   *  snapshot), so it is scheduled once the job's outcome is checked, as a macrotask: the caller's
   *  continuation runs first. */
  function scheduleRefill(): void {
    if (!closed) setTimeout(refill, 0);
  }

  async function discoverJob(job: DiscoverJob, signal?: AbortSignal): Promise<DiscoverOutcome> {
    const started = performance.now();
    const jobId = randomHex(16);
    const msg: DiscoverJobMessage = {
      type: "discover",
      jobId,
      source: job.bytes,
      expectedSha256: job.expectedSha256,
      filename: job.filename,
      ...(job.project ? { project: job.project } : {}),
      ...(job.packages?.length ? { packages: job.packages } : {}),
    };
    const end = await runJob(msg, job.timeoutMs ?? defaultTimeout, signal);
    const duration_ms = Math.round(performance.now() - started);
    if (end.kind === "message") {
      const parsed = parseWorkerToHost(end.msg);
      if (parsed.ok && parsed.message.type === "fatal") {
        return { ...failedDiscovery("runner_crashed", job.expectedSha256), duration_ms, diagnostics: { reason: fatalReason(parsed.message) } };
      }
      // A malformed message is refused by the verifier as not a reply to this job, like any non-`done`.
      return { ...verifyDiscoverReply(parsed.ok ? parsed.message : undefined, jobId, job.expectedSha256, stderrLimit), duration_ms };
    }
    const { code, diagnostics, message } = failure(end, job.timeoutMs ?? defaultTimeout, "Discovering the tools file");
    return { ...failedDiscovery(code, job.expectedSha256, "", message ? { message } : {}), duration_ms, diagnostics };
  }

  async function callJob(job: CallJob, signal?: AbortSignal): Promise<CallOutcome> {
    const started = performance.now();
    const jobId = randomHex(16);
    const callId = job.callId ?? `call_${randomHex(12)}`;
    const secret = randomHex(32);
    const msg: CallJobMessage = {
      type: "call",
      jobId,
      source: job.bytes,
      expectedSha256: job.expectedSha256,
      filename: job.filename,
      toolName: job.toolName,
      argsJson: JSON.stringify(job.args),
      callId,
      secret,
      ...(job.workspace ? { workspace: job.workspace } : {}),
      ...(job.project ? { project: job.project } : {}),
      ...(job.packages?.length ? { packages: job.packages } : {}),
    };
    const end = await runJob(msg, job.timeoutMs ?? defaultTimeout, signal);
    let verdict: CallVerdict;
    if (end.kind === "message") {
      const parsed = parseWorkerToHost(end.msg);
      if (!parsed.ok) {
        verdict = unverifiedCall(`the runner's message is not a reply to this job (${parsed.reason})`);
      } else if (parsed.message.type === "fatal") {
        // The worker's own error path (the interpreter died under it); fail closed as a crash.
        verdict = crashed(fatalReason(parsed.message));
      } else {
        verdict = await verifyCallReply(parsed.message, { jobId, callId, secret, outputSchema: job.outputSchema, maxResultBytes, stderrLimit });
      }
    } else {
      const { code, diagnostics, message } = failure(end, job.timeoutMs ?? defaultTimeout, `Tool ${job.toolName}`);
      verdict = { ok: false, tools_file_sha256_verified: false, runner_secret_verified: false, stderr: "", error: errorJson(code, message ? { message } : {}), diagnostics };
    }
    return { ...verdict, callId, duration_ms: Math.round(performance.now() - started) };
  }

  // Prestarted runners boot from the snapshot (waiting for it to be loaded, or made on a first
  // run: two plain boots beside the maker would be slower on two cores than the maker plus boots).
  // They warm up like spares (`edge tools call`'s second runner has the discovery's time for it:
  // without, the one-shot call was slower, docs/runner.md); a job that takes one hurries it.
  for (let i = 0; i < Math.max(0, Math.floor(options.prestart ?? 0)); i++) {
    const runner = createRunner();
    spares.push(runner);
    sendBoot(runner, true, true, true).catch(() => undefined); // a failed boot drops it (onDeath)
  }

  const host: PoolRunnerHost = {
    async discover(job: DiscoverJob, signal?: AbortSignal): Promise<DiscoverOutcome> {
      try {
        return await discoverJob(job, signal);
      } finally {
        scheduleRefill();
      }
    },

    async call(job: CallJob, signal?: AbortSignal): Promise<CallOutcome> {
      try {
        return await callJob(job, signal);
      } finally {
        scheduleRefill();
      }
    },

    async close(): Promise<void> {
      closed = true;
      abortMaking?.();
      maker?.terminate();
      maker = undefined;
      for (const r of [...live]) r.kill("host closed");
      spares.length = 0;
    },

    async started(): Promise<void> {
      await Promise.allSettled([...booting]);
    },

    async warm(): Promise<void> {
      await settleSnapshot();
      await making;
      refill();
      await Promise.allSettled([...spawning]);
      await Promise.allSettled(spares.map((r) => r.ready));
    },

    stats(): RunnerHostStats {
      return {
        spares: spareTarget,
        sparesReady: spares.filter((r) => r.state === "ready").length,
        snapshot: snapshotState,
        ...stats,
      };
    },
  };
  return host;
}

function crashed(reason: string): CallVerdict {
  return {
    ok: false,
    tools_file_sha256_verified: false,
    runner_secret_verified: false,
    stderr: "",
    error: errorJson("runner_crashed"),
    diagnostics: { reason },
  };
}

/** The reason of a worker's `fatal` message (untrusted text, for people). */
function fatalReason(msg: Extract<WorkerToHost, { type: "fatal" }>): string {
  return `runner reported: ${msg.message.slice(0, 4000)}`;
}

/** Why a message was not the one awaited: a `fatal`'s reason, else a protocol violation. */
function unexpected(parsed: WorkerToHostParse): string {
  if (parsed.ok && parsed.message.type === "fatal") return parsed.message.message;
  return parsed.ok ? "unexpected message" : `unexpected message (${parsed.reason})`;
}

/** How a job that sent no reply ended. A timeout states the limit that stopped it (`what` ran). */
function failure(end: Exclude<JobEnd, { kind: "message" }>, timeoutMs: number, what: string): { code: ErrorCode; diagnostics: Record<string, unknown>; message?: string } {
  switch (end.kind) {
    case "timeout":
      return {
        code: "runner_timeout",
        diagnostics: { timeout_ms: timeoutMs },
        message: `${what} ran longer than its ${timeoutMs.toLocaleString("en-US")} ms time limit and was stopped; make it faster, or raise the limit (--timeout-ms N in the CLI).`,
      };
    case "aborted":
      return { code: "aborted", diagnostics: {} };
    case "crashed":
      return { code: "runner_crashed", diagnostics: { reason: end.reason } };
    case "boot_failed":
      return { code: "runner_boot_failed", diagnostics: { reason: end.reason } };
  }
}
