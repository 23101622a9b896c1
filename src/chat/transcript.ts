// The transcript of a chat: one pure model of what the person sees, shared by the playground, the
// <edge-chat> widget and the interactive CLI. `reduce(entries, event)` folds the session's events
// (the prompt, the streamed tokens, ChatEvent, the run's end or a thrown failure) into entries; the
// front doors only render them. `callStart` is the one rule for "this streamed text is a tool call,
// not prose", so no front door shows a call's JSON as an answer while it streams.
import type { ErrorCode, ErrorJson } from "../contract/errors.ts";
import type { JsonObject } from "../contract/types.ts";
import type { CallReceipt } from "../receipts/types.ts";
import type { ChatEvent, ChatRun } from "./types.ts";

/** What the transcript needs of a finished run (the widget's run carries its own pending action). */
export type TranscriptRun = Pick<ChatRun, "outcome" | "answer" | "result" | "error" | "receipt"> & {
  pending_action?: object;
};

/** Streamed text so far: a tool call's start ("{", a ``` fence), prose, or too short to tell. */
export type CallStart = "undecided" | "call" | "prose";

/** A generation's streamed text: streaming, done (what it becomes is not known yet), refused (a
 *  repair turn followed) or failed (the run ended with it unanswered). Calls and answers replace it. */
export interface ModelEntry {
  kind: "model";
  text: string;
  state: "streaming" | "done" | "refused" | "failed";
  start: CallStart;
  /** The content of the generation's leading think block (never streamed), when it had one. */
  reasoning?: string;
}

export interface ToolEntry {
  kind: "tool";
  call_id: string;
  tool_name: string;
  arguments: JsonObject;
  /** Set once the call ended. */
  receipt?: CallReceipt;
  /** The call returned a result (it may be any JSON value). */
  hasResult: boolean;
  result?: unknown;
  error?: ErrorJson;
  stderr?: string;
}

export type TranscriptEntry<R extends TranscriptRun = ChatRun> =
  | { kind: "prompt"; text: string }
  | ModelEntry
  | ToolEntry
  | { kind: "repair"; code: ErrorCode; message: string }
  /** `stream`: the call start of the streamed text the answer replaced; null when none streamed. */
  | { kind: "answer"; text: string; stream: CallStart | null; run: R }
  | { kind: "direct"; tool_name: string; result: unknown; run: R }
  | { kind: "pending"; action: NonNullable<R["pending_action"]>; run: R }
  /** The run failed closed (`run` set) or could not run at all (a thrown error). */
  | { kind: "failure"; error: ErrorJson | undefined; run?: R };

export type TranscriptEvent<R extends TranscriptRun = ChatRun> =
  | { type: "prompt"; text: string }
  | { type: "token"; delta: string }
  | ChatEvent
  | { type: "run"; run: R }
  | { type: "failure"; error: ErrorJson };

const FENCE = "```";

/** The one call-start rule: after leading whitespace, "{" or a ``` fence is a call's start. */
export function callStart(text: string): CallStart {
  const t = text.trimStart();
  if (t === "") return "undecided";
  if (t.startsWith("{") || t.startsWith(FENCE)) return "call";
  return FENCE.startsWith(t) ? "undecided" : "prose";
}

/** Entries of the front door's own (write cards, notices) may share the list: their kinds must
 *  differ from the transcript's. */
type Own = { kind: string };
type List<R extends TranscriptRun, X extends Own> = readonly (TranscriptEntry<R> | X)[];

const isModel = (e: Own): e is ModelEntry => e.kind === "model";
const isTool = (e: Own): e is ToolEntry => e.kind === "tool";

/** The current run's generation that nothing has replaced yet, or -1. */
function openModel<R extends TranscriptRun, X extends Own>(entries: List<R, X>): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind === "prompt") return -1;
    if (isModel(e)) return e.state === "streaming" || e.state === "done" ? i : -1;
  }
  return -1;
}

function at<T>(entries: readonly T[], index: number, entry: T): T[] {
  const next = [...entries];
  next[index] = entry;
  return next;
}

/** The open generation replaced by `entry`, or `entry` appended. */
function replaceOpen<R extends TranscriptRun, X extends Own>(
  entries: List<R, X>,
  entry: TranscriptEntry<R>,
): (TranscriptEntry<R> | X)[] {
  const i = openModel(entries);
  return i >= 0 ? at<TranscriptEntry<R> | X>(entries, i, entry) : [...entries, entry];
}

/** The open generation marked (refused, failed), then `entry` appended. */
function closeOpen<R extends TranscriptRun, X extends Own>(
  entries: List<R, X>,
  state: "refused" | "failed",
  entry: TranscriptEntry<R>,
): (TranscriptEntry<R> | X)[] {
  const i = openModel(entries);
  const e = entries[i];
  const marked = e && isModel(e) ? at<TranscriptEntry<R> | X>(entries, i, { ...e, state }) : entries;
  return [...marked, entry];
}

/** The entries after one event. Unchanged entries stay the same objects (renderers compare them). */
export function reduce<R extends TranscriptRun = ChatRun, X extends Own = never>(
  entries: List<R, X>,
  event: TranscriptEvent<R>,
): (TranscriptEntry<R> | X)[] {
  switch (event.type) {
    case "prompt":
      return [...entries, { kind: "prompt", text: event.text }];
    case "token": {
      const i = openModel(entries);
      const e = entries[i];
      if (e && isModel(e) && e.state === "streaming") {
        const text = e.text + event.delta;
        return at<TranscriptEntry<R> | X>(entries, i, { ...e, text, start: callStart(text) });
      }
      return [...entries, { kind: "model", text: event.delta, state: "streaming", start: callStart(event.delta) }];
    }
    case "model_output": {
      const i = openModel(entries);
      const e = entries[i];
      if (!e || !isModel(e) || e.state !== "streaming") return [...entries];
      return at<TranscriptEntry<R> | X>(entries, i, {
        ...e,
        state: "done",
        ...(event.reasoning !== undefined ? { reasoning: event.reasoning } : {}),
      });
    }
    case "tool_call":
      return replaceOpen(entries, {
        kind: "tool",
        call_id: event.call_id,
        tool_name: event.tool_name,
        arguments: event.arguments,
        hasResult: false,
      });
    case "tool_result": {
      const i = entries.findLastIndex((e) => isTool(e) && e.call_id === event.call.call_id);
      const e = entries[i];
      if (!e || !isTool(e)) return [...entries];
      const { type: _type, call, ...rest } = event;
      return at<TranscriptEntry<R> | X>(entries, i, { ...e, receipt: call, hasResult: "result" in event, ...rest });
    }
    case "repair":
      return closeOpen(entries, "refused", { kind: "repair", code: event.code, message: event.message });
    case "failure":
      return closeOpen(entries, "failed", { kind: "failure", error: event.error });
    case "run":
      return ended(entries, event.run);
  }
}

function ended<R extends TranscriptRun, X extends Own>(entries: List<R, X>, run: R): (TranscriptEntry<R> | X)[] {
  if (run.outcome === "answered") {
    const e = entries[openModel(entries)];
    return replaceOpen(entries, {
      kind: "answer",
      text: run.answer ?? "",
      stream: e && isModel(e) ? e.start : null,
      run,
    });
  }
  if (run.outcome === "return_direct") {
    return [
      ...entries,
      {
        kind: "direct",
        tool_name: run.receipt.calls[run.receipt.calls.length - 1]?.tool_name ?? "",
        result: run.result,
        run,
      },
    ];
  }
  const action: R["pending_action"] = run.pending_action;
  if (run.outcome === "pending_confirmation" && action) return [...entries, { kind: "pending", action, run }];
  return closeOpen(entries, "failed", { kind: "failure", error: run.error, run });
}

/** Indices whose entry differs between two lists of one transcript (new entries included). */
export function changedEntries<T>(before: readonly T[], after: readonly T[]): number[] {
  const changed: number[] = [];
  for (let i = 0; i < after.length; i++) if (before[i] !== after[i]) changed.push(i);
  return changed;
}
