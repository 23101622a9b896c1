// The llama.cpp worker's side (runs inside workers/llamacpp.worker.ts): wllama 3.13 — llama.cpp's
// server core compiled to WebAssembly — holding one model. It gets the model's bytes (the stored
// copy, a download into the store, or a file from disk), checks them (GGUF header, sha256 against
// the pin), loads them, and generates with the model's own chat template, a GBNF grammar, and the
// server core's prompt cache (`cache_prompt`: a follow-up evaluates only its new tokens, and the
// timings say how many).
import { CacheManager, Wllama } from "@wllama/wllama";
import wllamaPackage from "@wllama/wllama/package.json";
import { EdgeError } from "../../../contract/errors.ts";
import { raceSignal } from "../../../contract/abort.ts";
import { loadAbortedError, type LoadProgress } from "../../engine.ts";
import type { GenerateRequest, GenerateResult } from "../backend.ts";
import { modelIdOf } from "../engine.ts";
import { readGgufSummary, type GgufSummary } from "../gguf.ts";
import { integrityError, pinHex } from "../download.ts";
import { blobBytes, downloadModel, hashBlob, modelStorage, storedModel } from "./model-store.ts";
import { prefixWarmer, type ProbeTimings } from "./prefix-warm.ts";
import { defaultThreads } from "./threads.ts";
import { completionError, errorLog } from "./worker-errors.ts";
import type { LlamaWorkerApi, WorkerLoaded, WorkerModelSource } from "./protocol.ts";

/** The worker's own API: the protocol's, with the text as a callback (the worker entry puts it
 *  on the port). */
export type LlamaWorkerCore = Omit<LlamaWorkerApi, "generate"> & {
  generate(request: GenerateRequest, onText: (delta: string) => void): Promise<GenerateResult>;
};

export interface WllamaAssets {
  /** URL of wllama.wasm, served from the app's own origin. */
  wasm: string;
  /** wllama's compat build (browsers without JSPI or Memory64, e.g. Safari), same origin. */
  compat?: { worker: string; wasm: string };
}

const RUNTIME = `wllama ${wllamaPackage.version}`;
/** Templates that can think (Qwen3) render their non-thinking generation prompt; others ignore it. */
const NON_THINKING = { enable_thinking: false };

/** wllama's own cache (for its URL downloads) is never used: Edge hands it checked bytes. Its
 *  default looks for OPFS and throws where there is none ("No supported storage backend found"),
 *  even for a Blob; this one is always there and stores nothing. */
type StorageBackend = NonNullable<ConstructorParameters<typeof CacheManager>[0]>[number];
const refuse = (): never => {
  throw new Error("Edge keeps models in its own store; wllama's cache is not used");
};
const NO_STORAGE: StorageBackend = { isSupported: () => true, read: async () => null, write: async () => refuse(), getSize: async () => -1, list: async () => [], delete: async () => undefined };
const mb = (n: number) => (n / 1e6).toFixed(1);

interface ModelBytes {
  file: Blob;
  sha: string;
  summary: GgufSummary;
}

/** The model's checked bytes: download progress fills 0–0.7 of the bar. */
async function modelBytes(source: WorkerModelSource, name: string, onProgress: (p: LoadProgress) => void, signal: AbortSignal): Promise<ModelBytes> {
  const pin = pinHex(source.sha256);
  if (source.kind === "url") {
    const stored = await storedModel(source.url, pin);
    if (stored) {
      onProgress({ progress: 0.7, text: `Using the stored copy of ${name} (${mb(stored.meta.size)} MB).`, phase: "download" });
      return { file: stored.file, sha: stored.meta.sha256, summary: await readGgufSummary(blobBytes(stored.file), name) };
    }
    const storage = await modelStorage();
    const keeps = storage === "none" ? " (not stored: this browser cannot keep it here)" : "";
    const got = await downloadModel(
      source.url,
      name,
      pin,
      (p) => onProgress({ progress: p.total ? 0.7 * (p.loaded / p.total) : 0, text: `Downloading ${name}: ${mb(p.loaded)} of ${p.total ? mb(p.total) : "?"} MB${keeps}`, phase: "download" }),
      signal,
    );
    return { file: got.file, sha: got.meta.sha256, summary: got.summary };
  }
  const summary = await readGgufSummary(blobBytes(source.blob), name);
  const sha = await hashBlob(source.blob, (p) => onProgress({ progress: 0.7 * (p.loaded / p.total), text: `Checking ${name} (sha256)`, phase: "download" }), signal);
  if (pin && pin !== sha) throw integrityError(name, pin, sha);
  return { file: source.blob, sha, summary };
}

type Log = ReturnType<typeof errorLog>;
type LoadOptions = Parameters<LlamaWorkerCore["load"]>[1];

/** A new wllama holding the checked bytes, or model_load_failed / aborted. */
async function loadWllama(assets: WllamaAssets, bytes: ModelBytes, name: string, options: LoadOptions, log: Log, signal: AbortSignal, onProgress: (p: LoadProgress) => void): Promise<Wllama> {
  const threads = options.threads ?? defaultThreads({ cores: navigator.hardwareConcurrency || 1, isolated: globalThis.crossOriginIsolated === true, modelBytes: bytes.file.size });
  onProgress({ progress: 0.75, text: `Loading ${name} into llama.cpp (${options.webgpu ? "WebGPU" : `CPU, ${threads} thread${threads > 1 ? "s" : ""}`})…`, phase: "compile" });
  const w = new Wllama({ default: assets.wasm }, { suppressNativeLog: false, logger: log.logger as Console, cacheManager: new CacheManager([NO_STORAGE]) });
  w.setCompat(assets.compat ?? null);
  try {
    await raceSignal(
      w.loadModel([bytes.file], {
        n_ctx: Math.min(options.contextSize, bytes.summary.contextLength ?? options.contextSize),
        n_threads: threads,
        n_parallel: 1,
        n_gpu_layers: options.webgpu ? 999 : 0,
      }),
      signal,
      loadAbortedError,
    );
  } catch (e) {
    if (e instanceof EdgeError) throw e;
    throw new EdgeError("model_load_failed", { model: name, original: String(e) }, `llama.cpp could not load ${name}: ${(e as Error).message}`);
  }
  return w;
}

/** One streamed completion with the model's template, the grammar and the prompt cache. */
async function generateWith(w: Wllama, request: GenerateRequest, onText: (delta: string) => void, log: Log, controller: AbortController): Promise<GenerateResult> {
  const start = performance.now();
  let first: number | undefined;
  let text = "";
  let finishReason: GenerateResult["finishReason"] = "stop";
  let timings: { cache_n: number; prompt_n: number; prompt_ms: number; predicted_n: number; predicted_ms: number } | undefined;
  const mark = log.mark();
  try {
    await w.createChatCompletion({
      messages: request.messages,
      stream: true,
      onData: (chunk) => {
        const choice = chunk.choices[0];
        const delta = choice?.delta?.content;
        if (delta) {
          first ??= performance.now();
          text += delta;
          onText(delta);
        }
        if (choice?.finish_reason === "length") finishReason = "length";
        if (chunk.timings) timings = chunk.timings;
      },
      ...(request.grammar !== undefined ? { grammar: request.grammar } : {}),
      // Non-thinking mode, as in Node (../chat-template.ts): a tool call must be the whole reply.
      chat_template_kwargs: NON_THINKING,
      temperature: request.temperature,
      seed: request.seed,
      max_tokens: request.maxTokens ?? request.defaultMaxTokens,
      cache_prompt: true,
      abortSignal: controller.signal,
    });
  } catch (e) {
    // An abort ends the stream early: the engine reports it (with the partial text).
    const failed = completionError(e, controller.signal, log.since(mark));
    if (failed) throw failed;
  }
  const end = performance.now();
  first ??= end;
  return {
    text,
    finishReason,
    promptTokens: timings ? timings.cache_n + timings.prompt_n : 0,
    promptTokensEvaluated: timings?.prompt_n ?? 0,
    completionTokens: timings?.predicted_n ?? 0,
    timeToFirstTokenMs: first - start,
    promptMs: timings?.prompt_ms ?? first - start,
    decodeMs: timings?.predicted_ms ?? end - first,
  };
}

/** A cached completion that generates one token, for its timings (prefix-warm.ts). */
async function probe(w: Wllama, messages: GenerateRequest["messages"], log: Log, controller: AbortController): Promise<ProbeTimings> {
  let timings: ProbeTimings | undefined;
  const mark = log.mark();
  try {
    await w.createChatCompletion({ messages, stream: true, onData: (chunk) => void (chunk.timings && (timings = chunk.timings)), max_tokens: 1, temperature: 0, cache_prompt: true, chat_template_kwargs: NON_THINKING, abortSignal: controller.signal });
  } catch (e) {
    throw completionError(e, controller.signal, log.since(mark)) ?? new EdgeError("aborted", { stage: "warm_prefix" });
  }
  if (controller.signal.aborted) throw new EdgeError("aborted", { stage: "warm_prefix" });
  if (!timings) throw new EdgeError("generation_failed", {}, "llama.cpp reported no timings for the conversation start, so its cache could not be measured.");
  return timings;
}

/** The worker's state: one wllama, the controller of what runs now (abort() stops it), the warmer. */
export function createLlamaWorkerApi(assets: WllamaAssets): LlamaWorkerCore {
  let wllama: Wllama | undefined;
  let current: AbortController | undefined;
  let warm: ReturnType<typeof prefixWarmer> | undefined;
  const log = errorLog();
  const next = (): AbortController => (current = new AbortController());

  return {
    async load(source, options, onProgress) {
      const controller = next();
      const name = modelIdOf(source);
      const bytes = await modelBytes(source, name, onProgress, controller.signal);
      const w = await loadWllama(assets, bytes, name, options, log, controller.signal, onProgress);
      wllama = w;
      warm = prefixWarmer((messages) => probe(w, messages, log, next()), () => w.getLoadedContextInfo().n_ctx);
      const loaded: WorkerLoaded = {
        model: { id: name, sha256: `sha256:${bytes.sha}`, size: bytes.file.size, summary: bytes.summary },
        runtime: `${RUNTIME} (llama.cpp ${Wllama.getLibllamaVersion()})`,
        device: options.webgpu ? "WebGPU" : "CPU",
        contextWindow: w.getLoadedContextInfo().n_ctx,
        // What wllama runs with: more than one only where SharedArrayBuffer can be shared.
        threads: w.getNumThreads(),
      };
      return loaded;
    },

    async generate(request, onText) {
      if (!wllama) throw new EdgeError("engine_not_loaded");
      return generateWith(wllama, request, onText, log, next());
    },

    async warmPrefix(messages) {
      if (!warm) throw new EdgeError("engine_not_loaded");
      return warm(messages);
    },

    abort() {
      current?.abort();
    },

    async unload() {
      current?.abort();
      const w = wllama;
      wllama = undefined;
      warm = undefined;
      await w?.exit();
    },
  };
}
