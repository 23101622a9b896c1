// The loop's handling of engine quirks and limits, with the scripted engine (fast; the same
// behaviours through the real web-llm adapter are in test/engines/webllm-session.test.ts):
// leading think blocks, the context window (whole turns dropped, the contract kept, an oversized
// turn refused before the model is asked), max_tokens on every generation, and a return_direct
// run's history.
import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import type { ChatMessage, ChatRequest, ChatResult, EngineInfo } from "../engines/engine.ts";
import { ScriptedEngine, type Script } from "../engines/scripted.ts";
import { createToolRuntime, defineTool } from "../runtime/index.ts";
import { draftTool } from "../../test/fixtures/loop-tools.ts";
import { estimateTokens } from "./context.ts";
import { createChatSession } from "./session.ts";

const call = (name: string, args: object) => JSON.stringify({ tool_name: name, arguments: args });

function runtime() {
  const rt = createToolRuntime();
  rt.register(
    defineTool({
      name: "blob",
      description: "Return a text of the given size.",
      parameters: {
        type: "object",
        properties: { size: { type: "integer" } },
        required: ["size"],
        additionalProperties: false,
      },
      execute: (args: { size: number }) => ({ text: "x".repeat(args.size) }),
    }),
  );
  rt.register(draftTool());
  return rt;
}

async function session(script: Script, engineOptions: { contextWindow?: number } = {}, maxTokens?: number) {
  const engine = new ScriptedEngine(script, engineOptions);
  await engine.load();
  const s = await createChatSession({ engine, runtime: runtime(), ...(maxTokens ? { maxTokens } : {}) });
  return { s, engine };
}

describe("think blocks", () => {
  it("a call behind Qwen3's empty think block runs; the think text is never streamed; history keeps the raw reply", async () => {
    const think = "<think>\n\n</think>\n\n";
    const { s, engine } = await session([think + call("blob", { size: 3 }), `${think}It is xxx.`, `${think}Again.`]);
    const streamed: string[] = [];
    const outputs: string[] = [];
    const run = await s.chat("blob please", {
      onToken: (d) => streamed.push(d),
      onEvent: (e) => e.type === "model_output" && outputs.push(e.text),
    });
    expect(run).toMatchObject({ ok: true, outcome: "answered", answer: "It is xxx." });
    expect(run.receipt.calls[0]).toMatchObject({ tool_name: "blob", status: "ok" });
    expect(streamed.join("")).not.toContain("<think>");
    expect(streamed.join("")).toContain("It is xxx.");
    expect(outputs).toEqual([call("blob", { size: 3 }), "It is xxx."]);
    await s.chat("again");
    // The next prompt extends the previous one byte for byte: the raw replies, think blocks and all.
    const next = engine.calls[2]!.messages;
    expect(next.slice(0, -1)).toEqual([
      ...engine.calls[1]!.messages,
      { role: "assistant", content: `${think}It is xxx.` },
    ]);
  });

  it("a non-empty reasoning block is stripped before parsing and reported in the event", async () => {
    const { s } = await session([`<think>The user wants a blob.</think>\n${call("blob", { size: 1 })}`, "Done."]);
    const reasoning: (string | undefined)[] = [];
    const run = await s.chat("go", { onEvent: (e) => e.type === "model_output" && reasoning.push(e.reasoning) });
    expect(run).toMatchObject({ outcome: "answered", answer: "Done." });
    expect(reasoning).toEqual(["The user wants a blob.", undefined]);
  });

  it("output that is only a think block fails closed with model_output_empty and leaves history as it was", async () => {
    const { s, engine } = await session(["<think>\n\n</think>\n\n", "Fine."]);
    const run = await s.chat("hello");
    expect(run).toMatchObject({ ok: false, outcome: "failed_closed", error: { code: "model_output_empty" } });
    expect(run.receipt).toMatchObject({ outcome: "failed_closed", code: "model_output_empty", answer_sha256: null });
    await s.chat("hello again");
    expect(engine.calls[1]!.messages.filter((m) => m.role !== "system")).toEqual([
      { role: "user", content: "hello again" },
    ]);
  });

  it("an unclosed think block (cut off while reasoning) is not an answer either", async () => {
    const { s } = await session(["<think>Let me consider the"]);
    expect((await s.chat("q")).error?.code).toBe("model_output_empty");
  });
});

describe("the context window", () => {
  const answerWith = (size: number) => (messages: readonly ChatMessage[]) =>
    messages.at(-1)!.role === "tool" ? "Done." : call("blob", { size });

  it("a long conversation completes every turn: the oldest whole turns are dropped, the contract stays", async () => {
    const { s, engine } = await session(answerWith(900), { contextWindow: 4000 }, 200);
    const prompts = Array.from({ length: 8 }, (_, i) => `turn ${i}`);
    for (const p of prompts) {
      const run = await s.chat(p);
      expect(run.outcome).toBe("answered");
    }
    const last = (await s.chat("last")).receipt;
    expect(last.context).toMatchObject({ window: 4000, max_tokens: 200, counted_by: "estimate" });
    expect(last.context!.turns_dropped).toBeGreaterThan(0);
    expect(last.context!.prompt_tokens! + 200).toBeLessThanOrEqual(4000);
    for (const c of engine.calls) {
      expect(c.maxTokens).toBe(200);
      expect(c.messages[0]!.role).toBe("system");
      expect(c.messages[0]!.content).toContain("- blob(");
      // What follows the contract is always the start of a turn: one of the prompts.
      expect([...prompts, "last"]).toContain(c.messages[1]!.content);
      c.messages.forEach((m, i) => {
        if (m.role === "tool") expect(c.messages[i - 1]!.role).toBe("assistant");
      });
    }
    expect(engine.calls.at(-1)!.messages.some((m) => m.content === "turn 0")).toBe(false);
  });

  it("a checked turn's answer, asked for in one more line, still fits beside the answer budget in a full window", async () => {
    // As the llama.cpp engine does: a prompt that leaves less than the answer budget is refused.
    const window = 1500;
    class Strict extends ScriptedEngine {
      override info(): EngineInfo {
        return { ...super.info(), kind: "llamacpp" };
      }
      override async chat(request: ChatRequest): Promise<ChatResult> {
        const prompt = estimateTokens(request.messages);
        if (prompt + request.maxTokens! > window)
          throw new EdgeError("context_window_exceeded", { promptTokens: prompt, window });
        return super.chat(request);
      }
    }
    // Each question: a call, its result, the same call again (declined as a repeat), the answer.
    const engine = new Strict(
      (messages) => {
        const last = messages.at(-1)!;
        if (last.content.startsWith("Check:")) return "yes";
        if (last.content.startsWith("Answer me")) return "Done.";
        return call("blob", { size: 40 });
      },
      { contextWindow: window },
    );
    await engine.load();
    const s = await createChatSession({ engine, runtime: runtime(), maxTokens: 200 });
    for (let i = 0; i < 40; i++) {
      const run = await s.chat(`question ${"?".repeat(i)}`);
      expect(run.outcome, `question ${i}: ${run.error?.message}`).toBe("answered");
    }
    expect(engine.calls.some((c) => c.messages.at(-1)!.content.startsWith("Answer me"))).toBe(true);
  });

  it("a prompt that cannot fit even alone fails closed with context_window_exceeded before the model is asked", async () => {
    const { s, engine } = await session(["First answer.", "Second answer."], { contextWindow: 3000 }, 200);
    await s.chat("short question");
    const asked = engine.calls.length;
    const run = await s.chat("y".repeat(5000));
    expect(run).toMatchObject({ ok: false, outcome: "failed_closed", error: { code: "context_window_exceeded" } });
    expect(run.error!.message).toMatch(/context window is 3000 tokens/);
    expect(run.receipt).toMatchObject({
      code: "context_window_exceeded",
      context: { window: 3000, max_tokens: 200, turns_dropped: 1 },
    });
    expect(engine.calls.length).toBe(asked);
    // Nothing of the refused turn entered the history; the conversation goes on.
    const next = await s.chat("and now?");
    expect(next.answer).toBe("Second answer.");
    expect(engine.calls.at(-1)!.messages.map((m) => m.content)).toContain("First answer.");
  });

  it("a tool result too large for the window ends the run closed after the call, before the model sees it", async () => {
    const { s, engine } = await session([call("blob", { size: 6000 }), "never"], { contextWindow: 3000 }, 200);
    const run = await s.chat("big blob");
    expect(run.error?.code).toBe("context_window_exceeded");
    expect(run.receipt.calls[0]).toMatchObject({ tool_name: "blob", status: "ok" });
    expect(engine.calls).toHaveLength(1);
  });

  it("max_tokens is always set: 1024 by default, a quarter of a small window", async () => {
    const a = await session(["ok"]);
    await a.s.chat("q");
    expect(a.engine.calls[0]!.maxTokens).toBe(1024);
    const b = await session(["ok"], { contextWindow: 2048 });
    await b.s.chat("q");
    expect(b.engine.calls[0]!.maxTokens).toBe(512);
  });
});

describe("return_direct and history", () => {
  it("the next prompt extends exactly what the model was given: no tool message it never saw", async () => {
    const { s, engine } = await session([call("draft", { x: "hi" }), "Next."]);
    const run = await s.chat("draft it");
    expect(run).toMatchObject({ outcome: "return_direct", result: { draft: "HI" } });
    await s.chat("thanks");
    const [first, second] = engine.calls;
    expect(second!.messages).toEqual([
      ...first!.messages,
      { role: "assistant", content: call("draft", { x: "hi" }) },
      { role: "user", content: "thanks" },
    ]);
    expect(second!.messages.some((m) => m.role === "tool")).toBe(false);
  });
});
