// A faithful fake of web-llm 0.2.86's MLCEngine — the object that lives inside web-llm's own
// WebWorkerMLCEngineHandler in the llm worker. Everything around it is real: the handler, web-llm's
// page-side client (WebWorkerMLCEngine), the message protocol between them, Edge's worker code and
// WebLLMEngine. Only the model is replaced: the "model" replays a script, token by token, through a
// small deterministic tokenizer. What the fake mirrors from web-llm's source (each point is checked
// against the installed lib/index.js by webllm-fake.test.ts):
//  * request checks: web-llm's exported postInitAndCheckFieldsChatCompletion, called as MLCEngine does;
//  * a lazy async generator per streaming request, holding the model's lock until it finishes;
//  * prefill: KV-cache reuse only when the previous conversation is an exact prefix and did not end
//    with "abort" or "length"; the context-window check (ContextWindowSizeExceededError, web-llm's
//    own class) counting the new tokens plus what the KV cache holds;
//  * enable_thinking: false → "<think>\n\n</think>\n\n" is pushed into the output before the first
//    token (so it is in the first delta, in the reply kept in the conversation, and in max_tokens);
//  * stop conditions: stop token ("stop"), max_tokens and a full KV cache ("length"), interrupt
//    ("abort"); completion tokens count every sampled token including the stop token;
//  * chunks: the first delta right after prefill, one per decode step (an empty delta when the stop
//    token is sampled), a final chunk with `delta: {}` and the finish reason, then the usage chunk
//    (`choices: []`) when stream_options.include_usage is set;
//  * reload: config, model library and tokenizer are "fetched" (cached first, as web-llm does, in the
//    Cache API when there is one) and checked with web-llm's exported verifyIntegrity; merged config
//    = file ⊕ record.overrides ⊕ chatOpts; loadedModelIdToPipeline / loadedModelIdToChatConfig hold
//    the tokenizer and config where Edge's worker code reads them.
import {
  ModelType,
  WebWorkerMLCEngineHandler,
  postInitAndCheckFieldsChatCompletion,
  verifyIntegrity,
  type AppConfig,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type ChatOptions,
  type InitProgressReport,
  type ModelRecord,
} from "@mlc-ai/web-llm";
import type { WebGPUProbe } from "../../src/engines/webgpu.ts";
import { modelBaseUrl } from "../../src/engines/webllm-cache.ts";
import type { LlmHandler } from "../../workers/llm-worker-core.ts";
import type { WebLLMErrors } from "./webllm-classes.ts";

/** web-llm's emptyThinkingBlockStr (LLMChatPipeline.forwardPrefill). */
export const THINK_PREFIX = "<think>\n\n</think>\n\n";
const STOP = -1;
const SPECIAL = /<\|im_start\|>|<\|im_end\|>|<\/?think>/y;
const PIECE = /\s?[\p{L}\p{N}]{1,4}|\s?[^\s\p{L}\p{N}]|\s+/uy;

/** Deterministic tokenizer: ChatML markers and think tags are one token each; otherwise runs of at
 *  most 4 letters/digits (with one leading space), single symbols, and whitespace runs. About 3
 *  characters per token on JSON, close to real BPE on such text. decode(encode(s)) === s. */
export class FakeTokenizer {
  private readonly pieces: string[] = [];
  private readonly ids = new Map<string, number>();

  encode(text: string): Int32Array {
    const out: number[] = [];
    for (let i = 0; i < text.length; ) {
      SPECIAL.lastIndex = i;
      PIECE.lastIndex = i;
      const m = SPECIAL.exec(text) ?? PIECE.exec(text);
      const piece = m ? m[0] : text[i]!;
      out.push(this.idOf(piece));
      i += piece.length;
    }
    return Int32Array.from(out);
  }

  decode(ids: ArrayLike<number>): string {
    let s = "";
    for (let i = 0; i < ids.length; i++) s += this.pieces[ids[i]!] ?? "";
    return s;
  }

  private idOf(piece: string): number {
    let id = this.ids.get(piece);
    if (id === undefined) {
      id = this.pieces.push(piece) - 1;
      this.ids.set(piece, id);
    }
    return id;
  }
}

type Message = { role: string; content: string };
export type FakeScript = readonly string[] | ((messages: readonly Message[], turn: number) => string | undefined);

export interface FakeMLCEngineOptions {
  /** The model's successive replies (without any think block: web-llm adds that itself). */
  script: FakeScript;
  /** web-llm's own error classes (webllm-classes.ts). */
  errors: WebLLMErrors;
  /** context_window_size in the fake mlc-chat-config.json (a record's overrides win). Default 4096. */
  configContextWindow?: number;
  /** Milliseconds per decode step (default 0: only yields). */
  tokenDelayMs?: number;
  /** Send the usage chunk when the request asks for it (default true). */
  usageChunk?: boolean;
  /** Before each decode step, with the text so far (tests end the worker mid-stream here). */
  onDecode?: (textSoFar: string, step: number) => void;
  /** Whether web-llm's GPU detection finds a device (default true). */
  gpu?: boolean;
}

const enc = new TextEncoder();
/** The fake model's files: what web-llm fetches before the weights (config, library, tokenizer). */
export function fakeModelFiles(
  modelId: string,
  configContextWindow = 4096,
): { config: Uint8Array; modelLib: Uint8Array; tokenizer: Uint8Array } {
  const config = {
    model_type: "fake",
    context_window_size: configContextWindow,
    tokenizer_files: ["tokenizer.json"],
    conv_template: { name: "chatml" },
  };
  return {
    config: enc.encode(JSON.stringify(config)),
    modelLib: enc.encode(`fake model library for ${modelId}`),
    tokenizer: enc.encode(JSON.stringify({ model: { type: "fake", id: modelId } })),
  };
}

/** The SRI string web-llm's integrity field takes ("sha256-<base64>"). */
export async function sriOf(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.slice()));
  return `sha256-${btoa(String.fromCharCode(...digest))}`;
}

class Lock {
  private tail = Promise.resolve();
  async acquire(): Promise<() => void> {
    let release!: () => void;
    const prev = this.tail;
    this.tail = new Promise((r) => (release = r));
    await prev;
    return release;
  }
}

interface Loaded {
  modelId: string;
  window: number;
  /** The conversation as of the last round (its reply included), for KV-cache reuse. */
  conversation: { system: string | null; messages: Message[] } | undefined;
  filled: number;
  finishReason: string | undefined;
}

interface Round {
  outputIds: number[];
  message: string;
  stopped: boolean;
  finish: "stop" | "length" | "abort" | undefined;
  maxTokens: number;
  pending: number[];
  completionTokens: number;
  decodeTokens: number;
  promptTokens: number;
  prefillS: number;
  decodeS: number;
  reply: Message;
}

const render = (m: Message): string => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
const SUPPORTED_ROLES = new Set(["user", "assistant"]);

export class FakeMLCEngine {
  /** web-llm's field names (MLCEngine); Edge's worker code reads the tokenizer and config here. */
  readonly loadedModelIdToPipeline = new Map<string, { tokenizer: FakeTokenizer }>();
  readonly loadedModelIdToChatConfig = new Map<string, { context_window_size: number }>();
  /** Every chat completion request as the engine received it. */
  readonly requests: ChatCompletionRequest[] = [];
  /** Prompt tokens prefilled per generation (only the new ones when the KV cache was reused). */
  readonly prefills: number[] = [];
  reloads = 0;
  unloads = 0;
  private appConfig: AppConfig | undefined;
  private progress: ((r: InitProgressReport) => void) | undefined;
  private loaded: Loaded | undefined;
  private interruptSignal = false;
  private turn = 0;
  private readonly lock = new Lock();
  private readonly tokenizer = new FakeTokenizer();

  constructor(private readonly options: FakeMLCEngineOptions) {}

  setInitProgressCallback(cb: (r: InitProgressReport) => void): void {
    this.progress = cb;
  }
  setAppConfig(appConfig: AppConfig): void {
    this.appConfig = appConfig;
  }
  setLogLevel(): void {}
  setLogitProcessorRegistry(): void {}

  async reload(modelId: string | string[], chatOpts?: ChatOptions | ChatOptions[]): Promise<void> {
    await this.unload();
    const id = Array.isArray(modelId) ? modelId[0]! : modelId;
    const opts = Array.isArray(chatOpts) ? chatOpts[0] : chatOpts;
    const record = this.appConfig?.model_list.find((r) => r.model_id === id);
    if (!record) throw new this.options.errors.ModelNotFoundError(id);
    this.reloads++;
    const files = fakeModelFiles(id, this.options.configContextWindow);
    const base = modelBaseUrl(record.model, globalThis.location?.href ?? "http://localhost/");
    this.report(0, "Start to fetch params");
    await this.fetched(
      "webllm/config",
      new URL("mlc-chat-config.json", base).href,
      files.config,
      record.integrity?.config,
      record,
    );
    await this.fetched("webllm/wasm", record.model_lib, files.modelLib, record.integrity?.model_lib, record);
    if (this.options.gpu === false) throw new this.options.errors.WebGPUNotAvailableError();
    await this.fetched(
      "webllm/model",
      new URL("tokenizer.json", base).href,
      files.tokenizer,
      record.integrity?.tokenizer?.["tokenizer.json"],
      record,
    );
    this.report(0.5, "Fetching param cache[1/1]: 1MB fetched. 100% completed, 0 secs elapsed.");
    this.report(1, "Loading model from cache[1/1]: 1MB loaded. 100% completed, 0 secs elapsed.");
    const config = { ...JSON.parse(new TextDecoder().decode(files.config)), ...record.overrides, ...opts } as {
      context_window_size: number;
    };
    this.loadedModelIdToChatConfig.set(id, config);
    this.loadedModelIdToPipeline.set(id, { tokenizer: this.tokenizer });
    this.loaded = {
      modelId: id,
      window: config.context_window_size,
      conversation: undefined,
      filled: 0,
      finishReason: undefined,
    };
    this.report(1, "Finish loading on WebGPU - fake adapter");
  }

  async unload(): Promise<void> {
    if (this.loaded) this.unloads++;
    this.loaded = undefined;
    this.loadedModelIdToPipeline.clear();
    this.loadedModelIdToChatConfig.clear();
  }

  async interruptGenerate(): Promise<void> {
    this.interruptSignal = true;
  }

  async resetChat(): Promise<void> {
    if (this.loaded) Object.assign(this.loaded, { conversation: undefined, filled: 0, finishReason: undefined });
  }

  async chatCompletion(request: ChatCompletionRequest): Promise<AsyncGenerator<ChatCompletionChunk>> {
    const loaded = this.loaded;
    if (!loaded) throw new this.options.errors.ModelNotLoadedError("ChatCompletionRequest");
    postInitAndCheckFieldsChatCompletion(request, loaded.modelId, ModelType.LLM);
    if (!request.stream)
      throw new Error("The fake MLCEngine models streaming requests only (WebLLMEngine always streams).");
    this.requests.push(request);
    return this.generate(request, loaded);
  }

  private async *generate(request: ChatCompletionRequest, loaded: Loaded): AsyncGenerator<ChatCompletionChunk> {
    const release = await this.lock.acquire();
    let round: Round | undefined;
    try {
      // An interrupt applies only to the request that was running when it was raised.
      this.interruptSignal = false;
      const started = performance.now();
      round = this.prefill(request, loaded);
      const state = { id: `fake-${this.turn}`, created: Math.floor(Date.now() / 1000), prev: 0 };
      yield this.delta(request, loaded, round, state);
      while (!round.stopped) {
        if (this.interruptSignal) {
          this.stop(round, loaded, "abort");
          break;
        }
        await this.decode(round, loaded);
        yield this.delta(request, loaded, round, state);
      }
      yield {
        id: state.id,
        choices: [{ delta: {}, finish_reason: round.finish!, index: 0 }],
        model: loaded.modelId,
        object: "chat.completion.chunk",
        created: state.created,
      } as ChatCompletionChunk;
      if (request.stream_options?.include_usage === true && this.options.usageChunk !== false) {
        yield this.usage(request, loaded, round, state, started);
      }
    } finally {
      if (round && !round.stopped) this.stop(round, loaded, "abort");
      release();
    }
  }

  private prefill(request: ChatCompletionRequest, loaded: Loaded): Round {
    const t0 = performance.now();
    const msgs = request.messages.map((m) => ({ role: m.role, content: String(m.content) }));
    const system = msgs[0]?.role === "system" ? msgs[0].content : null;
    const history = msgs.slice(system === null ? 0 : 1, -1);
    const last = msgs.at(-1)!;
    for (const m of [...history, last]) {
      if (!SUPPORTED_ROLES.has(m.role)) throw Error("Role is not supported: " + m.role);
    }
    const prev = loaded.conversation;
    const reuse =
      prev !== undefined &&
      loaded.finishReason !== "abort" &&
      loaded.finishReason !== "length" &&
      prev.system === system &&
      prev.messages.length === history.length &&
      prev.messages.every((m, i) => m.role === history[i]!.role && m.content === history[i]!.content);
    const noThink = request.extra_body?.enable_thinking === false;
    const header = `<|im_start|>assistant\n${noThink ? THINK_PREFIX : ""}`;
    const text = reuse
      ? `<|im_end|>\n${render(last)}${header}`
      : `${render({ role: "system", content: system ?? "You are a helpful assistant." })}${history.map(render).join("")}${render(last)}${header}`;
    if (!reuse) {
      loaded.filled = 0;
      loaded.conversation = undefined;
    }
    const promptTokens = this.tokenizer.encode(text).length;
    if (promptTokens + loaded.filled > loaded.window) {
      loaded.conversation = undefined;
      throw new this.options.errors.ContextWindowSizeExceededError(promptTokens, loaded.window);
    }
    loaded.filled += promptTokens;
    this.prefills.push(promptTokens);
    const reply = this.nextReply(msgs);
    const round: Round = {
      outputIds: noThink ? Array.from(this.tokenizer.encode(THINK_PREFIX)) : [],
      message: "",
      stopped: false,
      finish: undefined,
      maxTokens: request.max_tokens ?? Infinity,
      pending: [...Array.from(this.tokenizer.encode(reply)), STOP],
      completionTokens: 0,
      decodeTokens: 0,
      promptTokens,
      prefillS: 0,
      decodeS: 0,
      reply: { role: "assistant", content: "" },
    };
    loaded.conversation = { system, messages: [...history, last, round.reply] };
    this.sample(round, loaded);
    round.prefillS = (performance.now() - t0) / 1000;
    return round;
  }

  private nextReply(messages: readonly Message[]): string {
    const turn = this.turn++;
    const script = this.options.script;
    const out = typeof script === "function" ? script(messages, turn) : script[turn];
    if (typeof out !== "string") throw new Error(`The fake model has no scripted reply for generation ${turn + 1}.`);
    return out;
  }

  /** LLMChatPipeline.processNextToken for the next scripted token. */
  private sample(round: Round, loaded: Loaded): void {
    const token = round.pending.shift() ?? STOP;
    round.completionTokens++;
    if (token === STOP) {
      round.stopped = true;
      round.finish = "stop";
    } else round.outputIds.push(token);
    round.message = this.tokenizer.decode(round.outputIds);
    // web-llm checks both limits after the stop token too (stop conditions 3 and 4).
    if (round.outputIds.length >= round.maxTokens) {
      round.stopped = true;
      round.finish = "length";
    }
    if (loaded.filled === loaded.window) {
      round.stopped = true;
      round.finish = "length";
    }
    if (round.stopped) this.finishReply(round, loaded);
  }

  private async decode(round: Round, loaded: Loaded): Promise<void> {
    const t0 = performance.now();
    this.options.onDecode?.(round.message, round.decodeTokens);
    const ms = this.options.tokenDelayMs ?? 0;
    await new Promise((r) => setTimeout(r, ms));
    loaded.filled += 1;
    round.decodeTokens++;
    this.sample(round, loaded);
    round.decodeS += (performance.now() - t0) / 1000;
  }

  private stop(round: Round, loaded: Loaded, finish: "abort"): void {
    round.stopped = true;
    round.finish = finish;
    this.finishReply(round, loaded);
  }

  private finishReply(round: Round, loaded: Loaded): void {
    round.reply.content = round.message;
    loaded.finishReason = round.finish;
  }

  private delta(
    request: ChatCompletionRequest,
    loaded: Loaded,
    round: Round,
    state: { id: string; created: number; prev: number },
  ): ChatCompletionChunk {
    const delta = round.message.slice(state.prev);
    state.prev = round.message.length;
    return {
      id: state.id,
      choices: [
        {
          delta: { content: delta, role: "assistant" },
          finish_reason: null,
          index: 0,
          logprobs: request.logprobs ? { content: [] } : null,
        },
      ],
      model: loaded.modelId,
      object: "chat.completion.chunk",
      created: state.created,
    } as ChatCompletionChunk;
  }

  private usage(
    request: ChatCompletionRequest,
    loaded: Loaded,
    round: Round,
    state: { id: string; created: number },
    started: number,
  ): ChatCompletionChunk {
    const usedGrammar = request.response_format?.type === "grammar" || request.response_format?.type === "json_object";
    const extra = {
      e2e_latency_s: (performance.now() - started) / 1000,
      prefill_tokens_per_s: round.promptTokens / Math.max(round.prefillS, 1e-6),
      decode_tokens_per_s: round.decodeS > 0 ? round.decodeTokens / round.decodeS : 0,
      time_to_first_token_s: round.prefillS,
      time_per_output_token_s: round.decodeTokens > 0 ? round.decodeS / round.decodeTokens : 0,
      latencyBreakdown: undefined,
      ...(usedGrammar ? { grammar_init_s: 0, grammar_per_token_s: 0 } : {}),
    };
    return {
      id: state.id,
      choices: [],
      usage: {
        completion_tokens: round.completionTokens,
        prompt_tokens: round.promptTokens,
        total_tokens: round.completionTokens + round.promptTokens,
        extra,
      },
      model: loaded.modelId,
      object: "chat.completion.chunk",
      created: state.created,
    } as ChatCompletionChunk;
  }

  private report(progress: number, text: string): void {
    this.progress?.({ progress, timeElapsed: 0, text });
  }

  /** fetchWithCache (the file is cached before it is checked), then verifyIntegrity. */
  private async fetched(
    scope: string,
    url: string,
    bytes: Uint8Array,
    sri: string | undefined,
    record: ModelRecord,
  ): Promise<void> {
    if (typeof caches !== "undefined" && (this.appConfig?.cacheBackend ?? "cache") === "cache") {
      await (await caches.open(scope)).put(url, new Response(bytes.slice()));
    }
    if (sri) await verifyIntegrity(bytes.slice().buffer, sri, url, record.integrity?.onFailure);
  }
}

/** web-llm's own worker handler with the fake as its engine (the handler's `engine` is a public
 *  field it creates itself; its progress callback is re-attached to the fake). */
export function handlerWith(engine: FakeMLCEngine): LlmHandler {
  const handler = new WebWorkerMLCEngineHandler();
  (handler as { engine: unknown }).engine = engine;
  engine.setInitProgressCallback((content) => handler.postMessage({ kind: "initProgressCallback", uuid: "", content }));
  return handler as LlmHandler;
}

/** What the worker's WebGPU probe reports in tests: a GPU with shader-f16 (none exists here). */
export const FAKE_GPU: WebGPUProbe = {
  available: true,
  shaderF16: true,
  features: ["shader-f16"],
  adapter: { vendor: "fake", architecture: "test", description: "fake adapter (tests)", isFallbackAdapter: false },
};
