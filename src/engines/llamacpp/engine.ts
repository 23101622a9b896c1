// LlamaCppEngine: GGUF models through llama.cpp, behind the same Engine interface as web-llm.
// Environment-neutral: the runtime that holds the model is a LlamaBackend (node-llama-cpp in
// Node, wllama in a browser worker). This class owns what must behave the same everywhere:
// the message rules, tool turns sent as user turns (small models' templates rarely have a tool
// role), the guided-call grammar built from the caller's response_format, one generation at a
// time, abort (the stream ends, the engine stays usable), usage numbers and the fingerprint
// (the GGUF file's sha256 and the runtime's version) that receipts and imprints record.
import { EdgeError } from "../../contract/errors.ts";
import { raceSignal } from "../../contract/abort.ts";
import {
  abortedError,
  loadAbortedError,
  validateMessages,
  type ChatMessage,
  type ChatRequest,
  type ChatResult,
  type ChatUsage,
  type ChoiceRequest,
  type ChoiceScores,
  type Engine,
  type EngineInfo,
  type PrefixStateCapability,
  type PrefixWarmth,
  type WarmOptions,
  type ProgressListener,
} from "../engine.ts";
import type { GenerateResult, LlamaBackend, LoadedModel, ModelSource, PromptMessage } from "./backend.ts";
import { gbnfForResponseFormat } from "./format.ts";
import { isProseFormat } from "../grammar.ts";
import { endsInLoop } from "../repetition.ts";
import { LLAMA_STATE_FORMAT, readSeqStateHeader } from "./state-file.ts";

export interface LlamaCppEngineOptions {
  backend: LlamaBackend;
  model: ModelSource;
  /** Context window to allocate, in tokens (default 4096; capped to the model's trained context). */
  contextSize?: number;
  /** CPU threads (default: the backend's — in Node one thread for a small model, every core for a
   *  large one, measured by bench:threads). One thread is faster on an oversubscribed machine. */
  threads?: number;
  /** Sampling temperature when a request names none (default 0: greedy, reproducible tool calls). */
  temperature?: number;
  /** Sampling seed, for temperature > 0 (default 42). */
  seed?: number;
  /** Answer budget when a request names none (default 1024; capped to the room left). */
  maxTokens?: number;
}

const DEFAULT_CONTEXT_SIZE = 4096;

/** Said when a requested --ctx-size was more than the model allows (the window was capped). */
function cappedNote(requested: number | undefined, loaded: LoadedModel): string {
  if (requested === undefined || loaded.trainedContext === undefined || requested <= loaded.contextWindow) return "";
  return `: ${requested} tokens were asked for, but ${loaded.trainedContext} is the most this model allows (its trained context)`;
}
const DEFAULT_MAX_TOKENS = 1024;

/** The model id a source shows before (and after) loading: its id, else its file name. */
export function modelIdOf(source: ModelSource): string {
  if (source.id) return source.id;
  const raw =
    source.kind === "file" ? source.path : source.kind === "blob" ? source.name : source.url.split(/[?#]/)[0]!;
  return raw.split(/[\\/]/).pop() || raw;
}

/** Tool results reach the model as user turns, with the loop's own wording. */
export function toPromptMessages(messages: readonly ChatMessage[]): PromptMessage[] {
  return messages.map((m) => ({ role: m.role === "tool" ? "user" : m.role, content: m.content }));
}

/** One operation at a time on the model's context. */
const busyError = () =>
  new EdgeError(
    "generation_failed",
    {},
    "A generation is already running on this engine; await it or abort() it first, then try again.",
  );

function usageOf(r: GenerateResult): ChatUsage {
  const usage: ChatUsage = {
    promptTokens: r.promptTokens,
    completionTokens: r.completionTokens,
    totalTokens: r.promptTokens + r.completionTokens,
    promptTokensEvaluated: r.promptTokensEvaluated,
    timeToFirstTokenMs: r.timeToFirstTokenMs,
  };
  if (r.promptMs > 0) usage.prefillTokensPerS = (r.promptTokensEvaluated / r.promptMs) * 1000;
  if (r.decodeMs > 0 && r.completionTokens > 1) usage.decodeTokensPerS = ((r.completionTokens - 1) / r.decodeMs) * 1000;
  return usage;
}

export class LlamaCppEngine implements Engine {
  private loadedModel: LoadedModel | undefined;
  private loading: Promise<void> | undefined;
  private loadController: AbortController | undefined;
  private generation: AbortController | undefined;
  /** The conversation start being warmed (warmPrefix): a chat asked meanwhile waits for it. */
  private warming: Promise<unknown> | undefined;
  /** Present once a model that can tokenize is loaded (the loop fits history with it). */
  countTokens?: (messages: readonly ChatMessage[]) => Promise<number>;
  /** Present with countTokens: the exact prompt tokens a chat with these messages evaluates
   *  (the model's chat template and tokenizer; the fidelity tests compare them with the model's own). */
  promptTokens?: (messages: readonly ChatMessage[]) => Promise<number[]>;
  /** Present once loaded, when the backend keeps a prompt cache across conversations. */
  warmPrefix?: (messages: readonly ChatMessage[], options?: WarmOptions) => Promise<PrefixWarmth>;
  /** Present once loaded, when the backend can save and load a prefix's state (Node). */
  prefixState?: PrefixStateCapability;
  /** Present once loaded, when the backend can read the next token's distribution. */
  scoreChoices?: (request: ChoiceRequest) => Promise<ChoiceScores>;

  constructor(private readonly options: LlamaCppEngineOptions) {}

  info(): EngineInfo {
    const loaded = this.loadedModel;
    const modelId = loaded?.model.id ?? modelIdOf(this.options.model);
    const info: EngineInfo = { kind: "llamacpp", modelId, label: `${modelId} (llama.cpp, ${loaded?.device ?? "CPU"})` };
    if (loaded) {
      info.fingerprint = { modelId, sha256: loaded.model.sha256, runtime: loaded.runtime };
      info.contextWindow = loaded.contextWindow;
      if (loaded.threads !== undefined) info.threads = loaded.threads;
      if (loaded.trainedContext !== undefined) info.trainedContextWindow = loaded.trainedContext;
    }
    return info;
  }

  get loaded(): boolean {
    return this.loadedModel !== undefined;
  }

  load(onProgress?: ProgressListener, signal?: AbortSignal): Promise<void> {
    if (this.loadedModel) return Promise.resolve();
    if (this.loading) return this.loading;
    const controller = new AbortController();
    this.loadController = controller;
    const onOuter = () => controller.abort();
    signal?.addEventListener("abort", onOuter, { once: true });
    if (signal?.aborted) controller.abort();
    const { backend, model, contextSize, threads } = this.options;
    this.loading = backend
      .load(model, {
        contextSize: contextSize ?? DEFAULT_CONTEXT_SIZE,
        ...(threads !== undefined ? { threads } : {}),
        signal: controller.signal,
        ...(onProgress ? { onProgress } : {}),
      })
      .then((loaded) => {
        if (controller.signal.aborted) {
          void loaded.unload();
          throw loadAbortedError();
        }
        this.loadedModel = loaded;
        if (loaded.promptTokens) {
          const tokens = loaded.promptTokens.bind(loaded);
          this.promptTokens = (messages) => tokens(toPromptMessages(messages));
          this.countTokens = async (messages) => (await tokens(toPromptMessages(messages))).length;
        }
        this.exposeCapabilities(loaded);
        onProgress?.({
          progress: 1,
          text: `Model ${loaded.model.id} is ready (${loaded.runtime}, ${loaded.contextWindow}-token context${cappedNote(contextSize, loaded)}).`,
          phase: "ready",
        });
      })
      .catch((e: unknown) => {
        if (controller.signal.aborted) throw loadAbortedError();
        if (e instanceof EdgeError) throw e;
        throw EdgeError.withTableFix(
          "model_load_failed",
          { original: String(e) },
          `The model could not be loaded: ${(e as Error)?.message ?? String(e)}.`,
        );
      })
      .finally(() => {
        signal?.removeEventListener("abort", onOuter);
        this.loading = undefined;
        this.loadController = undefined;
      });
    return this.loading;
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    const loaded = this.loadedModel;
    if (!loaded) throw new EdgeError("engine_not_loaded");
    validateMessages(request.messages);
    // A question asked while the conversation start is being warmed continues from it: it waits
    // for the warm (whatever its outcome), then evaluates only what the cache lacks.
    await this.afterWarm(request.signal);
    if (this.generation) throw busyError();
    const grammar = gbnfForResponseFormat(request.responseFormat);
    const controller = new AbortController();
    this.generation = controller;
    const onOuter = () => controller.abort();
    request.signal?.addEventListener("abort", onOuter, { once: true });
    let text = "";
    // A prose reply caught in a loop ends there, as if the model had stopped (repetition.ts): the
    // backend resolves with the text so far when aborted (LoadedModel.generate).
    const stopsLoops = isProseFormat(request.responseFormat);
    let looped = false;
    try {
      if (request.signal?.aborted) throw abortedError();
      const result = await loaded.generate(
        {
          messages: toPromptMessages(request.messages),
          ...(grammar !== undefined ? { grammar } : {}),
          ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
          defaultMaxTokens: this.options.maxTokens ?? DEFAULT_MAX_TOKENS,
          temperature: request.temperature ?? this.options.temperature ?? 0,
          seed: this.options.seed ?? 42,
        },
        (delta) => {
          text += delta;
          request.onToken?.(delta);
          if (stopsLoops && !looped && endsInLoop(text)) {
            looped = true;
            controller.abort();
          }
        },
        controller.signal,
      );
      if (looped && !request.signal?.aborted)
        return { text: result.text, finishReason: "stop", usage: usageOf(result) };
      if (controller.signal.aborted) throw abortedError({ partialText: text });
      return { text: result.text, finishReason: result.finishReason, usage: usageOf(result) };
    } catch (e) {
      if (controller.signal.aborted) throw abortedError({ partialText: text });
      // The runtime is gone (a crashed worker): the model must be loaded again.
      if (e instanceof EdgeError && e.code === "engine_lost" && this.loadedModel === loaded) {
        this.forget();
        void loaded.unload().catch(() => undefined);
      }
      if (e instanceof EdgeError) throw e;
      throw EdgeError.withTableFix(
        "generation_failed",
        { original: String(e) },
        `The model failed while generating: ${(e as Error)?.message ?? String(e)}.`,
      );
    } finally {
      request.signal?.removeEventListener("abort", onOuter);
      this.generation = undefined;
    }
  }

  /** The capabilities the loaded backend has beyond generating (prefix cache, choice scores), each run as the engine's one operation. */
  private exposeCapabilities(loaded: LoadedModel): void {
    if (loaded.warmPrefix) {
      const warm = loaded.warmPrefix.bind(loaded);
      this.warmPrefix = (messages, options) =>
        this.warmIn(() =>
          this.exclusive((signal) => warm(toPromptMessages(messages), { ...options, signal }), options?.signal),
        );
    }
    if (loaded.choiceLogits) {
      const score = loaded.choiceLogits.bind(loaded);
      this.scoreChoices = async ({ messages, choices, signal }) => {
        validateMessages(messages);
        await this.afterWarm(signal);
        return this.exclusive((s) => score(toPromptMessages(messages), choices, s), signal);
      };
    }
    if (loaded.prefixTokens && loaded.saveState && loaded.loadState) {
      const [tokens, save, load] = [
        loaded.prefixTokens.bind(loaded),
        loaded.saveState.bind(loaded),
        loaded.loadState.bind(loaded),
      ];
      // Like a question, they wait for a warm in progress rather than fail as busy.
      const queued = async <T>(work: () => Promise<T>): Promise<T> => {
        await this.afterWarm();
        return this.exclusive(work);
      };
      this.prefixState = {
        prefixTokens: (messages) => queued(() => tokens(toPromptMessages(messages))),
        savePrefixState: (messages, file) => queued(() => save(toPromptMessages(messages), file)),
        loadPrefixState: (file) => queued(() => load(file)),
        readStateHeader: (bytes) => {
          const header = readSeqStateHeader(bytes);
          return header ? { format: LLAMA_STATE_FORMAT, version: header.version, tokens: header.tokens } : null;
        },
      };
    }
  }

  /** Resolves once no warm is running (at once when none is); rejects `aborted` if `signal` fires first. */
  private async afterWarm(signal?: AbortSignal): Promise<void> {
    while (this.warming) await raceSignal(this.warming, signal, () => abortedError());
  }

  /** Runs a warm after the one before it settled (a new session's warm follows the cancelled warm
   *  of the session it replaced), known to chat() until it settles. */
  private warmIn(run: () => Promise<PrefixWarmth>): Promise<PrefixWarmth> {
    const warm = this.warming ? this.warming.then(run) : run();
    const settled: Promise<unknown> = warm
      .catch(() => undefined)
      .finally(() => {
        if (this.warming === settled) this.warming = undefined;
      });
    this.warming = settled;
    return warm;
  }

  /** Work on the model's context that must not overlap a generation (warming, saving, loading
   *  state). `work` gets the signal that abort() — or the caller's `outer` — ends it with. */
  private async exclusive<T>(work: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
    if (!this.loadedModel) throw new EdgeError("engine_not_loaded");
    if (this.generation) throw busyError();
    if (outer?.aborted) throw abortedError();
    const controller = new AbortController();
    this.generation = controller;
    const onOuter = () => controller.abort();
    outer?.addEventListener("abort", onOuter, { once: true });
    try {
      return await work(controller.signal);
    } catch (e) {
      if (e instanceof EdgeError) throw e;
      throw EdgeError.withTableFix(
        "generation_failed",
        { original: String(e) },
        `The model failed while evaluating a prompt: ${(e as Error)?.message ?? String(e)}.`,
      );
    } finally {
      outer?.removeEventListener("abort", onOuter);
      this.generation = undefined;
    }
  }

  abort(): void {
    this.generation?.abort();
    this.loadController?.abort();
  }

  /** Drop the loaded model and every capability exposed for it; returns it for unloading. */
  private forget(): LoadedModel | undefined {
    const loaded = this.loadedModel;
    this.loadedModel = undefined;
    this.countTokens = undefined;
    this.promptTokens = undefined;
    this.warmPrefix = undefined;
    this.prefixState = undefined;
    this.scoreChoices = undefined;
    return loaded;
  }

  async unload(): Promise<void> {
    this.abort();
    await this.forget()?.unload();
  }
}
