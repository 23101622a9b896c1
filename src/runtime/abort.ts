// AbortSignal helpers used by the pipeline and the timeout policy. Written against the web
// platform's AbortController only, so they run the same in browsers and Node.
import { EdgeError } from "../contract/errors.ts";
import { raceSignal } from "../contract/abort.ts";

/** A signal that aborts when any input does, with that input's reason. `release` detaches the
 *  listeners, so a long-lived session signal does not collect one listener per call. */
export function linkSignals(signals: readonly AbortSignal[]): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const cleanups: (() => void)[] = [];
  const release = (): void => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  };
  for (const signal of signals) {
    if (signal.aborted) {
      release();
      controller.abort(signal.reason);
      break;
    }
    const onAbort = (): void => {
      release();
      controller.abort(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    cleanups.push(() => signal.removeEventListener("abort", onAbort));
  }
  return { signal: controller.signal, release };
}

/** Thrown by raceAbort so the pipeline can tell "the signal fired" from "the body threw". */
export class SignalAborted extends Error {
  constructor(readonly reason: unknown) {
    super("signal aborted");
  }
}

/**
 * Settles with `work`, or rejects with SignalAborted as soon as `signal` aborts — even when the
 * work ignores the signal. An abandoned promise gets a no-op catch so it cannot surface later
 * as an unhandled rejection.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return raceSignal(work, signal, () => new SignalAborted(signal.reason));
}

/** A timeout is an abort whose reason says so: our EdgeError codes or the platform's TimeoutError. */
export function isTimeoutReason(reason: unknown): boolean {
  if (reason instanceof EdgeError) return reason.code === "tool_timeout" || reason.code === "runner_timeout";
  return typeof reason === "object" && reason !== null && (reason as { name?: unknown }).name === "TimeoutError";
}
