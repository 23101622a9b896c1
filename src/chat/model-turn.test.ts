// The checked turn on its own (the loop's use of it: src/engines/tool-turn.test.ts).
import { describe, expect, it } from "vitest";
import type { ToolSchema } from "../contract/types.ts";
import type { ChatRequest, ChatResult, EngineInfo } from "../engines/engine.ts";
import { checkResponseFormat, textAnswerResponseFormat, toolCallResponseFormat } from "../engines/grammar.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
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
