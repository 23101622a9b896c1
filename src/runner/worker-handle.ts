// What a runner adapter gives the pool (pool.ts): a way to spawn a worker (a Node runner process,
// node-process.ts; a worker in the browser's sandbox frame, browser/factory.ts) and the handle of
// one. The pool and its workers meet only here and at the protocol (workers/protocol.ts).
import type { HostToWorker, PyodideAssets } from "../../workers/protocol.ts";

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
  /** What a person does where these workers run when one cannot start (after its reason, in the
   *  runner_boot_failed message); without it the error table's sentence is shown. */
  bootFailureFix?: string;
}
