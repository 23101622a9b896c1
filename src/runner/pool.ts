// The generic RunnerHost: one fresh worker per job, hard timeouts and the reply checks of verify.ts
// (pool-jobs.ts), over booted-but-unused spares (pool-spares.ts) that boot from a memory snapshot
// (pool-snapshot.ts). Environment-neutral: an adapter (node.ts, the browser sandbox) only knows how
// to spawn a worker (worker-handle.ts); one worker's life is pool-runner.ts.
import { raceSignal } from "../contract/abort.ts";
import { EdgeError } from "../contract/errors.ts";
import type { CallJobMessage, DiscoverJobMessage, PythonFiles } from "../../workers/protocol.ts";
import type { CallJob, CallOutcome, DiscoverJob, DiscoverOutcome, RunnerHost } from "./host.ts";
import { callMessage, callVerdict, discoverMessage, discoverOutcome } from "./pool-jobs.ts";
import type { JobEnd, Runner } from "./pool-runner.ts";
import { RunnerSpares, type SpareCounts } from "./pool-spares.ts";
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
const DEFAULT_TIMEOUT_MS = 10_000;
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
  /** Start `count` more runners now for jobs to come (as RunnerHostOptions.prestart does at start). */
  prestart(count: number): void;
  stats(): RunnerHostStats;
}

export function createRunnerHost(factory: RunnerWorkerFactory, options: RunnerHostOptions): PoolRunnerHost {
  const spareTarget = Math.max(0, Math.floor(options.spares ?? DEFAULT_SPARES));
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const bootTimeoutMs = options.bootTimeoutMs ?? DEFAULT_BOOT_TIMEOUT_MS;
  const maxResultBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const stderrLimit = options.stderrLimit ?? DEFAULT_STDERR_LIMIT;

  let closed = false;
  const counts: SpareCounts = { workersSpawned: 0, bootsFromSnapshot: 0, plainBoots: 0 };
  const files = loadOnce(options.pythonFiles);
  const snapshot = new PoolSnapshot(
    options.snapshot ?? null,
    factory,
    files,
    bootTimeoutMs,
    () => void counts.workersSpawned++,
  );
  const spares = new RunnerSpares({
    factory,
    snapshot,
    files,
    target: spareTarget,
    bootTimeoutMs,
    stderrLimit,
    counts,
  });

  const runJob = async (
    job: DiscoverJobMessage | CallJobMessage,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<JobEnd> => {
    if (closed) throw hostClosed();
    return runOnSpare(spares, job, timeoutMs, signal);
  };

  /** Replacements boot after the job, not during it: on two cores a boot next to the job roughly
   *  doubles the job's latency. Spawning also costs the main thread (a new worker, a copy of the
   *  snapshot), so it is scheduled once the job's outcome is checked, as a macrotask: the caller's
   *  continuation runs first. */
  async function afterJob<T>(job: Promise<T>): Promise<T> {
    try {
      return await job;
    } finally {
      if (!closed) setTimeout(() => spares.refill(), 0);
    }
  }

  async function discoverJob(job: DiscoverJob, signal?: AbortSignal): Promise<DiscoverOutcome> {
    const started = performance.now();
    const msg = discoverMessage(job);
    const timeoutMs = job.timeoutMs ?? defaultTimeout;
    const end = await runJob(msg, timeoutMs, signal);
    return {
      ...discoverOutcome(end, msg, timeoutMs, stderrLimit, factory.bootFailureFix),
      duration_ms: Math.round(performance.now() - started),
    };
  }

  async function callJob(job: CallJob, signal?: AbortSignal): Promise<CallOutcome> {
    const started = performance.now();
    const msg = callMessage(job);
    const timeoutMs = job.timeoutMs ?? defaultTimeout;
    const end = await runJob(msg, timeoutMs, signal);
    const verdict = await callVerdict(end, msg, {
      outputSchema: job.outputSchema,
      maxResultBytes,
      stderrLimit,
      timeoutMs,
      bootFix: factory.bootFailureFix,
    });
    return { ...verdict, callId: msg.callId, duration_ms: Math.round(performance.now() - started) };
  }

  spares.prestart(Math.max(0, Math.floor(options.prestart ?? 0)));

  return {
    discover: (job: DiscoverJob, signal?: AbortSignal) => afterJob(discoverJob(job, signal)),
    call: (job: CallJob, signal?: AbortSignal) => afterJob(callJob(job, signal)),

    async close(): Promise<void> {
      closed = true;
      snapshot.close();
      spares.close();
    },

    started: () => spares.started(),

    prestart: (count: number) => {
      if (!closed) spares.prestart(Math.max(0, Math.floor(count)));
    },

    async warm(): Promise<void> {
      await snapshot.settle();
      await snapshot.making;
      await spares.warm();
    },

    stats: (): RunnerHostStats => ({
      spares: spareTarget,
      sparesReady: spares.ready,
      snapshot: snapshot.state,
      ...counts,
    }),
  };
}

/** A job sent to a host after close(). */
function hostClosed(): EdgeError {
  return new EdgeError(
    "already_closed",
    {},
    "This runner host is closed; create a new one (createNodeRunnerHost() or createBrowserRunnerHost()).",
  );
}

/** The runner's Python sources, loaded on first use and then shared by every boot. */
function loadOnce(source: RunnerHostOptions["pythonFiles"]): () => Promise<PythonFiles> {
  let loaded: Promise<PythonFiles> | undefined;
  return () => (loaded ??= typeof source === "function" ? source() : Promise.resolve(source));
}

/** Acquire a runner and run one job on it, with timeout and abort. A runner that arrives after
 *  the abort is killed unused; one that failed to boot is a boot_failed end (and a spare boots in
 *  its place). */
async function runOnSpare(
  spares: RunnerSpares,
  job: DiscoverJobMessage | CallJobMessage,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<JobEnd> {
  if (signal?.aborted) return { kind: "aborted" };
  let runner: Runner;
  const acquiring = spares.acquire();
  try {
    runner = await raceSignal(acquiring, signal, () => new EdgeError("aborted"));
  } catch (err) {
    if (signal?.aborted) {
      acquiring.then(
        (r) => r.kill("aborted"),
        () => undefined,
      );
      return { kind: "aborted" };
    }
    spares.refill();
    return { kind: "boot_failed", reason: err instanceof Error ? err.message : String(err) };
  }
  if (signal?.aborted) {
    runner.kill("aborted");
    return { kind: "aborted" };
  }
  return runner.run(job, timeoutMs, signal);
}
