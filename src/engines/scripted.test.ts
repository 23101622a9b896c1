import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import type { ChatMessage } from "./engine.ts";
import { SCRIPTED_LABEL, ScriptedEngine } from "./scripted.ts";
import { rejection } from "../../test/fixtures/edge-error.ts";

const user = (content: string): ChatMessage[] => [
  { role: "system", content: "You are a test." },
  { role: "user", content },
];

async function codeOf(p: Promise<unknown>): Promise<string> {
  return (await rejection(p)).code;
}

describe("ScriptedEngine", () => {
  it("says plainly that it is not a model", () => {
    const info = new ScriptedEngine([]).info();
    expect(info.kind).toBe("scripted");
    expect(info.label).toBe(SCRIPTED_LABEL);
    expect(info.label).toBe("Scripted demo (no model)");
  });

  it("must be loaded before chatting, like the real engine", async () => {
    const engine = new ScriptedEngine(["hi"]);
    expect(await codeOf(engine.chat({ messages: user("x") }))).toBe("engine_not_loaded");
    const seen: string[] = [];
    await engine.load((p) => seen.push(`${p.phase}:${p.progress}`));
    expect(seen).toEqual(["ready:1"]);
    expect((await engine.chat({ messages: user("x") })).text).toBe("hi");
  });

  it("replays outputs in order, streaming each in small chunks that add up to the text", async () => {
    const call = '{"tool_name": "fee_quote", "arguments": {"amount": 12.5}}';
    const engine = new ScriptedEngine([call, "The fee is 0.25."], { chunkSize: 5 });
    await engine.load();
    const deltas: string[] = [];
    const first = await engine.chat({ messages: user("fee?"), onToken: (d) => deltas.push(d) });
    expect(first.text).toBe(call);
    expect(deltas.join("")).toBe(call);
    expect(deltas.length).toBe(Math.ceil(call.length / 5));
    expect(deltas.every((d) => d.length <= 5)).toBe(true);
    const second = await engine.chat({
      messages: [...user("fee?"), { role: "assistant", content: call }, { role: "tool", content: "{}" }],
    });
    expect(second.text).toBe("The fee is 0.25.");
    expect(engine.turnsUsed).toBe(2);
  });

  it("records what the model was asked, including the response format", async () => {
    const engine = new ScriptedEngine(["ok"]);
    await engine.load();
    const fmt = { type: "json_object" as const, schema: '{"type":"object"}' };
    await engine.chat({ messages: user("q"), responseFormat: fmt, maxTokens: 64, temperature: 0 });
    expect(engine.calls).toEqual([{ messages: user("q"), responseFormat: fmt, maxTokens: 64, temperature: 0 }]);
  });

  it("a script function sees the conversation and the turn number", async () => {
    const engine = new ScriptedEngine(
      (messages, turn) => `${turn}:${messages[messages.length - 1]!.content.toUpperCase()}`,
    );
    await engine.load();
    expect((await engine.chat({ messages: user("abc") })).text).toBe("0:ABC");
    expect((await engine.chat({ messages: user("de") })).text).toBe("1:DE");
  });

  it("out of script is a clear coded error, not an empty answer", async () => {
    const engine = new ScriptedEngine(["only one"]);
    await engine.load();
    await engine.chat({ messages: user("1") });
    const err = await rejection(engine.chat({ messages: user("2") }));
    expect(err).toBeInstanceOf(EdgeError);
    expect(err.code).toBe("script_exhausted");
    expect(err.message).toContain("1 scripted output");
    expect(err.details).toMatchObject({ turn: 1, scripted: 1 });

    const fn = new ScriptedEngine(() => undefined);
    await fn.load();
    expect(await codeOf(fn.chat({ messages: user("x") }))).toBe("script_exhausted");
  });

  it("abort() stops a generation mid-stream with `aborted`", async () => {
    const engine = new ScriptedEngine(["x".repeat(200)], { chunkSize: 1, chunkDelayMs: 1 });
    await engine.load();
    const deltas: string[] = [];
    const p = engine.chat({
      messages: user("long"),
      onToken: (d) => {
        deltas.push(d);
        if (deltas.length === 3) engine.abort();
      },
    });
    const err = await rejection(p);
    expect(err.code).toBe("aborted");
    expect(deltas.length).toBe(3);
    expect(err.details.partialText).toBe("xxx");
  });

  it("the request's AbortSignal aborts too, also when already aborted", async () => {
    const engine = new ScriptedEngine(["y".repeat(100), "z"], { chunkSize: 1, chunkDelayMs: 1 });
    await engine.load();
    const controller = new AbortController();
    const p = engine.chat({ messages: user("a"), signal: controller.signal, onToken: () => controller.abort() });
    expect(await codeOf(p)).toBe("aborted");
    const pre = AbortSignal.abort();
    expect(await codeOf(engine.chat({ messages: user("b"), signal: pre }))).toBe("aborted");
    // The engine is usable again afterwards.
    expect((await engine.chat({ messages: user("c") })).text).toBe("z");
  });

  it("enforces the same message rules as web-llm", async () => {
    const engine = new ScriptedEngine(["a", "b", "c", "d"]);
    await engine.load();
    expect(await codeOf(engine.chat({ messages: [] }))).toBe("invalid_chat_messages");
    expect(
      await codeOf(
        engine.chat({
          messages: [
            { role: "user", content: "q" },
            { role: "system", content: "late" },
            { role: "user", content: "q" },
          ],
        }),
      ),
    ).toBe("invalid_chat_messages");
    expect(
      await codeOf(
        engine.chat({
          messages: [
            { role: "user", content: "q" },
            { role: "assistant", content: "a" },
          ],
        }),
      ),
    ).toBe("invalid_chat_messages");
    // Rejected requests do not consume the script.
    expect(engine.turnsUsed).toBe(0);
  });

  it("refuses a second concurrent generation", async () => {
    const engine = new ScriptedEngine(["slow answer here", "b"], { chunkSize: 1, chunkDelayMs: 2 });
    await engine.load();
    const first = engine.chat({ messages: user("1") });
    expect(await codeOf(engine.chat({ messages: user("2") }))).toBe("generation_failed");
    expect((await first).text).toBe("slow answer here");
  });

  it("unload() makes chat fail until loaded again", async () => {
    const engine = new ScriptedEngine(["a", "b"]);
    await engine.load();
    await engine.unload();
    expect(await codeOf(engine.chat({ messages: user("x") }))).toBe("engine_not_loaded");
  });
});
