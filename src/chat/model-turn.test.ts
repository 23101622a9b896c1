// The checked turn on its own (the loop's use of it: src/engines/tool-turn.test.ts).
import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import type { JsonObject, ToolSchema } from "../contract/types.ts";
import type { ChatRequest, ChatResult, ChoiceRequest, ChoiceScores, EngineInfo } from "../engines/engine.ts";
import { checkResponseFormat, textAnswerResponseFormat, toolCallResponseFormat } from "../engines/grammar.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import type { CheckCalibration } from "./check-calibration.ts";
import { checkedTurn, checksCalls } from "./model-turn.ts";

const SCHEMAS: ToolSchema[] = [
  {
    name: "note",
    description: "Save a note.",
    parameters: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    execution_level: "read",
    return_direct: false,
    output_schema: null,
  },
];

/** A llama.cpp stand-in whose scripted outputs marked "…" stop at the token limit, as a runaway string argument does. */
class Cutting extends ScriptedEngine {
  override info(): EngineInfo {
    return { ...super.info(), kind: "llamacpp" };
  }
  override async chat(request: ChatRequest): Promise<ChatResult> {
    const r = await super.chat(request);
    return r.text.endsWith("…") ? { ...r, finishReason: "length" } : r;
  }
}

describe("a checked turn", () => {
  it("is what llama.cpp engines run; web-llm and the scripted demo keep one generation", async () => {
    expect(checksCalls(new Cutting([]))).toBe(true);
    expect(checksCalls(new ScriptedEngine([]))).toBe(false);
  });

  it("declines a proposal cut off at the token limit, naming the tool it began, and streams only the answer", async () => {
    for (const [runaway, tool] of [
      ['{"tool_name": "note", "arguments": {"text": "1.0.0.0.0…', "note"],
      ['{"tool_…', ""],
    ] as const) {
      const engine = new Cutting([runaway, "I could not write that note."]);
      await engine.load();
      const streamed: string[] = [];
      const turn = await checkedTurn({
        engine,
        messages: [{ role: "user", content: "Note 1.0" }],
        prompt: "Note 1.0",
        schemas: SCHEMAS,
        kind: "checked",
        ranCalls: [],
        maxTokens: 16,
        onToken: (d) => streamed.push(d),
      });
      expect(turn).toMatchObject({
        answerOnly: true,
        check: { tool_name: tool, verdict: "cut_off" },
        result: { text: "I could not write that note." },
      });
      expect(engine.calls.map((c) => c.responseFormat)).toEqual([
        toolCallResponseFormat(SCHEMAS),
        textAnswerResponseFormat(),
      ]);
      expect(streamed.join("")).toBe("I could not write that note.");
      expect(turn.usages).toHaveLength(2);
      // The answer is asked for in so many words (the conversation itself is left as it was).
      expect(engine.calls[1]!.messages).toEqual([
        { role: "user", content: "Note 1.0" },
        { role: "user", content: "Answer me in plain sentences, without a tool." },
      ]);
    }
  });

  it("a verdict the engine did not hold to yes or no lets the call run; a required call is never checked", async () => {
    const call = JSON.stringify({ tool_name: "note", arguments: { text: "hi" } });
    const engine = new Cutting([call, "maybe", call]);
    await engine.load();
    const ask = {
      engine,
      messages: [{ role: "user" as const, content: "Note hi" }],
      prompt: "Note hi",
      schemas: SCHEMAS,
      ranCalls: [],
      maxTokens: 16,
    };
    expect(await checkedTurn({ ...ask, kind: "checked" })).toMatchObject({
      answerOnly: false,
      check: { verdict: "yes" },
      result: { text: call },
    });
    expect(engine.calls[1]).toMatchObject({ responseFormat: checkResponseFormat(), maxTokens: 2 });
    const required = await checkedTurn({ ...ask, kind: "call" });
    expect(required.check).toBeUndefined();
    expect(engine.calls).toHaveLength(3);
  });

  it("declines a repeat of a call that ran, its defaults aside, without asking; after a result, yes means the results answer", async () => {
    const withDefault = [
      {
        ...SCHEMAS[0]!,
        parameters: {
          ...SCHEMAS[0]!.parameters,
          properties: { text: { type: "string" }, tag: { type: "string", default: "home" } },
        },
      },
    ];
    const ran = [{ tool_name: "note", arguments: { text: "hi" } }];
    const ask = {
      messages: [{ role: "user" as const, content: "Note hi" }],
      prompt: "Note hi",
      schemas: withDefault,
      kind: "checked" as const,
      ranCalls: ran,
      maxTokens: 16,
    };
    const again = new Cutting([
      JSON.stringify({ tool_name: "note", arguments: { text: "hi", tag: "home" } }),
      "Noted.",
    ]);
    await again.load();
    expect(await checkedTurn({ ...ask, engine: again })).toMatchObject({
      answerOnly: true,
      check: { tool_name: "note", verdict: "repeat" },
      result: { text: "Noted." },
    });
    expect(again.calls[1]!.messages).toEqual([
      ...ask.messages,
      { role: "user", content: "Answer me in plain sentences, with what the results above say." },
    ]);
    const other = JSON.stringify({ tool_name: "note", arguments: { text: "bye" } });
    for (const [verdict, declined] of [
      ["yes", true],
      ["no", false],
    ] as const) {
      const engine = new Cutting([other, verdict, "Noted."]);
      await engine.load();
      const turn = await checkedTurn({ ...ask, engine });
      expect(turn.check).toEqual({ tool_name: "note", verdict: declined ? "no" : "yes" });
      expect(turn.answerOnly).toBe(declined);
      expect(engine.calls[1]!.messages.at(-1)!.content).toBe(
        'Check: do the results above already answer all of my request "Note hi"? Answer with one word, yes or no.',
      );
    }
  });

  it("before a result, asks whether the proposed tool, by its description's first sentence, matches the request", async () => {
    const schemas = [
      { ...SCHEMAS[0]!, description: "Save a note. Needs explicit confirmation before it runs." },
    ] as ToolSchema[];
    const engine = new Cutting([JSON.stringify({ tool_name: "note", arguments: { text: "hi" } }), "yes"]);
    await engine.load();
    await checkedTurn({
      engine,
      messages: [{ role: "user", content: "Note hi" }],
      prompt: "Note hi",
      schemas,
      kind: "checked",
      ranCalls: [],
      maxTokens: 16,
    });
    expect(engine.calls[1]!.messages.at(-1)!.content).toBe(
      'Check: does that call (note: Save a note.) match my request "Note hi"? Answer with one word, yes or no.',
    );
  });
});

/** A llama.cpp stand-in that can weigh answers: the log-odds of "yes" over "no" are `withRequest`
 *  when the check quotes a request and `empty` when it quotes "" (the baseline the check's score is
 *  measured against); the log-probability that a reply starts a call is `callStart`, seen down to `floor`. */
class Weighing extends Cutting {
  readonly weighed: ChoiceRequest[] = [];
  constructor(
    script: string[],
    private readonly odds: { withRequest?: number; empty?: number; callStart?: number; floor?: number } | "unspellable",
  ) {
    super(script);
  }
  scoreChoices = async (request: ChoiceRequest): Promise<ChoiceScores> => {
    this.weighed.push(request);
    if (this.odds === "unspellable") throw new EdgeError("response_format_unsupported", { reason: "choices" });
    const floor = this.odds.floor ?? -Infinity;
    if (request.choices[0]!.includes("{")) return { logProbs: [this.odds.callStart ?? -1], floor };
    const empty = request.messages.at(-1)!.content.includes('my request ""');
    return { logProbs: [(empty ? this.odds.empty : this.odds.withRequest) ?? 0, 0], floor };
  };
}

describe("a weighed check", () => {
  const CALL = JSON.stringify({ tool_name: "note", arguments: { text: "milk" } });
  const ask = (
    engine: ScriptedEngine,
    calibration?: CheckCalibration | "measure",
    ranCalls: { tool_name: string; arguments: JsonObject }[] = [],
  ) =>
    checkedTurn({
      engine,
      messages: [{ role: "user", content: "Note milk." }],
      prompt: "Note milk.",
      schemas: SCHEMAS,
      kind: "checked",
      ranCalls,
      maxTokens: 16,
      ...(calibration !== undefined ? { calibration } : {}),
    });
  const CHECK = { signal: "check", threshold: 0.3 } as const;
  const CALL_START = { signal: "call_start", threshold: -5 } as const;

  it("keeps the call when the request raises the odds of yes above the threshold, and declines it at or below, without generating a verdict", async () => {
    const kept = new Weighing([CALL], { withRequest: 1.5, empty: 1.0 });
    await kept.load();
    const turn = await ask(kept, CHECK);
    expect(turn.check).toEqual({ tool_name: "note", verdict: "yes", score: 0.5, threshold: 0.3 });
    expect(turn.result.text).toBe(CALL);
    // One generation (the proposal); the check is two weighings: the request, then the empty one.
    expect(kept.calls).toHaveLength(1);
    expect(kept.weighed.map((w) => w.choices[0]![0])).toEqual(["yes", "yes"]);
    expect(kept.weighed[0]!.messages.at(-1)!.content).toContain('my request "Note milk."');
    expect(kept.weighed[1]!.messages.at(-1)!.content).toContain('my request ""');

    const declined = new Weighing([CALL, "Noted nothing."], { withRequest: 1.2, empty: 1.0 });
    await declined.load();
    const answer = await ask(declined, CHECK);
    expect(answer).toMatchObject({ answerOnly: true, result: { text: "Noted nothing." } });
    expect(answer.check).toEqual({ tool_name: "note", verdict: "no", score: 0.2, threshold: 0.3 });
    expect(declined.calls[1]!.responseFormat).toEqual(textAnswerResponseFormat());
  });

  it("on a model whose signal is the call's start, answers without proposing when a call is unlikely enough, and proposes otherwise", async () => {
    const unlikely = new Weighing(["Hello! I take notes."], { callStart: -7.5 });
    await unlikely.load();
    const answer = await ask(unlikely, CALL_START);
    expect(answer).toMatchObject({ answerOnly: true, result: { text: "Hello! I take notes." } });
    expect(answer.check).toEqual({ tool_name: "", verdict: "no_call", score: -7.5, threshold: -5 });
    expect(unlikely.calls.map((c) => c.responseFormat)).toEqual([textAnswerResponseFormat()]);
    // The start of the reply it would write freely: the conversation as it is — and the answer
    // continues it as it is (no request line: the model was not about to write a call).
    expect(unlikely.weighed[0]!.messages).toEqual([{ role: "user", content: "Note milk." }]);
    expect(unlikely.calls[0]!.messages).toEqual([{ role: "user", content: "Note milk." }]);

    // Not seen among the engine's top tokens, whose least is still above the line: unknown, so it proposes.
    for (const odds of [{ callStart: -2 }, { callStart: -Infinity, floor: -4 }]) {
      const likely = new Weighing([CALL, "yes"], odds);
      await likely.load();
      const turn = await ask(likely, CALL_START);
      expect(turn).toMatchObject({ answerOnly: false, result: { text: CALL }, check: { verdict: "yes" } });
      expect(likely.calls[0]!.responseFormat).toEqual(toolCallResponseFormat(SCHEMAS));
    }
    // Not seen, below a floor at or under the line: a call is known to be unlikely enough, and the
    // receipt records that bound (a finite number: a receipt is canonical JSON, which has no -Infinity).
    const unseen = new Weighing(["Fine."], { callStart: -Infinity, floor: -6.12345 });
    await unseen.load();
    expect((await ask(unseen, CALL_START)).check).toEqual({
      tool_name: "",
      verdict: "no_call",
      score: -6.123,
      threshold: -5,
    });
  });

  it('"measure" weighs both signals, keeps the proposal and reports them', async () => {
    const engine = new Weighing([CALL], { withRequest: 2, empty: 0.5, callStart: -3 });
    await engine.load();
    const turn = await ask(engine, "measure");
    expect(turn).toMatchObject({ answerOnly: false, result: { text: CALL }, measured: { callStart: -3, check: 1.5 } });
    expect(engine.calls).toHaveLength(1);
  });

  it("is used only for a model with a calibration, before any result; otherwise, or when the engine cannot spell the answers, the verdict is generated", async () => {
    for (const [engine, calibration, ran] of [
      [new Weighing([CALL, "yes"], { withRequest: 9, empty: 0 }), undefined, []],
      [
        new Weighing([CALL, "no"], { withRequest: 9, empty: 0 }),
        CHECK,
        [{ tool_name: "note", arguments: { text: "eggs" } }],
      ],
      [new Weighing([CALL, "yes"], "unspellable"), CHECK, []],
      [new Weighing([CALL, "yes"], "unspellable"), CALL_START, []],
    ] as const) {
      await engine.load();
      const turn = await ask(engine, calibration, [...ran]);
      expect(turn.check).toEqual({ tool_name: "note", verdict: "yes" });
      expect(engine.calls[1]!.responseFormat).toEqual(checkResponseFormat());
    }
  });
});
