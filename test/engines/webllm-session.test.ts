// The tool loop on the web-llm engine (WebLLMEngine over web-llm's worker handler with the fake
// MLCEngine): what the first real GPU session would have hit — Qwen3's think block, the context
// window, truncation, per-model sampling, KV-cache reuse across turns, engine numbers — and learn's
// evaluation asking exactly as chat asks.
import { describe, expect, it } from "vitest";
import type { ChatCompletionRequest } from "@mlc-ai/web-llm";
import { createChatSession } from "../../src/chat/session.ts";
import { createToolRuntime, defineTool } from "../../src/runtime/index.ts";
import { evaluateImprint } from "../../src/imprint/evaluate.ts";
import { QWEN25, QWEN3, webllmSubject } from "./webllm-adapter.ts";
import { draftTool } from "../fixtures/loop-tools.ts";
import type { FakeScript } from "./webllm-fake.ts";

const call = (name: string, args: object) => JSON.stringify({ tool_name: name, arguments: args });

/** ~size bytes of realistic JSON rows. */
function rows(size: number): { rows: { id: number; name: string; note: string }[] } {
  const out: { id: number; name: string; note: string }[] = [];
  for (let i = 0; JSON.stringify(out).length < size; i++)
    out.push({ id: i, name: `item ${i}`, note: `row ${i} of the report, status ok, value ${(i * 37) % 1000}` });
  return { rows: out };
}

function runtime() {
  const rt = createToolRuntime();
  rt.register(
    defineTool({
      name: "report",
      description: "Rows of the report.",
      parameters: {
        type: "object",
        properties: { kb: { type: "integer" } },
        required: ["kb"],
        additionalProperties: false,
      },
      execute: (args: { kb: number }) => rows(args.kb * 1000),
    }),
  );
  rt.register(draftTool());
  return rt;
}

async function session(script: FakeScript, modelId = QWEN25, extra: Parameters<typeof webllmSubject>[1] = {}) {
  const subject = await webllmSubject(script, { ...extra, engine: { modelId, ...extra.engine } });
  const s = await createChatSession({ engine: subject.engine, runtime: runtime() });
  return { s, ...subject };
}

describe("the loop on web-llm", () => {
  it("Qwen3: a call behind web-llm's think block runs; the answer is shown without it; the next turn reuses the KV cache", async () => {
    const { s, fake } = await session([call("report", { kb: 1 }), "There are 12 rows.", "You are welcome."], QWEN3);
    const streamed: string[] = [];
    const run = await s.chat("How many rows?", { onToken: (d) => streamed.push(d) });
    expect(run).toMatchObject({ ok: true, outcome: "answered", answer: "There are 12 rows." });
    expect(run.receipt.calls[0]).toMatchObject({ tool_name: "report", status: "ok" });
    expect(streamed.join("")).not.toContain("<think>");
    await s.chat("Thanks");
    // Turn 2 extends turn 1 byte for byte (raw replies kept), so web-llm prefills only the new part.
    const [first, afterCall, second] = fake.engine.prefills;
    expect(second!).toBeLessThan(first! / 2);
    expect(afterCall!).toBeGreaterThan(0);
  });

  it("return_direct: the next prompt extends what the model was given, so the KV cache is reused", async () => {
    const { s, fake } = await session([call("draft", { x: "hi" }), "Next."]);
    expect((await s.chat("draft it")).outcome).toBe("return_direct");
    await s.chat("and then?");
    expect(fake.engine.prefills[1]!).toBeLessThan(fake.engine.prefills[0]! / 2);
  });

  it("an answer cut off at max_tokens is marked truncated in the run and the receipt", async () => {
    const subject = await webllmSubject([Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ")]);
    const s = await createChatSession({ engine: subject.engine, runtime: runtime(), maxTokens: 12 });
    const run = await s.chat("Write a lot.");
    expect(run).toMatchObject({ ok: true, outcome: "answered", truncated: true, finish_reason: "length" });
    expect(run.receipt).toMatchObject({ finish_reason: "length", outcome: "answered" });
    expect(subject.fake.engine.requests[0]!.max_tokens).toBe(12);
  });

  it("a call cut off at max_tokens is not repaired or run: invalid_tool_call, nothing executed", async () => {
    const subject = await webllmSubject([call("report", { kb: 1 })]);
    const s = await createChatSession({ engine: subject.engine, runtime: runtime(), maxTokens: 5 });
    const run = await s.chat("rows?");
    expect(run).toMatchObject({
      outcome: "failed_closed",
      error: { code: "invalid_tool_call" },
      finish_reason: "length",
    });
    expect(run.error!.message).toMatch(/cut off at its token limit/);
    expect(run.receipt.calls).toEqual([]);
  });

  it("engine_stats (time to first token, tokens/s) go into the run and the receipt", async () => {
    const { s } = await session([call("report", { kb: 1 }), "Twelve rows."], QWEN25, { fake: { tokenDelayMs: 1 } });
    const run = await s.chat("rows?");
    expect(run.engine_stats).toMatchObject({
      generations: 2,
      time_to_first_token_ms: expect.any(Number),
      decode_tokens_per_s: expect.any(Number),
    });
    expect(run.engine_stats!.decode_tokens_per_s!).toBeGreaterThan(0);
    expect(run.engine_stats!.prompt_tokens_evaluated!).toBeGreaterThan(0);
    expect(run.receipt.engine_stats).toEqual(run.engine_stats);
    expect(run.receipt.context).toMatchObject({
      window: 4096,
      max_tokens: 1024,
      counted_by: "engine",
      turns_dropped: 0,
    });
  });

  it("tool turns sample per model and are guided; a session without tools is neither", async () => {
    for (const [modelId, temperature] of [
      [QWEN25, 0],
      [QWEN3, 0.3],
    ] as const) {
      const { s, fake } = await session(["Hello."], modelId);
      await s.chat("hi");
      expect(fake.engine.requests[0]).toMatchObject({ temperature, response_format: { type: "structural_tag" } });
    }
    const bare = await webllmSubject(["Hello."]);
    await (await createChatSession({ engine: bare.engine })).chat("hi");
    expect(bare.fake.engine.requests[0]!.temperature).toBeUndefined();
    expect(bare.fake.engine.requests[0]!.response_format).toBeUndefined();
  });

  it("learn's evaluation asks with the same sampling, format and max_tokens as live chat", async () => {
    const chatRun = await session(["fine"], QWEN3);
    await chatRun.s.chat("hi");
    const evalRun = await webllmSubject([call("report", { kb: 1 }), call("report", { kb: 1 })], {
      engine: { modelId: QWEN3 },
    });
    const schemas = runtime().schemas();
    const result = await evaluateImprint({
      engine: evalRun.engine,
      prefix: "PREFIX",
      schemas,
      questions: [{ question: "rows?", expected_tool: "report" }],
      prefill: false,
    });
    const pick = (r: ChatCompletionRequest) => ({
      temperature: r.temperature,
      response_format: r.response_format,
      max_tokens: r.max_tokens,
      extra_body: r.extra_body,
    });
    const live = pick(chatRun.fake.engine.requests[0]!);
    for (const r of evalRun.fake.engine.requests) expect(pick(r)).toEqual(live);
    // The think block web-llm adds to each reply (Qwen3) does not cost the evaluation its match.
    expect(result).toMatchObject({ matched_without_prefix: 1, matched_with_prefix: 1 });
  });

  it("12 turns with ~20 KB tool results all complete: whole old turns are dropped to fit, counted with the model's tokenizer", async () => {
    const script: FakeScript = (messages) =>
      messages.at(-1)!.content.startsWith("Result of report") ? "Here is the summary." : call("report", { kb: 20 });
    const { s, fake } = await session(script, QWEN25, { engine: { chatOptions: { context_window_size: 16384 } } });
    for (let i = 0; i < 12; i++) {
      const run = await s.chat(`Report ${i}, please.`);
      expect(run.outcome, run.error?.message).toBe("answered");
      expect(run.receipt.context).toMatchObject({ window: 16384, counted_by: "engine" });
      if (i >= 2) expect(run.receipt.context!.turns_dropped).toBeGreaterThan(0);
    }
    expect(Math.max(...fake.engine.prefills)).toBeLessThanOrEqual(16384 - 1024);
  });
});
