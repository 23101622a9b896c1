// Counting and fitting (the loop's use of them is in session.context.test.ts).
import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import type { ChatMessage, Engine } from "../engines/engine.ts";
import { answerBudget } from "../engines/token-budget.ts";
import { estimateTokens, fitToWindow, tokenCounter } from "./context.ts";

const m = (content: string): ChatMessage => ({ role: "user", content });

describe("counting", () => {
  it("the estimate is an upper bound: every UTF-8 byte may be a token, plus the template allowance", () => {
    expect(estimateTokens([m("héllo")])).toBe(6 + 8 + 64);
    expect(estimateTokens([m("👋"), m("")])).toBe(4 + 8 + 0 + 8 + 64);
  });

  it("uses the engine's count, and falls back to the estimate when the engine cannot count", async () => {
    const counting = { countTokens: async () => 7 } as Partial<Engine> as Engine;
    expect(await tokenCounter(counting).count([m("x")])).toBe(7);
    const failing = {
      countTokens: async () => Promise.reject(new Error("internals changed")),
    } as Partial<Engine> as Engine;
    const c = tokenCounter(failing);
    expect(await c.count([m("x")])).toBe(estimateTokens([m("x")]));
    expect(c.method).toBe("estimate");
    const lost = { countTokens: async () => Promise.reject(new EdgeError("engine_lost")) } as Partial<Engine> as Engine;
    await expect(tokenCounter(lost).count([m("x")])).rejects.toMatchObject({ code: "engine_lost" });
  });

  it("max_tokens: the caller's, else 1024 but at most a quarter of the window", () => {
    expect([answerBudget(undefined), answerBudget(4096), answerBudget(2048), answerBudget(4096, 77)]).toEqual([
      1024, 1024, 512, 77,
    ]);
  });
});

describe("fitToWindow", () => {
  const turns = [[m("a"), m("b")], [m("c")], [m("d")]];
  const count = async (ms: readonly ChatMessage[]) => ms.length * 10;

  it("without a known window nothing is counted or dropped", async () => {
    const r = await fitToWindow({
      system: null,
      turns,
      firstTurn: 1,
      current: [m("now")],
      window: undefined,
      reserve: 5,
      count,
      modelId: "x",
    });
    expect(r).toEqual({ messages: [m("c"), m("d"), m("now")], firstTurn: 1 });
  });

  it("drops the oldest whole turns until the prompt and the answer budget fit; the system message stays", async () => {
    const sys: ChatMessage = { role: "system", content: "contract" };
    const r = await fitToWindow({
      system: sys,
      turns,
      firstTurn: 0,
      current: [m("now")],
      window: 45,
      reserve: 5,
      count,
      modelId: "x",
    });
    expect(r).toEqual({ messages: [sys, m("c"), m("d"), m("now")], firstTurn: 1, promptTokens: 40 });
  });

  it("a current turn that cannot fit alone is context_window_exceeded, with what it needed", async () => {
    const e = await fitToWindow({
      system: null,
      turns,
      firstTurn: 0,
      current: [m("1"), m("2"), m("3")],
      window: 30,
      reserve: 5,
      count,
      modelId: "Qwen",
    }).catch((x: EdgeError) => x);
    expect(e).toMatchObject({
      code: "context_window_exceeded",
      details: { window: 30, promptTokens: 30, reserve: 5, droppedTurns: 3 },
    });
    expect((e as EdgeError).message).toMatch(/Qwen's context window is 30 tokens/);
  });
});
