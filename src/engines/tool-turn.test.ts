// The tool-turn policy through the real loop: which response format and temperature each model
// turn of a prompt gets, per tool choice and engine.
import { describe, expect, it } from "vitest";
import { renderAnswerRequest, renderCallCheck } from "../chat/contract.ts";
import { createChatSession } from "../chat/session.ts";
import { createToolRuntime, defineTool } from "../runtime/index.ts";
import type { EngineInfo } from "./engine.ts";
import {
  checkResponseFormat,
  textAnswerResponseFormat,
  toolCallOrTextResponseFormat,
  toolCallResponseFormat,
} from "./grammar.ts";
import { ScriptedEngine } from "./scripted.ts";
import type { ToolChoice } from "./tool-turn.ts";

const params = { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false };

/** Replays its outputs but presents itself as a generating engine (the policy keys on info()): web-llm
 *  (one generation per turn) or llama.cpp (checked turns: src/chat/model-turn.ts). */
class GeneratingStandIn extends ScriptedEngine {
  constructor(
    script: string[],
    private readonly kind: "webllm" | "llamacpp" = "webllm",
  ) {
    super(script);
  }
  override info(): EngineInfo {
    return { ...super.info(), kind: this.kind, modelId: "qwen3-0.6b-instruct-q4_k_m" };
  }
}

const LOOKUP_X = JSON.stringify({ tool_name: "lookup", arguments: { q: "x" } });

/** A runtime with the one tool these tests call. */
function lookupRuntime() {
  const runtime = createToolRuntime();
  runtime.register(
    defineTool({
      name: "lookup",
      description: "Look something up.",
      parameters: params,
      execute: ({ q }) => ({ found: q }),
    }),
  );
  return runtime;
}

async function turnsSeen(
  choice: ToolChoice | undefined,
  engine: ScriptedEngine = new GeneratingStandIn([LOOKUP_X, "Found it."]),
) {
  const runtime = lookupRuntime();
  await engine.load();
  const session = await createChatSession({ engine, runtime, ...(choice ? { toolChoice: choice } : {}) });
  const run = await session.chat("Look up x.");
  expect(run.outcome).toBe("answered");
  return {
    run,
    messages: engine.calls.map((c) => c.messages),
    formats: engine.calls.map((c) => c.responseFormat),
    temperatures: engine.calls.map((c) => c.temperature),
    schemas: runtime.schemas(),
  };
}

describe("tool-turn policy", () => {
  it("required: the first model turn may only call a tool; after the result the model may answer", async () => {
    const { formats, schemas } = await turnsSeen("required");
    expect(formats).toEqual([toolCallResponseFormat(schemas), toolCallOrTextResponseFormat(schemas)]);
  });

  it("auto (the default): every turn a call or an answer, at the model family's temperature; none: no format", async () => {
    const auto = await turnsSeen(undefined);
    expect(auto.formats).toEqual([
      toolCallOrTextResponseFormat(auto.schemas),
      toolCallOrTextResponseFormat(auto.schemas),
    ]);
    expect(auto.temperatures).toEqual([0.3, 0.3]); // Qwen3: a low temperature, not greedy
    expect((await turnsSeen("none")).formats).toEqual([undefined, undefined]);
  });

  it("the scripted demo replays its script: no format and no temperature, whatever the choice", async () => {
    const seen = await turnsSeen("required", new ScriptedEngine([LOOKUP_X, "Found it."]));
    expect(seen.formats).toEqual([undefined, undefined]);
    expect(seen.temperatures).toEqual([undefined, undefined]);
  });

  it("llama.cpp: a turn proposes a call (a call only), checks it (yes or no) and runs it; the same call again is declined and the model answers", async () => {
    const seen = await turnsSeen("auto", new GeneratingStandIn([LOOKUP_X, "yes", LOOKUP_X, "Found it."], "llamacpp"));
    const { schemas } = seen;
    expect(seen.formats).toEqual([
      toolCallResponseFormat(schemas),
      checkResponseFormat(),
      toolCallResponseFormat(schemas),
      textAnswerResponseFormat(),
    ]);
    expect(seen.temperatures).toEqual([0.3, 0.3, 0.3, 0.3]);
    expect(seen.run).toMatchObject({
      answer: "Found it.",
      receipt: {
        call_checks: [
          { turn: 0, tool_name: "lookup", verdict: "yes" },
          { turn: 1, tool_name: "lookup", verdict: "repeat" },
        ],
      },
    });
    expect(seen.run.receipt.calls).toHaveLength(1);
  });

  it("llama.cpp: a call the model's check declines never runs, and the answer that follows is text whatever it holds", async () => {
    const declined = await turnsSeen(
      "auto",
      new GeneratingStandIn([LOOKUP_X, "no", `No tool for that; ${LOOKUP_X} would not help.`], "llamacpp"),
    );
    expect(declined.formats).toEqual([
      toolCallResponseFormat(declined.schemas),
      checkResponseFormat(),
      textAnswerResponseFormat(),
    ]);
    expect(declined.run).toMatchObject({
      answer: `No tool for that; ${LOOKUP_X} would not help.`,
      receipt: { calls: [], call_checks: [{ turn: 0, tool_name: "lookup", verdict: "no" }] },
    });
    // The check sees the proposal and the question about it; the answer is generated without them,
    // asked for in so many words.
    const [proposed, check, answer] = declined.messages;
    expect(check!.slice(0, -2)).toEqual(proposed);
    expect(check!.slice(-2)).toEqual([
      { role: "assistant", content: LOOKUP_X },
      { role: "user", content: renderCallCheck("Look up x.", false, declined.schemas[0]) },
    ]);
    expect(answer).toEqual([...proposed!, { role: "user", content: renderAnswerRequest(false) }]);
    const required = await turnsSeen("required", new GeneratingStandIn([LOOKUP_X, LOOKUP_X, "Found it."], "llamacpp"));
    expect(required.formats).toEqual([
      toolCallResponseFormat(required.schemas),
      toolCallResponseFormat(required.schemas),
      textAnswerResponseFormat(),
    ]);
    expect(required.run.receipt.call_checks).toEqual([{ turn: 1, tool_name: "lookup", verdict: "repeat" }]);
  });

  it("llama.cpp: the conversation keeps the line that asked for the answer, so the next prompt extends what the model saw", async () => {
    // Proposal, check, the call again (a repeat), the answer; then proposal, check "no", the answer.
    const script = [LOOKUP_X, "yes", LOOKUP_X, "Found it.", LOOKUP_X, "no", "Glad to help."];
    const engine = new GeneratingStandIn(script, "llamacpp");
    await engine.load();
    const session = await createChatSession({ engine, runtime: lookupRuntime() });
    expect((await session.chat("Look up x.")).answer).toBe("Found it.");
    expect((await session.chat("Thanks!")).answer).toBe("Glad to help.");
    const answered = engine.calls[3]!.messages;
    expect(answered.at(-1)).toEqual({ role: "user", content: renderAnswerRequest(true) });
    expect(engine.calls[4]!.messages).toEqual([
      ...answered,
      { role: "assistant", content: "Found it." },
      { role: "user", content: "Thanks!" },
    ]);
    expect(engine.calls[6]!.messages.at(-1)).toEqual({ role: "user", content: renderAnswerRequest(false) });
  });
});
