// How thrown values and decisions become the coded outcome of one call. Kept apart from the
// pipeline so the mapping (which code, which status) is readable in one place.
import { EdgeError, errorJson, type ErrorCode, type ErrorJson } from "../contract/errors.ts";
import { isTimeoutReason } from "./abort.ts";
import type { ExecutionStatus } from "./types.ts";

export interface Settled {
  status: ExecutionStatus;
  result?: unknown;
  content?: unknown;
  error?: ErrorJson;
}

export function settledError(
  status: ExecutionStatus,
  code: ErrorCode,
  tool: string,
  extra: Record<string, unknown> = {},
): Settled {
  return { status, error: errorJson(code, { tool, ...extra }) };
}

/** A thrown value as the table's error: an EdgeError keeps its code, anything else gets `fallback`. */
export function errorFrom(err: unknown, fallback: ErrorCode, tool: string): ErrorJson {
  if (err instanceof EdgeError) {
    const reason = err.details["reason"];
    return { ...err.toJSON(), tool, ...(reason !== undefined ? { reason } : {}) };
  }
  return errorJson(fallback, { tool, reason: err instanceof Error ? err.message : String(err) });
}

/** The outcome of a fired signal: a timeout if its reason says so, otherwise a cancellation. */
export function fromAbortReason(reason: unknown, tool: string): Settled {
  if (isTimeoutReason(reason)) {
    const code: ErrorCode = reason instanceof EdgeError ? reason.code : "tool_timeout";
    return {
      status: "timeout",
      error: errorFrom(reason instanceof EdgeError ? reason : new EdgeError(code), code, tool),
    };
  }
  return settledError("aborted", "aborted", tool);
}

/** What a body failure means: coded timeouts and cancellations keep their status, the rest failed. */
export function fromBodyError(err: unknown, tool: string): Settled {
  if (err instanceof EdgeError && isTimeoutReason(err))
    return { status: "timeout", error: errorFrom(err, err.code, tool) };
  if (err instanceof EdgeError && err.code === "aborted")
    return { status: "aborted", error: errorFrom(err, "aborted", tool) };
  return { status: "failed", error: errorFrom(err, "tool_raised", tool) };
}
