// The tool-turn policy through the real loop: which response format and temperature each model
// turn of a prompt gets, per tool choice and engine.
import { describe, expect, it } from "vitest";
import { createChatSession } from "../chat/session.ts";
import { createToolRuntime, defineTool } from "../runtime/index.ts";
import type { EngineInfo } from "./engine.ts";
import { toolCallOrTextResponseFormat, toolCallResponseFormat } from "./grammar.ts";
import { ScriptedEngine } from "./scripted.ts";
import type { ToolChoice } from "./tool-turn.ts";

const params = { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false };

/** Replays its outputs but presents itself as a generating engine (the policy keys on info()). */
class GeneratingStandIn extends ScriptedEngine {
  override info(): EngineInfo {
    return { ...super.info(), kind: "llamacpp", modelId: "qwen3-0.6b-instruct-q4_k_m" };
  }
}

async function turnsSeen(choice: ToolChoice | undefined, engine: ScriptedEngine = new GeneratingStandIn([JSON.stringify({ tool_name: "lookup", arguments: { q: "x" } }), "Found it."])) {
  const runtime = createToolRuntime();
  runtime.register(defineTool({ name: "lookup", description: "Look something up.", parameters: params, execute: ({ q }) => ({ found: q }) }));
  await engine.load();
  const session = await createChatSession({ engine, runtime, ...(choice ? { toolChoice: choice } : {}) });
  const run = await session.chat("Look up x.");
  expect(run.outcome).toBe("answered");
  return { formats: engine.calls.map((c) => c.responseFormat), temperatures: engine.calls.map((c) => c.temperature), schemas: runtime.schemas() };
}

describe("tool-turn policy", () => {
  it("required: the first model turn may only call a tool; after the result the model may answer", async () => {
    const { formats, schemas } = await turnsSeen("required");
    expect(formats).toEqual([toolCallResponseFormat(schemas), toolCallOrTextResponseFormat(schemas)]);
  });

  it("auto (the default): every turn a call or an answer, at the model family's temperature; none: no format", async () => {
    const auto = await turnsSeen(undefined);
    expect(auto.formats).toEqual([toolCallOrTextResponseFormat(auto.schemas), toolCallOrTextResponseFormat(auto.schemas)]);
    expect(auto.temperatures).toEqual([0.3, 0.3]); // Qwen3: a low temperature, not greedy
    expect((await turnsSeen("none")).formats).toEqual([undefined, undefined]);
  });

  it("the scripted demo replays its script: no format and no temperature, whatever the choice", async () => {
    const seen = await turnsSeen("required", new ScriptedEngine([JSON.stringify({ tool_name: "lookup", arguments: { q: "x" } }), "Found it."]));
    expect(seen.formats).toEqual([undefined, undefined]);
    expect(seen.temperatures).toEqual([undefined, undefined]);
  });
});
