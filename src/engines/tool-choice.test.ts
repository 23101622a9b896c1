// Tool choice: which response format each model turn of a prompt gets, through the real loop.
import { describe, expect, it } from "vitest";
import { createChatSession } from "../chat/session.ts";
import { createToolRuntime, defineTool } from "../runtime/index.ts";
import { toolCallOrTextResponseFormat, toolCallResponseFormat } from "./grammar.ts";
import { ScriptedEngine } from "./scripted.ts";
import { toolChoiceFormat } from "./tool-choice.ts";

const params = { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false };

async function formatsSeen(choice: "auto" | "required" | "none") {
  const runtime = createToolRuntime();
  runtime.register(defineTool({ name: "lookup", description: "Look something up.", parameters: params, execute: ({ q }) => ({ found: q }) }));
  const engine = new ScriptedEngine([JSON.stringify({ tool_name: "lookup", arguments: { q: "x" } }), "Found it."]);
  await engine.load();
  const format = toolChoiceFormat(choice);
  const session = await createChatSession({ engine, runtime, ...(format ? { responseFormat: format } : {}) });
  const run = await session.chat("Look up x.");
  expect(run.outcome).toBe("answered");
  return { formats: engine.calls.map((c) => c.responseFormat), schemas: runtime.schemas() };
}

describe("tool choice", () => {
  it("required: the first model turn may only call a tool; after the result the model may answer", async () => {
    const { formats, schemas } = await formatsSeen("required");
    expect(formats).toEqual([toolCallResponseFormat(schemas), toolCallOrTextResponseFormat(schemas)]);
  });

  it("auto: every turn a call or an answer; none: no format at all", async () => {
    const auto = await formatsSeen("auto");
    expect(auto.formats).toEqual([toolCallOrTextResponseFormat(auto.schemas), toolCallOrTextResponseFormat(auto.schemas)]);
    expect((await formatsSeen("none")).formats).toEqual([undefined, undefined]);
  });
});
