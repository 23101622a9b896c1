// The generic RunnerHost: one fresh worker per job, a pool of booted-but-unused spares, a memory
// snapshot to boot from (pool-snapshot.ts), hard timeouts, and the reply checks of verify.ts
// (pool-jobs.ts). Environment-neutral: an adapter (node.ts, the browser sandbox) only knows how to
// spawn a worker (worker-handle.ts); one worker's life is pool-runner.ts.
import { raceSignal } from "../contract/abort.ts";
import { EdgeError } from "../contract/errors.ts";
import type { BootMessage, CallJobMessage, DiscoverJobMessage, PythonFiles } from "../../workers/protocol.ts";
import type { CallJob, CallOutcome, DiscoverJob, DiscoverOutcome, RunnerHost } from "./host.ts";
import { callMessage, callVerdict, discoverMessage, discoverOutcome } from "./pool-jobs.ts";
import { EnvironmentLost, Runner, type JobEnd } from "./pool-runner.ts";
import { PoolSnapshot, type SnapshotState, type SnapshotStore } from "./pool-snapshot.ts";
import { DEFAULT_MAX_RESULT_BYTES, DEFAULT_STDERR_LIMIT } from "./verify.ts";
import type { RunnerWorkerFactory } from "./worker-handle.ts";

export interface RunnerHostOptions {
  /** The runner's Python sources (edge_runner/…, edgestudio/…), or a loader for them. */
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
  snapshot: SnapshotState;
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

export function createRunnerHost(factory: RunnerWorkerFactory, options: RunnerHostOptions): PoolRunnerHost {
  const spareTarget = Math.max(0, Math.floor(options.spares ?? DEFAULT_SPARES));
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const bootTimeout = options.bootTimeoutMs ?? DEFAULT_BOOT_TIMEOUT_MS;
  const maxResultBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const stderrLimit = options.stderrLimit ?? DEFAULT_STDERR_LIMIT;

  let closed = false;
  const spares: Runner[] = [];
  const live = new Set<Runner>();
  let pythonFiles: Promise<PythonFiles> | undefined;
  const stats = { workersSpawned: 0, bootsFromSnapshot: 0, plainBoots: 0, lastBootMs: undefined as number | undefined };

  const files = (): Promise<PythonFiles> => {
    pythonFiles ??= typeof options.pythonFiles === "function" ? options.pythonFiles() : Promise.resolve(options.pythonFiles);
    return pythonFiles;
  };
  const snapshot = new PoolSnapshot(options.snapshot ?? null, factory, files, bootTimeout, () => void stats.workersSpawned++);

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
      [pf] = await Promise.all([files(), afterSnapshot ? snapshot.settle() : undefined]);
      if (afterSnapshot) await snapshot.making;
    } catch (err) {
      runner.kill(`the runner's Python files could not be read: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    if (runner.state === "dead") return; // the host closed (or the worker died) meanwhile
    const snap = allowSnapshot && snapshot.state === "ready" ? snapshot.image : undefined;
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
    await snapshot.settle();
    // While the first snapshot is being made, wait for it rather than boot plainly beside it: two
    // Pyodide boots at once on two cores take longer than the snapshot plus a boot from it.
    if (snapshot.state === "making" && !spares.some((r) => r.state === "ready")) await snapshot.making;
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
      if (!(err instanceof EnvironmentLost)) await snapshot.refused();
      runner = await spawnRunner(snapshot.state === "ready");
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
    const msg = discoverMessage(job);
    const timeoutMs = job.timeoutMs ?? defaultTimeout;
    const end = await runJob(msg, timeoutMs, signal);
    return { ...discoverOutcome(end, msg, timeoutMs, stderrLimit), duration_ms: Math.round(performance.now() - started) };
  }

  async function callJob(job: CallJob, signal?: AbortSignal): Promise<CallOutcome> {
    const started = performance.now();
    const msg = callMessage(job);
    const timeoutMs = job.timeoutMs ?? defaultTimeout;
    const end = await runJob(msg, timeoutMs, signal);
    const verdict = await callVerdict(end, msg, { outputSchema: job.outputSchema, maxResultBytes, stderrLimit, timeoutMs });
    return { ...verdict, callId: msg.callId, duration_ms: Math.round(performance.now() - started) };
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
      snapshot.close();
      for (const r of [...live]) r.kill("host closed");
      spares.length = 0;
    },

    async started(): Promise<void> {
      await Promise.allSettled([...booting]);
    },

    async warm(): Promise<void> {
      await snapshot.settle();
      await snapshot.making;
      refill();
      await Promise.allSettled([...spawning]);
      await Promise.allSettled(spares.map((r) => r.ready));
    },

    stats(): RunnerHostStats {
      return {
        spares: spareTarget,
        sparesReady: spares.filter((r) => r.state === "ready").length,
        snapshot: snapshot.state,
        ...stats,
      };
    },
  };
  return host;
}

