// The browser's promise, kept by any engine with a prompt cache that outlives a conversation
// (Engine.warmPrefix; here llama.cpp in Node, the same engine class the browser runs over wllama):
// an imprint restored without a saved state has its prefix evaluated once per loaded model, and
// every new conversation (a new session) reuses it — the receipt says so, token for token.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatSession } from "../../src/chat/session.ts";
import { LlamaCppEngine } from "../../src/engines/llamacpp/engine.ts";
import { createNodeLlamaBackend } from "../../src/engines/llamacpp/node/backend.ts";
import { imprintBinding, learn, parseLearnSampleText, type Imprint } from "../../src/imprint/index.ts";
import { writeTestModel } from "../fixtures/gguf.ts";
import { nodeLlamaAvailable } from "./node-llama.ts";

const available = await nodeLlamaAvailable();
const SAMPLE = parseLearnSampleText(readFileSync(new URL("../../public/examples/learn_sample.json", import.meta.url), "utf8"));
const engine = new LlamaCppEngine({ backend: createNodeLlamaBackend({ cacheDir: "" }), model: { kind: "file", path: writeTestModel().path }, threads: 1 });
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
      expect(later).toMatchObject({ prefix_cache: "engine", prefix_tokens: first.prefix_tokens, prefix_tokens_evaluated: 0 });
      expect(later.prompt_tokens_evaluated).toBe(later.prompt_tokens! - first.prefix_tokens!);
    }
    // A chat without the imprint takes the cache; the next imprint conversation evaluates the prefix again, and says so.
    await (await createChatSession({ engine, maxTokens: 4 })).chat("Hello?");
    const after = await conversation("Thanks!");
    expect(after.prefix_tokens_evaluated).toBeGreaterThan(first.prefix_tokens! - 20);
  });

  it("a prefix longer than the context window fails the first run closed, with its code and receipt", async () => {
    const small = new LlamaCppEngine({ backend: createNodeLlamaBackend({ cacheDir: "" }), model: { kind: "file", path: writeTestModel({ contextLength: 256 }).path }, threads: 1 });
    await small.load();
    try {
      const { imprint: tooLong } = await learn({ sample: SAMPLE, engine: small, evaluate: false });
      const run = await (await createChatSession({ engine: small, imprint: imprintBinding(tooLong) })).chat("Hi");
      expect([run.outcome, run.error?.code, run.receipt.code]).toEqual(["failed_closed", "context_window_exceeded", "context_window_exceeded"]);
    } finally {
      await small.unload();
    }
  });
});
