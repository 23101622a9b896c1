// The transcript model over event sequences as the session emits them: an answer, a call then an
// answer, a repair, failures (run and thrown), pending, return_direct, reasoning, and the call-start
// rule on streamed deltas split at awkward points.
import { describe, expect, it } from "vitest";
import type { ErrorJson } from "../contract/errors.ts";
import type { CallReceipt, ReceiptBody } from "../receipts/types.ts";
import type { ChatRun } from "./types.ts";
import { callStart, changedEntries, reduce, type TranscriptEntry, type TranscriptEvent } from "./transcript.ts";

const receipt = (calls: CallReceipt[] = []): ReceiptBody => ({ id: "run_1", calls }) as ReceiptBody;
const callReceipt = (call_id: string, tool_name: string, status: CallReceipt["status"] = "ok"): CallReceipt =>
  ({ call_id, tool_name, status, duration_ms: 12 }) as CallReceipt;

function run(patch: Partial<ChatRun>): ChatRun {
  return { ok: true, outcome: "answered", run_id: "run_1", receipt: receipt(), ...patch };
}

const fold = (events: TranscriptEvent[], from: TranscriptEntry[] = []): TranscriptEntry[] =>
  events.reduce<TranscriptEntry[]>((entries, ev) => reduce(entries, ev), from);
const tokens = (...deltas: string[]): TranscriptEvent[] => deltas.map((delta) => ({ type: "token", delta }));
const output = (text: string, reasoning?: string): TranscriptEvent => ({
  type: "model_output",
  text,
  turn: 0,
  ...(reasoning !== undefined ? { reasoning } : {}),
});
const CALL = '{"tool_name": "add", "arguments": {"a": 2}}';

describe("callStart", () => {
  it("a call starts with { or a ``` fence after whitespace; prose is anything else; a prefix of the fence waits", () => {
    expect(["", "  \n", "`", " ``"].map(callStart)).toEqual(["undecided", "undecided", "undecided", "undecided"]);
    expect(["{", '\n {"tool', "```", "```json\n{"].map(callStart)).toEqual(["call", "call", "call", "call"]);
    expect(["The fee", "``x", "`code` is", "<tool_call>", "Sure: {"].map(callStart)).toEqual([
      "prose",
      "prose",
      "prose",
      "prose",
      "prose",
    ]);
  });
});

describe("reduce", () => {
  it("an answer: the prompt, the streamed text, then the answer in its place", () => {
    const streamed = fold([{ type: "prompt", text: "Hi?" }, ...tokens("Hel", "lo.")]);
    expect(streamed).toEqual([
      { kind: "prompt", text: "Hi?" },
      { kind: "model", text: "Hello.", state: "streaming", start: "prose" },
    ]);
    const done = fold([output("Hello.")], streamed);
    expect(done[1]).toEqual({ kind: "model", text: "Hello.", state: "done", start: "prose" });
    const r = run({ answer: "Hello." });
    expect(fold([{ type: "run", run: r }], done)).toEqual([
      { kind: "prompt", text: "Hi?" },
      { kind: "answer", text: "Hello.", stream: "prose", run: r },
    ]);
  });

  it("an answer that streamed nothing is appended; stream is null", () => {
    const r = run({ answer: "Yes." });
    expect(fold([{ type: "prompt", text: "Q" }, output("Yes."), { type: "run", run: r }])).toEqual([
      { kind: "prompt", text: "Q" },
      { kind: "answer", text: "Yes.", stream: null, run: r },
    ]);
  });

  it("a call then an answer: the call's streamed JSON becomes the tool card, its result fills it", () => {
    const call = callReceipt("call_1", "add");
    const r = run({ answer: "2.", receipt: receipt([call]) });
    const entries = fold([
      { type: "prompt", text: "Add" },
      ...tokens(CALL.slice(0, 5), CALL.slice(5)),
      output(CALL),
      { type: "tool_call", call_id: "call_1", tool_name: "add", arguments: { a: 2 } },
    ]);
    expect(entries[1]).toEqual({
      kind: "tool",
      call_id: "call_1",
      tool_name: "add",
      arguments: { a: 2 },
      hasResult: false,
    });
    const after = fold(
      [
        { type: "tool_result", call, result: 2, stderr: "warn" },
        ...tokens("2", "."),
        output("2."),
        { type: "run", run: r },
      ],
      entries,
    );
    expect(after).toEqual([
      { kind: "prompt", text: "Add" },
      {
        kind: "tool",
        call_id: "call_1",
        tool_name: "add",
        arguments: { a: 2 },
        receipt: call,
        hasResult: true,
        result: 2,
        stderr: "warn",
      },
      { kind: "answer", text: "2.", stream: "prose", run: r },
    ]);
  });

  it("a failed call keeps its error and has no result; a result of null is a result", () => {
    const bad = callReceipt("c1", "add", "failed_closed");
    const error: ErrorJson = { code: "tool_raised", message: "boom" };
    const failed = fold([
      { type: "tool_call", call_id: "c1", tool_name: "add", arguments: {} },
      { type: "tool_result", call: bad, error },
    ]);
    expect(failed).toEqual([
      { kind: "tool", call_id: "c1", tool_name: "add", arguments: {}, receipt: bad, hasResult: false, error },
    ]);
    const nulled = fold([
      { type: "tool_call", call_id: "c2", tool_name: "add", arguments: {} },
      { type: "tool_result", call: callReceipt("c2", "add"), result: null },
    ]);
    expect(nulled[0]).toMatchObject({ hasResult: true, result: null });
    // A result for a call the transcript never saw changes nothing.
    expect(fold([{ type: "tool_result", call: bad }], failed)).toEqual(failed);
  });

  it("a repair: the refused generation stays (refused), the repair follows, then the corrected call", () => {
    const entries = fold([
      { type: "prompt", text: "Go" },
      ...tokens('{"tool_name": "nope"', ', "arguments": {}}'),
      output('{"tool_name": "nope", "arguments": {}}'),
      { type: "repair", code: "unknown_tool", message: "No tool named nope." },
      ...tokens("{", '"tool_name": "add", "arguments": {}}'),
      output(CALL),
      { type: "tool_call", call_id: "c1", tool_name: "add", arguments: {} },
    ]);
    expect(entries.map((e) => (e.kind === "model" ? `model:${e.state}:${e.start}` : e.kind))).toEqual([
      "prompt",
      "model:refused:call",
      "repair",
      "tool",
    ]);
    expect(entries[2]).toEqual({ kind: "repair", code: "unknown_tool", message: "No tool named nope." });
  });

  it("a run that fails closed marks the open generation failed and adds the failure with its run", () => {
    const error: ErrorJson = { code: "tool_call_limit_exceeded", message: "too many" };
    const r = run({ ok: false, outcome: "failed_closed", error });
    const entries = fold([{ type: "prompt", text: "Go" }, ...tokens("{"), output("{"), { type: "run", run: r }]);
    expect(entries).toEqual([
      { kind: "prompt", text: "Go" },
      { kind: "model", text: "{", state: "failed", start: "call" },
      { kind: "failure", error, run: r },
    ]);
  });

  it("a stop mid-stream and a thrown failure: the streaming generation is failed, the error follows", () => {
    const aborted = run({ ok: false, outcome: "failed_closed", error: { code: "aborted", message: "stopped" } });
    const stopped = fold([{ type: "prompt", text: "Go" }, ...tokens("Part"), { type: "run", run: aborted }]);
    expect(stopped.slice(1)).toEqual([
      { kind: "model", text: "Part", state: "failed", start: "prose" },
      { kind: "failure", error: aborted.error, run: aborted },
    ]);
    const thrown: ErrorJson = { code: "storage_failed", message: "no space" };
    expect(
      fold([{ type: "prompt", text: "Go" }, ...tokens("Par"), { type: "failure", error: thrown }]).slice(1),
    ).toEqual([
      { kind: "model", text: "Par", state: "failed", start: "prose" },
      { kind: "failure", error: thrown },
    ]);
    // Before anything streamed (e.g. the model could not load): just the failure.
    expect(
      fold([
        { type: "prompt", text: "Go" },
        { type: "failure", error: thrown },
      ]),
    ).toEqual([
      { kind: "prompt", text: "Go" },
      { kind: "failure", error: thrown },
    ]);
  });

  it("pending: the commit call's card, then the pending action with its run; without an action it is a failure", () => {
    const call = callReceipt("c1", "send", "pending_confirmation");
    const error: ErrorJson = { code: "tool_confirmation_required", message: "confirm first" };
    const action = { id: "pa_1", expires_at: "2026-01-01T00:00:00Z", confirmation_token: "t" };
    const r = run({
      ok: false,
      outcome: "pending_confirmation",
      error,
      pending_action: action,
      receipt: receipt([call]),
    });
    const entries = fold([
      { type: "tool_call", call_id: "c1", tool_name: "send", arguments: {} },
      { type: "tool_result", call, error },
      { type: "run", run: r },
    ]);
    expect(entries.map((e) => e.kind)).toEqual(["tool", "pending"]);
    expect(entries[1]).toEqual({ kind: "pending", action, run: r });
    const denied = run({ ok: false, outcome: "pending_confirmation", error });
    expect(fold([{ type: "run", run: denied }])).toEqual([{ kind: "failure", error, run: denied }]);
  });

  it("return_direct: the tool's result, named by the run's last call", () => {
    const r = run({
      outcome: "return_direct",
      result: { sent: "hi" },
      answer: '{"sent":"hi"}',
      receipt: receipt([callReceipt("c1", "send_note")]),
    });
    const entries = fold([
      { type: "tool_call", call_id: "c1", tool_name: "send_note", arguments: {} },
      { type: "run", run: r },
    ]);
    expect(entries[1]).toEqual({ kind: "direct", tool_name: "send_note", result: { sent: "hi" }, run: r });
  });

  it("reasoning: a generation's think block is kept on its entry (it never streamed)", () => {
    const entries = fold([...tokens("Yes."), output("Yes.", "the user asks")]);
    expect(entries).toEqual([
      { kind: "model", text: "Yes.", state: "done", start: "prose", reasoning: "the user asks" },
    ]);
  });

  it("call-start detection on deltas split at awkward points", () => {
    const startsAfter = (deltas: string[]): string[] => {
      let entries: TranscriptEntry[] = [];
      return deltas.map((delta) => {
        entries = reduce(entries, { type: "token", delta });
        const e = entries[0]!;
        return e.kind === "model" ? e.start : e.kind;
      });
    };
    expect(startsAfter(["\n", " ", "{", '"tool_name"'])).toEqual(["undecided", "undecided", "call", "call"]);
    expect(startsAfter(["`", "`", "`json\n", "{}"])).toEqual(["undecided", "undecided", "call", "call"]);
    expect(startsAfter(["`", "`x", "{"])).toEqual(["undecided", "prose", "prose"]);
    expect(startsAfter(["  ", "The", " {x}"])).toEqual(["undecided", "prose", "prose"]);
  });

  it("each run closes its own generations: a new prompt's tokens never join an earlier run's text", () => {
    const r = run({ ok: false, outcome: "failed_closed", error: { code: "aborted", message: "x" } });
    const entries = fold([
      { type: "prompt", text: "a" },
      ...tokens("one"),
      { type: "run", run: r },
      { type: "prompt", text: "b" },
      ...tokens("two"),
    ]);
    expect(entries.filter((e) => e.kind === "model").map((e) => e.kind === "model" && [e.text, e.state])).toEqual([
      ["one", "failed"],
      ["two", "streaming"],
    ]);
  });

  it("entries of the front door's own kinds pass through untouched, and the changed indices are reported", () => {
    type Card = { kind: "write"; id: number };
    const card: Card = { kind: "write", id: 1 };
    const before = reduce<ChatRun, Card>(
      [{ kind: "tool", call_id: "c1", tool_name: "w", arguments: {}, hasResult: false }, card],
      { type: "token", delta: "Done" },
    );
    expect(before[1]).toBe(card);
    const after = reduce<ChatRun, Card>(before, { type: "tool_result", call: callReceipt("c1", "w") });
    expect(after[1]).toBe(card);
    expect(changedEntries(before, after)).toEqual([0]);
    expect(changedEntries(after, reduce<ChatRun, Card>(after, { type: "token", delta: "!" }))).toEqual([2]);
  });
});
