// One worker of the pool, from its spawn to its end: its boot (`ready`), the one job it runs, and
// its death, reported once. The pool (pool.ts) decides which runner a job gets.
import {
  parseWorkerToHost,
  type BootMessage,
  type CallJobMessage,
  type DiscoverJobMessage,
  type WorkerToHostParse,
} from "../../workers/protocol.ts";
import type { RunnerWorkerHandle } from "./worker-handle.ts";

export interface BootInfo {
  bootMs: number;
  fromSnapshot: boolean;
}

export type JobEnd =
  | { kind: "message"; msg: unknown }
  | { kind: "timeout" }
  | { kind: "crashed"; reason: string }
  | { kind: "aborted" }
  | { kind: "boot_failed"; reason: string };

/** A boot that ended because the worker's environment died (see RunnerWorkerHandle.onExit). */
export class EnvironmentLost extends Error {}

/** A worker from spawn to terminate. */
export class Runner {
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

/** Why a message was not the one awaited: a `fatal`'s reason, else a protocol violation. */
export function unexpected(parsed: WorkerToHostParse): string {
  if (parsed.ok && parsed.message.type === "fatal") return parsed.message.message;
  return parsed.ok ? "unexpected message" : `unexpected message (${parsed.reason})`;
}
