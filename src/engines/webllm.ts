// WebLLMEngine: the real engine. @mlc-ai/web-llm runs in a module worker (workers/llm.worker.ts);
// the page drives it with web-llm's own client. web-llm is ~6 MB on each side and does not
// tree-shake, so it is only ever reached through dynamic import() — importing this file costs
// nothing until load() or listModels() is called. Only type imports of web-llm appear here.
//
// The worker side is web-llm's WebWorkerMLCEngineHandler (workers/llm-worker-core.ts); tests run
// this class unchanged against it with a fake MLCEngine inside (test/engines/), through the
// `createWorker` option.
import type {
  AppConfig,
  ChatCompletionChunk,
  ChatOptions,
  InitProgressReport,
  ModelRecord,
  WebWorkerMLCEngine,
} from "@mlc-ai/web-llm";
import { EdgeError } from "../contract/errors.ts";
import { raceSignal } from "../contract/abort.ts";
import {
  abortedError,
  loadAbortedError,
  validateMessages,
  type ChatMessage,
  type ChatRequest,
  type ChatResult,
  type Engine,
  type EngineInfo,
  type ModelFingerprint,
  type ProgressListener,
} from "./engine.ts";
import { fingerprintOf, listModelOptions, resolveModel, type ModelOption } from "./models.ts";
import { withPinnedRecords } from "./pinned-models.ts";
import { ProgressMapper } from "./progress.ts";
import { answerBudget, withTemplateAllowance } from "./token-budget.ts";
import { WorkerBridge } from "./webllm-bridge.ts";
import { forgetUnverifiedFiles } from "./webllm-cache.ts";
import { mapWebLLMError } from "./webllm-errors.ts";
import { completionRequest, runCompletion } from "./webllm-stream.ts";
import { probeWebGPU, webgpuUnavailableError, type WebGPUProbe } from "./webgpu.ts";

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
  /** Custom model list (self-hosted or offline weights). Default: web-llm's prebuiltAppConfig with
   *  Edge's pinned records (exact revisions, SRI hashes) for the default models. */
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
  /** Start the llm worker (override for custom builds, and for tests). */
  createWorker?: () => Worker;
  /** Called once when the loaded model's worker or GPU device is lost: the generation in flight
   *  failed with `engine_lost` and the engine is unloaded; load() again to continue. */
  onLost?: (error: EdgeError) => void;
}

function createLlmWorker(): Worker {
  return new Worker(new URL("../../workers/llm.worker.ts", import.meta.url), { type: "module", name: "edge-llm" });
}

/** The app config load() would use: the given one, or web-llm's prebuilt list with Edge's pinned
 *  records for the default models. */
async function resolveAppConfig(
  options: Pick<WebLLMEngineOptions, "appConfig" | "cacheBackend"> = {},
): Promise<AppConfig> {
  const base = options.appConfig ?? withPinnedRecords((await importWebLLM()).prebuiltAppConfig);
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

export class WebLLMEngine implements Engine {
  private worker: Worker | undefined;
  private bridge: WorkerBridge | undefined;
  private client: WebWorkerMLCEngine | undefined;
  private record: ModelRecord | undefined;
  private fingerprint: ModelFingerprint | undefined;
  private contextWindow: number | undefined;
  private workerProbe: WebGPUProbe | undefined;
  private loading: Promise<void> | undefined;
  private loadController: AbortController | undefined;
  private generation: AbortController | undefined;
  /** Set when the worker or GPU was lost after loading; chat() refuses until load() runs again. */
  private lostError: EdgeError | undefined;
  /** Rejects when the engine is lost; every read of a generation races it. */
  private lost = lostGate();
  /** Content token counts by text (the contract and old turns are counted once). */
  private readonly tokenCache = new Map<string, number>();

  constructor(private readonly options: WebLLMEngineOptions = {}) {}

  info(): EngineInfo {
    const modelId = this.record?.model_id ?? this.options.modelId ?? "auto";
    const info: EngineInfo = {
      kind: "webllm",
      modelId,
      label: `${modelId} (web-llm, WebGPU${this.workerProbe?.available && this.workerProbe.adapter.isFallbackAdapter ? " fallback adapter" : ""})`,
    };
    if (this.fingerprint) info.fingerprint = this.fingerprint;
    if (this.contextWindow) info.contextWindow = this.contextWindow;
    return info;
  }

  /** What the worker's WebGPU probe found during the last load (undefined before). */
  get gpu(): WebGPUProbe | undefined {
    return this.workerProbe;
  }

  get loaded(): boolean {
    return this.client !== undefined;
  }

  load(onProgress?: ProgressListener, signal?: AbortSignal): Promise<void> {
    if (this.client) return Promise.resolve();
    if (this.loading) return this.loading;
    this.lostError = undefined;
    this.lost = lostGate();
    const controller = new AbortController();
    this.loadController = controller;
    const onOuter = () => controller.abort();
    signal?.addEventListener("abort", onOuter, { once: true });
    if (signal?.aborted) controller.abort();
    this.loading = this.doLoad(onProgress, controller.signal)
      .catch(async (e: unknown) => {
        this.teardown();
        const err = mapWebLLMError(e, "load");
        if (err.code === "model_integrity_failed" && this.record) {
          await forgetUnverifiedFiles(await importWebLLM(), this.record, await resolveAppConfig(this.options));
        }
        throw err;
      })
      .finally(() => {
        signal?.removeEventListener("abort", onOuter);
        this.loading = undefined;
        this.loadController = undefined;
      });
    return this.loading;
  }

  private async doLoad(onProgress: ProgressListener | undefined, signal: AbortSignal): Promise<void> {
    const worker = (this.options.createWorker ?? createLlmWorker)();
    const bridge = new WorkerBridge(worker, (e) => this.onLost(e));
    this.worker = worker;
    this.bridge = bridge;

    // 1. The worker probes WebGPU where web-llm will run, before anything is downloaded.
    const hello = await raceSignal(bridge.next("edge.hello"), signal, loadAbortedError);
    this.workerProbe = hello.probe;
    if (!hello.probe.available) throw webgpuUnavailableError(hello.probe, "worker");
    const adapter = { shaderF16: hello.probe.shaderF16 };

    // 2. Model choice (page side needs the model list; web-llm's page half loads meanwhile).
    const [webllm] = await raceSignal(
      Promise.all([importWebLLM(), bridge.next("edge.ready")]),
      signal,
      loadAbortedError,
    );
    const appConfig = await resolveAppConfig(this.options);
    const record = resolveModel(appConfig.model_list, this.options.modelId, adapter);
    this.record = record;
    this.fingerprint = fingerprintOf(record, webllm.modelVersion);

    // 3. web-llm downloads (or reads its cache), verifies pinned hashes, checks the GPU, compiles.
    const progress = new ProgressMapper();
    const client = await raceSignal(
      webllm.CreateWebWorkerMLCEngine(
        bridge,
        record.model_id,
        { appConfig, initProgressCallback: (report: InitProgressReport) => onProgress?.(progress.map(report)) },
        this.options.chatOptions,
      ),
      signal,
      loadAbortedError,
    );
    bridge.markLoaded();
    this.client = client;
    // 4. The context window: the merged config in the worker knows it; else the record's override.
    const configured = this.options.chatOptions?.context_window_size ?? record.overrides?.context_window_size;
    const fromWorker = await bridge.countTokens(record.model_id, []).then(
      (r) => r.contextWindow,
      () => undefined,
    );
    this.contextWindow = fromWorker ?? (configured && configured > 0 ? configured : undefined);
    onProgress?.({ progress: 1, text: `Model ${record.model_id} is ready.`, phase: "ready" });
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    if (this.lostError) throw this.lostError;
    const client = this.client;
    const record = this.record;
    if (!client || !record) throw new EdgeError("engine_not_loaded");
    validateMessages(request.messages);
    if (this.generation) {
      throw new EdgeError(
        "generation_failed",
        {},
        "A generation is already running on this engine; await it or abort() it first, then try again.",
      );
    }
    const controller = new AbortController();
    this.generation = controller;
    const onOuter = () => controller.abort();
    request.signal?.addEventListener("abort", onOuter, { once: true });
    // Stop tells the worker to end the generation; the page stops waiting at once either way.
    const interrupt = () => client.interruptGenerate();
    controller.signal.addEventListener("abort", interrupt, { once: true });
    const progress = { text: "" };
    try {
      if (request.signal?.aborted) throw abortedError();
      const body = completionRequest(request, {
        modelId: record.model_id,
        toolRole: this.options.toolRole ?? "user",
        maxTokens: answerBudget(this.contextWindow),
      });
      const create = () => client.chat.completions.create(body) as Promise<AsyncIterable<ChatCompletionChunk>>;
      return await runCompletion(
        create,
        { signal: controller.signal, lost: this.lost.promise, onToken: request.onToken, startedAt: performance.now() },
        progress,
      );
    } catch (e) {
      if (e instanceof EdgeError) throw e;
      if (controller.signal.aborted) throw abortedError({ partialText: progress.text });
      throw mapWebLLMError(e, "chat");
    } finally {
      request.signal?.removeEventListener("abort", onOuter);
      controller.signal.removeEventListener("abort", interrupt);
      this.generation = undefined;
    }
  }

  /**
   * An upper bound of the prompt these messages make: each content counted exactly with the
   * loaded model's tokenizer (in the worker), plus the template allowance (token-budget.ts),
   * since web-llm renders its chat template only inside the generation.
   */
  async countTokens(messages: readonly ChatMessage[]): Promise<number> {
    if (this.lostError) throw this.lostError;
    const bridge = this.bridge;
    const record = this.record;
    if (!this.client || !bridge || !record) throw new EdgeError("engine_not_loaded");
    const texts = messages.map((m) => m.content);
    const missing = [...new Set(texts.filter((t) => !this.tokenCache.has(t)))];
    if (missing.length) {
      const reply = await Promise.race([bridge.countTokens(record.model_id, missing), this.lost.promise]);
      if (this.tokenCache.size + missing.length > TOKEN_CACHE_LIMIT) this.tokenCache.clear();
      missing.forEach((t, i) => this.tokenCache.set(t, reply.counts[i]!));
    }
    return withTemplateAllowance(texts.map((t) => this.tokenCache.get(t)!));
  }

  abort(): void {
    this.generation?.abort();
    this.loadController?.abort();
  }

  async unload(): Promise<void> {
    this.abort();
    const client = this.client;
    this.client = undefined;
    if (client) {
      // Free the GPU memory in order; a worker that does not answer is terminated anyway.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        client.unload().catch(() => undefined),
        new Promise((r) => (timer = setTimeout(r, UNLOAD_GRACE_MS))),
      ]);
      clearTimeout(timer);
    }
    this.teardown();
    this.record = undefined;
    this.fingerprint = undefined;
    this.contextWindow = undefined;
    this.tokenCache.clear();
  }

  private onLost(e: EdgeError): void {
    if (this.lostError) return;
    this.lostError = e;
    this.lost.reject(e);
    this.teardown();
    this.options.onLost?.(e);
  }

  private teardown(): void {
    this.client = undefined;
    this.bridge?.fail(loadAbortedError());
    this.bridge = undefined;
    this.worker?.terminate();
    this.worker = undefined;
  }
}

/** Token counts kept per engine (contents of the contract and recent turns). */
const TOKEN_CACHE_LIMIT = 2048;
/** How long unload() waits for web-llm to free the model before the worker is terminated. */
const UNLOAD_GRACE_MS = 1000;

function lostGate(): { promise: Promise<never>; reject(e: EdgeError): void } {
  let reject!: (e: EdgeError) => void;
  const promise = new Promise<never>((_, r) => {
    reject = r;
  });
  promise.catch(() => undefined);
  return { promise, reject };
}
