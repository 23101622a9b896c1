// The state of one run of the tool loop (one prompt): what the model was given and said, the
// calls, and how it ended. Failing sets the outcome and code once; the loop then stops.
import type { ErrorCode, ErrorJson } from "../contract/errors.ts";
import type { ChatMessage } from "../engines/engine.ts";
import type { JsonObject } from "../contract/types.ts";
import type { CallCheck, CallReceipt, RefusedCall, RunOutcome } from "../receipts/types.ts";
import type { PendingTicket } from "./types.ts";

export interface RunState {
  readonly id: string;
  readonly prompt: string;
  /** This run's messages so far: the prompt, then each call and its result, each repair turn. */
  readonly current: ChatMessage[];
  readonly calls: CallReceipt[];
  /** Calls the checks refused (unknown tool, invalid arguments, malformed): none of them ran. */
  readonly refused: RefusedCall[];
  /** The calls that ran, by name and arguments (a checked turn declines an identical repeat). */
  readonly ran: { tool_name: string; arguments: JsonObject }[];
  /** How each proposed call was judged before it could run (src/chat/model-turn.ts). */
  readonly checks: CallCheck[];
  outcome: RunOutcome;
  code: ErrorCode | null;
  answer?: string;
  result?: unknown;
  error?: ErrorJson;
  /** A pending action created by the confirmation flow (ends the run pending_confirmation). */
  pending?: PendingTicket;
  repaired: boolean;
  /** The last generation's raw text (think block included), as the engine's cache holds it. */
  lastRaw: string;
  finishReason?: "stop" | "length";
  /** End the run with this error; returns true (the loop stops). */
  fail(e: ErrorJson): true;
}

export function newRun(id: string, prompt: string): RunState {
  const run: RunState = {
    id,
    prompt,
    current: [{ role: "user", content: prompt }],
    calls: [],
    refused: [],
    ran: [],
    checks: [],
    outcome: "failed_closed",
    code: null,
    repaired: false,
    lastRaw: "",
    fail(e) {
      run.outcome = e.code === "tool_confirmation_required" ? "pending_confirmation" : "failed_closed";
      run.code = e.code;
      run.error = e;
      return true;
    },
  };
  return run;
}
