// WebLLMEngine: the real engine. @mlc-ai/web-llm runs in a module worker (workers/llm.worker.ts);
// the page drives it with web-llm's own client. web-llm is ~6 MB on each side and does not
// tree-shake, so it is only ever reached through dynamic import() — importing this file costs
// nothing until load() or listModels() is called. Only type imports of web-llm appear here.
import type {
  AppConfig,
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionRequestStreaming,
  ChatOptions,
  InitProgressReport,
  ModelRecord,
  WebWorkerMLCEngine,
} from "@mlc-ai/web-llm";
import { EdgeError } from "../contract/errors.ts";
import {
  abortedError,
  validateMessages,
  type ChatRequest,
  type ChatResult,
  type ChatUsage,
  type Engine,
  type EngineInfo,
  type ModelFingerprint,
  type ProgressListener,
} from "./engine.ts";
import { fingerprintOf, listModelOptions, resolveModel, type ModelOption } from "./models.ts";
import { ProgressMapper } from "./progress.ts";
import { isLlmWorkerMessage, type LlmWorkerMessage } from "./protocol.ts";
import { mapWebLLMError } from "./webllm-errors.ts";
import { probeWebGPU, webgpuUnavailableError, type WebGPUProbe } from "./webgpu.ts";
import { raceSignal } from "../contract/abort.ts";

type WebLLM = typeof import("@mlc-ai/web-llm");

/** Lazy, shared import of web-llm on the page. */
let webllmModule: Promise<WebLLM> | undefined;
export function importWebLLM(): Promise<WebLLM> {
  webllmModule ??= import("@mlc-ai/web-llm");
  return webllmModule;
}

export interface WebLLMEngineOptions {
  /** A model id from the model list; default: the best small JSON-capable model this GPU runs. */
  modelId?: string;
  /** Custom model list (self-hosted or offline weights). Default: web-llm's prebuiltAppConfig. */
  appConfig?: AppConfig;
  /** Where web-llm caches weights for offline reuse (default "cache" = Cache API). Applied only
   *  when appConfig does not set its own cacheBackend. */
  cacheBackend?: "cache" | "indexeddb";
  /** Per-model overrides passed to reload() (e.g. context_window_size). */
  chatOptions?: ChatOptions;
  /** How "tool" messages reach the model. Most MLC conversation templates (Qwen2.5 among them)
   *  define no tool role, and web-llm then fails with "Role is not supported: tool"; "user" sends
   *  the tool result as a user turn, with the loop's own wording. Default "user". */
  toolRole?: "user" | "tool";
  /** Start the llm worker (override for custom builds). */
  createWorker?: () => Worker;
}

export function createLlmWorker(): Worker {
  return new Worker(new URL("../../workers/llm.worker.ts", import.meta.url), { type: "module", name: "edge-llm" });
}

/** The app config load() would use: the given one, or web-llm's prebuilt list. */
export async function resolveAppConfig(options: Pick<WebLLMEngineOptions, "appConfig" | "cacheBackend"> = {}): Promise<AppConfig> {
  const base = options.appConfig ?? (await importWebLLM()).prebuiltAppConfig;
  return { ...base, cacheBackend: base.cacheBackend ?? options.cacheBackend ?? "cache" };
}

/** Rows for the UI's model picker; with `adapter` (or after probing the page's GPU when
 *  `probe: true`) each row says whether this GPU can run it and which one is recommended. */
export async function listModels(
  options: Pick<WebLLMEngineOptions, "appConfig"> & { probe?: boolean; shaderF16?: boolean } = {},
): Promise<ModelOption[]> {
  const appConfig = await resolveAppConfig(options);
  let shaderF16 = options.shaderF16;
  if (shaderF16 === undefined && options.probe) {
    const probe = await probeWebGPU();
    if (probe.available) shaderF16 = probe.shaderF16;
  }
  return listModelOptions(appConfig.model_list, shaderF16 === undefined ? undefined : { shaderF16 });
}

/** Whether web-llm's cache already holds this model (so it loads offline). */
export async function isModelCached(modelId: string, appConfig?: AppConfig): Promise<boolean> {
  const webllm = await importWebLLM();
  return webllm.hasModelInCache(modelId, await resolveAppConfig({ appConfig }));
}

/** Remove a model's weights, library and config from web-llm's cache. */
export async function deleteCachedModel(modelId: string, appConfig?: AppConfig): Promise<void> {
  const webllm = await importWebLLM();
  await webllm.deleteModelAllInfoInCache(modelId, await resolveAppConfig({ appConfig }));
}

/** Routes our "edge.*" worker messages to us and everything else to web-llm's client. */
class WorkerBridge {
  /** web-llm's WebWorkerMLCEngine assigns this. */
  onmessage: ((ev: MessageEvent) => void) | null = null;
  private readonly waiters = new Map<LlmWorkerMessage["kind"], Array<(m: LlmWorkerMessage) => void>>();
  private readonly seen = new Map<LlmWorkerMessage["kind"], LlmWorkerMessage>();
  private failure: ((e: EdgeError) => void)[] = [];

  constructor(readonly worker: Worker) {
    worker.onmessage = (ev: MessageEvent) => {
      if (isLlmWorkerMessage(ev.data)) this.deliver(ev.data);
      else this.onmessage?.(ev);
    };
    worker.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      this.fail(
        new EdgeError(
          "model_load_failed",
          { original: ev.message || "worker error event", stage: "worker" },
          `The llm worker failed: ${ev.message || "it could not be started (script failed to load)"}.`,
        ),
      );
    };
  }

  postMessage(message: unknown): void {
    this.worker.postMessage(message);
  }

  /** Resolve with the first message of this kind (already received or coming). */
  next<K extends LlmWorkerMessage["kind"]>(kind: K): Promise<Extract<LlmWorkerMessage, { kind: K }>> {
    return new Promise((resolve, reject) => {
      this.failure.push(reject);
      const got = this.seen.get(kind);
      if (got) return resolve(got as Extract<LlmWorkerMessage, { kind: K }>);
      const list = this.waiters.get(kind) ?? [];
      list.push(resolve as (m: LlmWorkerMessage) => void);
      this.waiters.set(kind, list);
    });
  }

  /** Reject every pending next() (worker error, fatal message, or termination). */
  fail(e: EdgeError): void {
    for (const reject of this.failure.splice(0)) reject(e);
  }

  private deliver(m: LlmWorkerMessage): void {
    if (m.kind === "edge.fatal") {
      this.fail(new EdgeError("model_load_failed", { original: m.message, stage: "worker" }));
      return;
    }
    this.seen.set(m.kind, m);
    for (const resolve of this.waiters.get(m.kind)?.splice(0) ?? []) resolve(m);
  }
}

export class WebLLMEngine implements Engine {
  private worker: Worker | undefined;
  private bridge: WorkerBridge | undefined;
  private engine: WebWorkerMLCEngine | undefined;
  private record: ModelRecord | undefined;
  private fingerprint: ModelFingerprint | undefined;
  private workerProbe: WebGPUProbe | undefined;
  private loading: Promise<void> | undefined;
  private loadController: AbortController | undefined;
  private generation: AbortController | undefined;

  constructor(private readonly options: WebLLMEngineOptions = {}) {}

  info(): EngineInfo {
    const modelId = this.record?.model_id ?? this.options.modelId ?? "auto";
    const info: EngineInfo = {
      kind: "webllm",
      modelId,
      label: `${modelId} (web-llm, WebGPU${this.workerProbe?.available && this.workerProbe.adapter.isFallbackAdapter ? " fallback adapter" : ""})`,
    };
    if (this.fingerprint) info.fingerprint = this.fingerprint;
    return info;
  }

  /** What the worker's WebGPU probe found during the last load (undefined before). */
  get gpu(): WebGPUProbe | undefined {
    return this.workerProbe;
  }

  get loaded(): boolean {
    return this.engine !== undefined;
  }

  load(onProgress?: ProgressListener, signal?: AbortSignal): Promise<void> {
    if (this.engine) return Promise.resolve();
    if (this.loading) return this.loading;
    const controller = new AbortController();
    this.loadController = controller;
    const onOuter = () => controller.abort();
    signal?.addEventListener("abort", onOuter, { once: true });
    if (signal?.aborted) controller.abort();
    this.loading = this.doLoad(onProgress, controller.signal)
      .catch((e: unknown) => {
        this.teardown();
        throw mapWebLLMError(e, "load");
      })
      .finally(() => {
        signal?.removeEventListener("abort", onOuter);
        this.loading = undefined;
        this.loadController = undefined;
      });
    return this.loading;
  }

  private async doLoad(onProgress: ProgressListener | undefined, signal: AbortSignal): Promise<void> {
    const aborted = () => new EdgeError("aborted", { stage: "load" });
    const worker = (this.options.createWorker ?? createLlmWorker)();
    const bridge = new WorkerBridge(worker);
    this.worker = worker;
    this.bridge = bridge;

    // 1. The worker probes WebGPU where web-llm will run, before anything is downloaded.
    const hello = await raceSignal(bridge.next("edge.hello"), signal, aborted);
    this.workerProbe = hello.probe;
    if (!hello.probe.available) throw webgpuUnavailableError(hello.probe, "worker");
    const adapter = { shaderF16: hello.probe.shaderF16 };

    // 2. Model choice (page side needs the model list; web-llm's page half loads meanwhile).
    const [webllm] = await raceSignal(Promise.all([importWebLLM(), bridge.next("edge.ready")]), signal, aborted);
    const appConfig = await resolveAppConfig(this.options);
    const record = resolveModel(appConfig.model_list, this.options.modelId, adapter);
    this.record = record;
    this.fingerprint = fingerprintOf(record, webllm.modelVersion);

    // 3. web-llm downloads (or reads its cache), checks the GPU features, and compiles.
    const progress = new ProgressMapper();
    const engine = await raceSignal(
      webllm.CreateWebWorkerMLCEngine(
        bridge,
        record.model_id,
        {
          appConfig,
          initProgressCallback: (report: InitProgressReport) => onProgress?.(progress.map(report)),
        },
        this.options.chatOptions,
      ),
      signal,
      aborted,
    );
    this.engine = engine;
    onProgress?.({ progress: 1, text: `Model ${record.model_id} is ready.`, phase: "ready" });
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    const engine = this.engine;
    if (!engine) throw new EdgeError("engine_not_loaded");
    validateMessages(request.messages);
    if (this.generation) {
      throw new EdgeError("generation_failed", {}, "A generation is already running on this engine; await it or abort() it first.");
    }
    const controller = new AbortController();
    this.generation = controller;
    const onOuter = () => controller.abort();
    request.signal?.addEventListener("abort", onOuter, { once: true });
    const interrupt = () => engine.interruptGenerate();
    controller.signal.addEventListener("abort", interrupt, { once: true });
    let text = "";
    try {
      if (request.signal?.aborted) throw abortedError();
      const toolRole = this.options.toolRole ?? "user";
      const messages = request.messages.map((m): ChatCompletionMessageParam => {
        if (m.role === "tool") {
          return toolRole === "tool" ? { role: "tool", content: m.content, tool_call_id: "edge" } : { role: "user", content: m.content };
        }
        return { role: m.role, content: m.content } as ChatCompletionMessageParam;
      });
      const body: ChatCompletionRequestStreaming = {
        messages,
        stream: true,
        stream_options: { include_usage: true },
      };
      if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
      if (request.temperature !== undefined) body.temperature = request.temperature;
      if (request.responseFormat) body.response_format = request.responseFormat as ChatCompletionRequestStreaming["response_format"];
      // Qwen3 thinks aloud by default; a tool call must be the whole reply, so turn it off.
      if (this.record?.model_id.startsWith("Qwen3")) body.extra_body = { enable_thinking: false };

      const stream = await engine.chat.completions.create(body);
      let finish: string | null | undefined;
      let usage: ChatUsage | undefined;
      for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
        const choice = chunk.choices[0];
        const delta = choice?.delta?.content;
        if (delta) {
          text += delta;
          request.onToken?.(delta);
        }
        if (choice?.finish_reason) finish = choice.finish_reason;
        if (chunk.usage) usage = usageOf(chunk.usage);
      }
      if (controller.signal.aborted || finish === "abort") throw abortedError({ partialText: text });
      const result: ChatResult = { text, finishReason: finish === "length" ? "length" : "stop" };
      if (usage) result.usage = usage;
      return result;
    } catch (e) {
      if (controller.signal.aborted) throw abortedError({ partialText: text });
      throw mapWebLLMError(e, "chat");
    } finally {
      request.signal?.removeEventListener("abort", onOuter);
      controller.signal.removeEventListener("abort", interrupt);
      this.generation = undefined;
    }
  }

  abort(): void {
    this.generation?.abort();
    this.loadController?.abort();
  }

  async unload(): Promise<void> {
    this.abort();
    const engine = this.engine;
    this.engine = undefined;
    if (engine) {
      try {
        await engine.unload();
      } catch {
        // The worker is terminated next; whatever failed in unload dies with it.
      }
    }
    this.teardown();
    this.record = undefined;
    this.fingerprint = undefined;
  }

  private teardown(): void {
    this.engine = undefined;
    this.bridge?.fail(new EdgeError("aborted", { stage: "load" }));
    this.bridge = undefined;
    this.worker?.terminate();
    this.worker = undefined;
  }
}

function usageOf(u: NonNullable<ChatCompletionChunk["usage"]>): ChatUsage {
  const out: ChatUsage = {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    totalTokens: u.total_tokens,
  };
  if (u.extra) {
    out.prefillTokensPerS = u.extra.prefill_tokens_per_s;
    out.decodeTokensPerS = u.extra.decode_tokens_per_s;
    if (u.extra.grammar_init_s !== undefined) out.grammarInitS = u.extra.grammar_init_s;
    if (u.extra.grammar_per_token_s !== undefined) out.grammarPerTokenS = u.extra.grammar_per_token_s;
  }
  return out;
}
