// The fake MLCEngine is only worth its tests if it behaves as web-llm does. Each behaviour the fake
// mirrors is quoted here from the installed @mlc-ai/web-llm (lib/index.js) — an upgrade that changes
// one fails this file, and the fake must follow — and the fake's errors are web-llm's own classes.
import { describe, expect, it } from "vitest";
import { modelBaseUrl } from "../../src/engines/webllm-cache.ts";
import { countContentTokens, loadedContextWindow } from "../../workers/llm-worker-core.ts";
import { classSource } from "./webllm-classes.ts";
import { FakeMLCEngine, FakeTokenizer, THINK_PREFIX } from "./webllm-fake.ts";
import { nodeWebllmErrors, webllmSource } from "./webllm-source.ts";

const squash = (s: string): string => s.replace(/\s+/g, " ");
const source = squash(webllmSource());
const quoted = (fragment: string): void => {
  expect(source, `web-llm's source no longer contains: ${fragment}`).toContain(squash(fragment));
};

describe("what the fake mirrors is still what web-llm 0.2.86 does", () => {
  it("enable_thinking: false pushes an empty think block into the output before the first token", () => {
    quoted('const emptyThinkingBlockStr = "<think>\\n\\n</think>\\n\\n";');
    quoted("this.outputIds.push(...encoded);");
    quoted("enable_thinking: (_b = request.extra_body) === null || _b === void 0 ? void 0 : _b.enable_thinking,");
    expect(THINK_PREFIX).toBe("<think>\n\n</think>\n\n");
  });

  it("stream: first delta after prefill, one per decode step, a final chunk, then the usage chunk when asked", () => {
    quoted("{ emitCurrent: true }");
    quoted('delta: { content: deltaMessage, role: "assistant" }, finish_reason: null, index: 0, logprobs,');
    quoted(": {}, finish_reason: finishReason, index: 0, }");
    quoted("yield __await(this.makeStreamFinalChunk(request, model, pipeline, state));");
    quoted(
      "if (((_a = request.stream_options) === null || _a === void 0 ? void 0 : _a.include_usage) !== true) { return undefined; }",
    );
    quoted("id: state.id, choices: [], usage, model,");
    quoted("time_to_first_token_s: prefillTime,");
    quoted("prompt_tokens: promptTokens,");
    quoted("this.curRoundCompletionTotalTokens += 1;");
  });

  it("stop conditions: stop token, max_tokens (think block included), a full KV cache, interrupt", () => {
    quoted('this.stopTriggered = true; this.finishReason = "stop";');
    quoted('if (this.outputIds.length >= max_tokens) { this.stopTriggered = true; this.finishReason = "length";');
    quoted("processedSeqLen == this.contextWindowSize) {");
    quoted(
      "interruptGenerate() { return __awaiter(this, void 0, void 0, function* () { this.interruptSignal = true; }); }",
    );
    quoted('this.stopTriggered = true; this.finishReason = "abort";');
  });

  it("KV-cache reuse needs an identical earlier conversation that did not end in abort or length", () => {
    quoted(
      'previousFinishReason === "abort" || previousFinishReason === "length" || !compareConversationObject(oldConv, newConv)) {',
    );
    quoted(
      "numPromptTokens + this.filledKVCacheLength > this.contextWindowSize) { throw new ContextWindowSizeExceededError(numPromptTokens, this.contextWindowSize);",
    );
  });

  it("model URLs without a revision get resolve/main/ (modelBaseUrl, used by Edge's cache cleanup and the fake)", () => {
    quoted(
      'modelUrl += modelUrl.endsWith("/") ? "" : "/"; if (!modelUrl.match(/.+\\/resolve\\/.+\\//)) modelUrl += "resolve/main/";',
    );
    expect(modelBaseUrl("https://huggingface.co/mlc-ai/X-MLC", "http://h/")).toBe(
      "https://huggingface.co/mlc-ai/X-MLC/resolve/main/",
    );
    expect(modelBaseUrl(`https://huggingface.co/mlc-ai/X-MLC/resolve/${"a".repeat(40)}/`, "http://h/")).toBe(
      `https://huggingface.co/mlc-ai/X-MLC/resolve/${"a".repeat(40)}/`,
    );
    expect(modelBaseUrl("/models/X", "http://h/app/")).toBe("http://h/models/X/resolve/main/");
  });

  it("reload caches a file, then verifies it; the config is the file ⊕ record overrides ⊕ chat options", () => {
    quoted('const configData = (yield configCache.fetchWithCache(configUrl, "arraybuffer",');
    quoted(
      "yield verifyIntegrity(configData, modelRecord.integrity.config, configUrl, modelRecord.integrity.onFailure);",
    );
    quoted(
      "const curModelConfig = Object.assign(Object.assign(Object.assign({}, JSON.parse(new TextDecoder().decode(configData))), modelRecord.overrides), chatOpts);",
    );
  });

  it("the worker handler owns a public engine field, posts errors as strings, and keeps tokenizer and config where Edge reads them", () => {
    quoted("this.engine = new MLCEngine();");
    quoted("const errStr = err.toString();");
    quoted("this.loadedModelIdToPipeline = new Map();");
    quoted("this.loadedModelIdToChatConfig = new Map();");
    quoted("this.tokenizer = tokenizer;");
    quoted('throw Error("Role is not supported: " + role);');
  });
});

describe("the fake's errors are web-llm's own classes", () => {
  it("ContextWindowSizeExceededError and friends carry web-llm's names and messages", () => {
    const { ContextWindowSizeExceededError, ModelNotFoundError, WebGPUNotAvailableError } = nodeWebllmErrors();
    const e = new ContextWindowSizeExceededError(5000, 4096);
    expect(e).toBeInstanceOf(Error);
    expect(e.toString()).toBe(
      "ContextWindowSizeExceededError: Prompt tokens exceed context window size: number of prompt tokens: 5000; context window size: 4096\nConsider shortening the prompt, or increase `context_window_size`, or using sliding window via `sliding_window_size`.",
    );
    expect(new ModelNotFoundError("x").name).toBe("ModelNotFoundError");
    expect(new WebGPUNotAvailableError().message).toMatch(/^WebGPU is not supported in your current environment/);
    expect(classSource(webllmSource(), "ContextWindowSizeExceededError").parent).toBe("Error");
  });
});

describe("the fake's tokenizer and the worker's readers", () => {
  it("decode(encode(text)) is the text; markers are one token", () => {
    const t = new FakeTokenizer();
    for (const text of [
      '{"tool_name": "fee_quote", "arguments": {"amount": 661}}',
      "Grüße, 世界! 👋🏽\n\n\tok",
      THINK_PREFIX,
    ]) {
      expect(t.decode(t.encode(text))).toBe(text);
    }
    expect(t.encode("<|im_start|>").length).toBe(1);
    expect(t.encode(THINK_PREFIX).length).toBeLessThanOrEqual(4);
  });

  it("the worker's token count and context window come from the loaded model (as on web-llm's MLCEngine)", async () => {
    const webllm = await import("@mlc-ai/web-llm");
    const fake = new FakeMLCEngine({ script: [], errors: nodeWebllmErrors() });
    fake.setAppConfig(webllm.prebuiltAppConfig);
    expect(() => countContentTokens(fake, "Qwen3-1.7B-q4f16_1-MLC", ["x"])).toThrow(/no tokenizer/);
    await fake.reload("Qwen3-1.7B-q4f16_1-MLC");
    expect(countContentTokens(fake, "Qwen3-1.7B-q4f16_1-MLC", ["hello world", ""])).toEqual([4, 0]); // "hell" "o" " worl" "d"
    expect(loadedContextWindow(fake, "Qwen3-1.7B-q4f16_1-MLC")).toBe(4096);
    // The real MLCEngine, before any model is loaded: the same fields, empty.
    const real = new webllm.MLCEngine();
    expect(() => countContentTokens(real, "Qwen3-1.7B-q4f16_1-MLC", ["x"])).toThrow(
      /no tokenizer for the loaded model/,
    );
    expect(loadedContextWindow(real, "Qwen3-1.7B-q4f16_1-MLC")).toBeUndefined();
  });
});
