// The web-llm engine's behaviours, without a GPU: WebLLMEngine exactly as shipped, talking through
// web-llm's own client and worker handler (real code, real message protocol) to the fake MLCEngine
// (webllm-fake.ts). Written against `webllmConformance` (webllm-adapter.ts) so the shared engine
// conformance suite can run the same subject; the web-llm-specific quirks are named in each test.
import { describe, expect, it } from "vitest";
import type { EdgeError } from "../../src/contract/errors.ts";
import type { ChatMessage } from "../../src/engines/engine.ts";
import { toolCallOrTextResponseFormat } from "../../src/engines/grammar.ts";
import { QWEN25, QWEN3, webllmConformance, webllmSubject } from "./webllm-adapter.ts";
import { rejection } from "../fixtures/edge-error.ts";
import { fakeModelFiles, sriOf, THINK_PREFIX } from "./webllm-fake.ts";

const user = (content: string): ChatMessage => ({ role: "user", content });

describe(`${webllmConformance.name}: generation`, () => {
  it("streams the reply in order; the result is the concatenation; usage is mapped", async () => {
    const { engine, fake } = await webllmConformance.create(["The answer is forty-two."]);
    const deltas: string[] = [];
    const r = await engine.chat({ messages: [user("q")], onToken: (d) => deltas.push(d) });
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join("")).toBe("The answer is forty-two.");
    expect(r).toMatchObject({ text: "The answer is forty-two.", finishReason: "stop" });
    expect(r.usage).toMatchObject({
      promptTokensEvaluated: fake.engine.prefills[0],
      completionTokens: expect.any(Number),
    });
    expect(r.usage!.decodeTokensPerS).toBeGreaterThan(0);
    expect(r.usage!.timeToFirstTokenMs).toBeGreaterThanOrEqual(0);
    // Every request carries max_tokens (an unbounded generation runs until the KV cache is full)
    // and asks for the usage chunk.
    expect(fake.engine.requests[0]).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1024,
    });
  });

  it("passes response_format, temperature and max_tokens through to web-llm", async () => {
    const { engine, fake } = await webllmSubject(["plain answer"]);
    const format = toolCallOrTextResponseFormat([
      { name: "t", parameters: { type: "object", properties: {}, additionalProperties: false } },
    ]);
    await engine.chat({ messages: [user("q")], responseFormat: format, temperature: 0, maxTokens: 77 });
    expect(fake.engine.requests[0]).toMatchObject({ response_format: format, temperature: 0, max_tokens: 77 });
  });

  it("Qwen3: enable_thinking is false and web-llm's empty think block leads the raw reply", async () => {
    const { engine, fake } = await webllmSubject(['{"tool_name":"t","arguments":{}}'], { engine: { modelId: QWEN3 } });
    const r = await engine.chat({ messages: [user("q")] });
    expect(fake.engine.requests[0]!.extra_body).toEqual({ enable_thinking: false });
    expect(r.text).toBe(`${THINK_PREFIX}{"tool_name":"t","arguments":{}}`);
  });

  it("max_tokens reached: finishReason is length (the think block counts against it, as in web-llm)", async () => {
    const { engine } = await webllmSubject(["one two three four five six seven eight nine ten"], {
      engine: { modelId: QWEN3 },
    });
    const r = await engine.chat({ messages: [user("q")], maxTokens: 6 });
    expect(r.finishReason).toBe("length");
    expect(r.text.startsWith(THINK_PREFIX)).toBe(true);
    expect(r.text.length).toBeLessThan(THINK_PREFIX.length + 12);
  });

  it("a stream that ends without the usage chunk still answers; only the page's time to first token is known", async () => {
    const { engine } = await webllmSubject(["no usage here"], { fake: { usageChunk: false } });
    const r = await engine.chat({ messages: [user("q")] });
    expect(r.text).toBe("no usage here");
    expect(r.usage).toEqual({ timeToFirstTokenMs: expect.any(Number) });
  });

  it("a follow-up that extends the conversation reuses the cached prefix: only the new tokens are evaluated", async () => {
    const { engine, fake } = await webllmSubject(["First reply with some words in it.", "Second."], {
      engine: { modelId: QWEN3 },
    });
    const first = await engine.chat({ messages: [{ role: "system", content: "You are terse." }, user("one")] });
    const second = await engine.chat({
      messages: [
        { role: "system", content: "You are terse." },
        user("one"),
        { role: "assistant", content: first.text },
        user("two"),
      ],
    });
    expect(second.usage!.promptTokensEvaluated).toBeLessThan(first.usage!.promptTokensEvaluated!);
    expect(fake.engine.prefills).toEqual([first.usage!.promptTokensEvaluated, second.usage!.promptTokensEvaluated]);
    // Without the think block (what a person sees) the prefix no longer matches: full prefill.
    const third = await engine
      .chat({
        messages: [
          { role: "system", content: "You are terse." },
          user("one"),
          { role: "assistant", content: first.text.slice(THINK_PREFIX.length) },
          user("two"),
        ],
      })
      .catch(() => undefined);
    expect(third).toBeUndefined(); // the script has no third reply, but prefill already ran:
    expect(fake.engine.prefills[2]).toBeGreaterThan(second.usage!.promptTokensEvaluated!);
  });

  it("tool messages go as user turns by default (MLC templates have no tool role); toolRole 'tool' meets web-llm's own refusal", async () => {
    const msgs: ChatMessage[] = [
      user("q"),
      { role: "assistant", content: "{}" },
      { role: "tool", content: "Tool result for t:\n{}" },
    ];
    const ok = await webllmSubject(["fine"]);
    expect((await ok.engine.chat({ messages: msgs })).text).toBe("fine");
    expect(ok.fake.engine.requests[0]!.messages.at(-1)).toEqual({ role: "user", content: "Tool result for t:\n{}" });
    const strict = await webllmSubject(["fine"], { engine: { toolRole: "tool" } });
    const e = await rejection(strict.engine.chat({ messages: msgs }));
    expect(e.code).toBe("generation_failed");
    expect(String(e.details["original"])).toBe("Error: Role is not supported: tool");
  });
});

describe(`${webllmConformance.name}: stop`, () => {
  it("abort mid-generation interrupts web-llm, rejects aborted with the partial text, and the engine stays usable", async () => {
    const long = Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ");
    const { engine, fake } = await webllmSubject([long, "after"], { fake: { tokenDelayMs: 2 } });
    const seen: string[] = [];
    const pending = engine.chat({ messages: [user("q")], onToken: (d) => seen.push(d) === 5 && engine.abort() });
    const e = await rejection(pending);
    expect(e.code).toBe("aborted");
    expect(String(e.details["partialText"])).toBe(seen.join(""));
    expect(String(e.details["partialText"]).length).toBeLessThan(long.length);
    const next = await engine.chat({ messages: [user("again")] });
    expect(next.text).toBe("after");
    // web-llm does not continue an interrupted conversation in place: the next prompt is prefilled whole.
    expect(fake.engine.prefills).toHaveLength(2);
  });

  it("an already-aborted signal never reaches the worker", async () => {
    const { engine, fake } = await webllmSubject(["x"]);
    const c = new AbortController();
    c.abort();
    expect((await rejection(engine.chat({ messages: [user("q")], signal: c.signal }))).code).toBe("aborted");
    expect(fake.engine.requests).toHaveLength(0);
  });
});

describe(`${webllmConformance.name}: limits and counting`, () => {
  it("knows its context window from the loaded config (record override or chat options)", async () => {
    expect((await webllmSubject([])).engine.info().contextWindow).toBe(4096); // prebuilt override
    const custom = await webllmSubject([], { engine: { chatOptions: { context_window_size: 2048 } } });
    expect(custom.engine.info().contextWindow).toBe(2048);
  });

  it("countTokens is an upper bound of what web-llm prefills for the same messages", async () => {
    const { engine, fake } = await webllmSubject(["ok"]);
    const messages: ChatMessage[] = [
      { role: "system", content: "Tools: " + JSON.stringify({ a: [1, 2, 3], b: "text ".repeat(50) }) },
      user("How much is the fee for 661 on the pro tier?"),
    ];
    const counted = await engine.countTokens(messages);
    await engine.chat({ messages });
    expect(counted).toBeGreaterThanOrEqual(fake.engine.prefills[0]!);
    expect(counted).toBeLessThan(fake.engine.prefills[0]! * 2);
  });

  it("a prompt over the window meets web-llm's own ContextWindowSizeExceededError → context_window_exceeded", async () => {
    const { engine } = await webllmSubject(["never"], { engine: { chatOptions: { context_window_size: 256 } } });
    const e = await rejection(engine.chat({ messages: [user("word ".repeat(400))], maxTokens: 16 }));
    expect(e.code).toBe("context_window_exceeded");
    expect(String(e.details["original"])).toMatch(
      /^ContextWindowSizeExceededError: Prompt tokens exceed context window size: number of prompt tokens: \d+; context window size: 256/,
    );
  });
});

describe(`${webllmConformance.name}: load and integrity`, () => {
  it("SRI pins that match web-llm's files load, and are part of the fingerprint", async () => {
    const files = fakeModelFiles(QWEN25);
    const integrity = {
      config: await sriOf(files.config),
      model_lib: await sriOf(files.modelLib),
      tokenizer: { "tokenizer.json": await sriOf(files.tokenizer) },
    };
    const webllm = await import("@mlc-ai/web-llm");
    const appConfig = {
      model_list: webllm.prebuiltAppConfig.model_list.map((r) => (r.model_id === QWEN25 ? { ...r, integrity } : r)),
    };
    const { engine } = await webllmSubject([], { engine: { appConfig } });
    expect(engine.info().fingerprint?.integrity).toEqual(integrity);
  });

  for (const file of ["config", "model_lib", "tokenizer"] as const) {
    it(`a wrong ${file} hash → model_integrity_failed, the worker ends, another load can follow`, async () => {
      const webllm = await import("@mlc-ai/web-llm");
      const wrong = "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
      const integrity = file === "tokenizer" ? { tokenizer: { "tokenizer.json": wrong } } : { [file]: wrong };
      const appConfig = {
        model_list: webllm.prebuiltAppConfig.model_list.map((r) => (r.model_id === QWEN25 ? { ...r, integrity } : r)),
      };
      const subject = await webllmSubject(["hello"], { engine: { appConfig }, load: false });
      const e = await rejection(subject.engine.load());
      expect(e.code).toBe("model_integrity_failed");
      expect(String(e.details["original"])).toContain(`Expected: ${wrong}`);
      expect(subject.fake.terminated).toBe(true);
      expect(subject.engine.loaded).toBe(false);
      await expect(subject.engine.chat({ messages: [user("q")] })).rejects.toMatchObject({ code: "engine_not_loaded" });
    });
  }

  it("a model id that is not in the list is refused before the worker is asked to load it", async () => {
    const subject = await webllmSubject([], { engine: { modelId: "Nope-1B-q4f16_1-MLC" }, load: false });
    expect((await rejection(subject.engine.load())).code).toBe("unknown_model");
    expect(subject.fake.engine.reloads).toBe(0);
  });
});

describe(`${webllmConformance.name}: a lost worker or GPU`, () => {
  it("a worker that dies mid-stream rejects the generation with engine_lost, unloads, and a reload works", async () => {
    const long = Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ");
    let lost: EdgeError | undefined;
    const subject = await webllmSubject([long, "back again"], {
      // Only the first worker dies; the one started by the reload lives.
      fake: {
        tokenDelayMs: 1,
        onDecode: (_text, step) =>
          step === 10 && subject.workers.length === 1 && subject.fake.crash("Uncaught RangeError: Out of memory"),
      },
      engine: { onLost: (e) => (lost = e) },
    });
    const e = await rejection(subject.engine.chat({ messages: [user("q")] }));
    expect(e.code).toBe("engine_lost");
    expect(lost?.code).toBe("engine_lost");
    expect(subject.engine.loaded).toBe(false);
    expect(subject.workers[0]!.terminated).toBe(true);
    expect((await rejection(subject.engine.chat({ messages: [user("q")] }))).code).toBe("engine_lost");
    await subject.engine.load();
    expect(subject.workers).toHaveLength(2);
    expect((await subject.engine.chat({ messages: [user("q")] })).text).toBe(long);
  });

  it("a lost GPU device mid-stream → engine_lost; Stop during a hung generation still returns at once", async () => {
    const subject = await webllmSubject(["a b c d e f g h i j k l m n o p"], {
      fake: {
        tokenDelayMs: 1,
        onDecode: (_t, step) => step === 3 && subject.fake.loseDevice("Device was lost: driver reset"),
      },
    });
    const e = await rejection(subject.engine.chat({ messages: [user("q")] }));
    expect(e).toMatchObject({ code: "engine_lost", details: { original: "Device was lost: driver reset" } });

    // A worker that stops answering (no error event at all): only Stop can end the wait.
    const hung = await webllmSubject(["a b c d e f g h i j"], {
      fake: { tokenDelayMs: 1, onDecode: (_t, step) => step === 2 && hung.fake.crash("") },
    });
    (hung.fake.worker as { onerror: null }).onerror = null; // the page never hears of it
    const t0 = performance.now();
    const pending = hung.engine.chat({ messages: [user("q")] });
    setTimeout(() => hung.engine.abort(), 50);
    expect((await rejection(pending)).code).toBe("aborted");
    expect(performance.now() - t0).toBeLessThan(15_000); // a hang without Stop never ends: any bound tells
    await hung.engine.unload(); // terminates the worker even though it never answers
    expect(hung.fake.terminated).toBe(true);
  });

  it("unload() frees the model in the worker and ends it", async () => {
    const { engine, fake } = await webllmSubject(["x"], { engine: { modelId: QWEN25 } });
    await engine.unload();
    expect(fake.engine.unloads).toBe(1);
    expect(fake.terminated).toBe(true);
    expect(engine.info().modelId).toBe(QWEN25);
  });
});
