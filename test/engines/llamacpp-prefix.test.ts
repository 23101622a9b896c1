// The browser's promise, kept by any engine with a prompt cache that outlives a conversation
// (Engine.warmPrefix; here llama.cpp in Node, the same engine class the browser runs over wllama):
// an imprint restored without a saved state has its prefix evaluated once per loaded model, and
// every new conversation (a new session) reuses it — the receipt says so, token for token. And the
// conversation start read ahead (Engine.warmPrefix with progress and a signal): a question asked
// while the start is being warmed waits for it and evaluates only itself; a cancelled warm rejects
// `aborted` and leaves the engine usable; ChatSession.warm warms exactly the system message.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatSession } from "../../src/chat/session.ts";
import type { ChatMessage } from "../../src/engines/engine.ts";
import { LlamaCppEngine } from "../../src/engines/llamacpp/engine.ts";
import { createNodeLlamaBackend } from "../../src/engines/llamacpp/node/backend.ts";
import { imprintBinding, learn, parseLearnSampleText, type Imprint } from "../../src/imprint/index.ts";
import { writeTestModel } from "../fixtures/gguf.ts";
import { nodeLlamaAvailable } from "./node-llama.ts";

const available = await nodeLlamaAvailable();
const SAMPLE = parseLearnSampleText(
  readFileSync(new URL("../../public/examples/learn_sample.json", import.meta.url), "utf8"),
);
const engine = new LlamaCppEngine({
  backend: createNodeLlamaBackend({ cacheDir: "" }),
  model: { kind: "file", path: writeTestModel().path },
  threads: 1,
});
const system = (n: number): ChatMessage => ({
  role: "system",
  content: `You answer questions about order ${n}. `.repeat(40),
});
let imprint: Imprint;
beforeAll(async () => {
  if (!available) return;
  await engine.load();
  ({ imprint } = await learn({ sample: SAMPLE, engine, evaluate: false }));
});
afterAll(() => engine.unload());

describe.skipIf(!available)("an imprint's prefix kept warm across conversations (no saved state)", () => {
  it("the first conversation evaluates the prefix, later ones reuse it; another conversation in between costs one re-evaluation", async () => {
    const conversation = async (prompt: string) => {
      const session = await createChatSession({ engine, imprint: imprintBinding(imprint), maxTokens: 4 });
      const run = await session.chat(prompt);
      expect(run.receipt.imprint_restore).toBe("prefix");
      return run.receipt.imprint_prefix!;
    };
    const first = await conversation("What can you do?");
    expect(first).toMatchObject({ prefix_cache: "engine", prefix_tokens_evaluated: first.prefix_tokens });
    expect(first.prefix_tokens).toBeGreaterThan(1000);
    for (const prompt of ["Which tiers do you have?", "Where is my order?"]) {
      const later = await conversation(prompt);
      expect(later).toMatchObject({
        prefix_cache: "engine",
        prefix_tokens: first.prefix_tokens,
        prefix_tokens_evaluated: 0,
      });
      expect(later.prompt_tokens_evaluated).toBe(later.prompt_tokens! - first.prefix_tokens!);
    }
    // A chat without the imprint takes the cache; the next imprint conversation evaluates the prefix again, and says so.
    await (await createChatSession({ engine, maxTokens: 4 })).chat("Hello?");
    const after = await conversation("Thanks!");
    expect(after.prefix_tokens_evaluated).toBeGreaterThan(first.prefix_tokens! - 20);
  });

  it("a prefix longer than the context window fails the first run closed, with its code and receipt", async () => {
    const small = new LlamaCppEngine({
      backend: createNodeLlamaBackend({ cacheDir: "" }),
      model: { kind: "file", path: writeTestModel({ contextLength: 256 }).path },
      threads: 1,
    });
    await small.load();
    try {
      const { imprint: tooLong } = await learn({ sample: SAMPLE, engine: small, evaluate: false });
      const run = await (await createChatSession({ engine: small, imprint: imprintBinding(tooLong) })).chat("Hi");
      expect([run.outcome, run.error?.code, run.receipt.code]).toEqual([
        "failed_closed",
        "context_window_exceeded",
        "context_window_exceeded",
      ]);
    } finally {
      await small.unload();
    }
  });
});

describe.skipIf(!available)("the conversation start read ahead (random weights)", () => {
  it("a question asked while the start is warmed waits for it and evaluates only what follows it", async () => {
    const progress: { processed: number; total: number }[] = [];
    const warming = engine.warmPrefix!([system(1)], { onProgress: (p) => progress.push(p) });
    // Asked at once, while the warm runs: not refused as busy.
    const answer = await engine.chat({
      messages: [system(1), { role: "user", content: "Where is it?" }],
      maxTokens: 4,
    });
    const warm = await warming;
    // All of it but the template's opening, which the earlier conversations left in the cache.
    expect(warm.evaluated).toBeGreaterThan(warm.tokens - 20);
    expect(warm.tokens).toBeGreaterThan(200);
    expect(progress.at(-1)).toEqual({ processed: warm.evaluated, total: warm.evaluated });
    expect(answer.usage?.promptTokens).toBeGreaterThan(warm.tokens);
    expect(answer.usage?.promptTokensEvaluated).toBe(answer.usage!.promptTokens! - warm.tokens);
  });

  it("a warm whose signal is already aborted rejects `aborted` and evaluates nothing; the engine stays usable", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(engine.warmPrefix!([system(2)], { signal: controller.signal })).rejects.toMatchObject({
      code: "aborted",
    });
    const again = await engine.warmPrefix!([system(2)]);
    expect(again.evaluated).toBeGreaterThan(200);
  });

  it("a warm asked while another is cancelled waits for it to stop, then runs", async () => {
    const controller = new AbortController();
    const first = engine.warmPrefix!([system(3)], { signal: controller.signal });
    controller.abort();
    const second = engine.warmPrefix!([system(4)]);
    await expect(first).rejects.toMatchObject({ code: "aborted" });
    expect((await second).tokens).toBeGreaterThan(200);
  });

  it("saving or loading a start's state while a warm runs waits for it instead of failing as busy", async () => {
    const warming = engine.warmPrefix!([system(5)]);
    const tokens = await engine.prefixState!.prefixTokens([system(5)]);
    expect(tokens.length).toBe((await warming).tokens);
  });

  it("ChatSession.warm warms the session's system message: its first run evaluates none of it", async () => {
    const session = await createChatSession({ engine, imprint: imprintBinding(imprint), maxTokens: 4 });
    const warm = await session.warm();
    expect(warm?.tokens).toBeGreaterThan(1000);
    const run = await session.chat("Which tiers do you have?");
    expect(run.receipt.imprint_prefix).toMatchObject({
      prefix_cache: "engine",
      prefix_tokens: warm!.tokens,
      prefix_tokens_evaluated: 0,
    });
    expect(run.receipt.engine_stats?.first_prompt_tokens_evaluated).toBe(
      run.receipt.imprint_prefix!.prompt_tokens! - warm!.tokens,
    );
  });

  it("a session without a system message has nothing to warm", async () => {
    expect(await (await createChatSession({ engine, maxTokens: 4 })).warm()).toBeNull();
  });
});
