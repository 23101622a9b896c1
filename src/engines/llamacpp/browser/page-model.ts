// llama.cpp on the page: wllama 3.13 — llama.cpp's server core compiled to WebAssembly — holding one
// model, loaded from bytes Edge's worker checked (worker-session.ts). wllama starts its own worker
// from this page (a module worker from a blob: URL), so no worker is nested in another: Firefox now
// and then never started wllama's worker when it was started inside Edge's. Loaded only when a
// model is (backend.ts imports this file then). wllama's files (its wasm and its worker script, the
// default build's or the compat build's) are fetched by Edge's worker from the app's origin — there
// the app's service worker serves and caches them even on a first visit — and given to wllama: the
// wasm as a blob: URL, the script as code, after thread-prelude.ts's lines (no Firefox error when a
// threaded model is unloaded).
//
// A failure of wllama's worker (an error event: wllama hands it to the logger) is reported as the
// worker's loss: a load fails with model_load_failed, a generation or a warm with engine_lost.
import { CacheManager, Wllama, type LoadModelParams } from "@wllama/wllama";
import wllamaPackage from "@wllama/wllama/package.json";
import { EdgeError } from "../../../contract/errors.ts";
import { raceSignal } from "../../../contract/abort.ts";
import { loadAbortedError, type ChoiceScores, type WarmOptions } from "../../engine.ts";
import type { GenerateRequest, GenerateResult, LoadedModel, PreparedModel, PromptMessage } from "../backend.ts";
import { choiceLogprobs, generateWith, probe, type Log } from "./completions.ts";
import { prefixWarmer, type PrefixWarmer } from "./prefix-warm.ts";
import type { ModelBytes, StartContext, WllamaLoadOptions } from "./protocol.ts";
import { LLAMA_STEP_MS, STALL_MS } from "./stall-watch.ts";
import { withThreadPrelude } from "./thread-prelude.ts";
import { defaultThreads } from "./threads.ts";
import { errorLog } from "./worker-errors.ts";
import { WorkerLoss } from "./worker-loss.ts";

export interface WllamaAssets {
  /** URL of wllama.wasm, served from the app's own origin (or the widget's asset host). */
  wasm: string;
  /** URL of its worker script (the Emscripten glue wllama embeds, as a file), from the same place. */
  worker: string;
  /** wllama's compat build (browsers without JSPI or Memory64, e.g. Safari), from the same place. */
  compat: { worker: string; wasm: string };
}

const RUNTIME = `wllama ${wllamaPackage.version}`;

/** wllama's own cache (for its URL downloads) is never used: Edge hands it checked bytes. Its
 *  default looks for OPFS and throws where there is none ("No supported storage backend found"),
 *  even for a Blob; this one is always there and stores nothing. */
type StorageBackend = NonNullable<ConstructorParameters<typeof CacheManager>[0]>[number];
const refuse = (): never => {
  throw new Error("Edge keeps models in its own store; wllama's cache is not used");
};
const NO_STORAGE: StorageBackend = {
  isSupported: () => true,
  read: async () => null,
  write: async () => refuse(),
  getSize: async () => -1,
  list: async () => [],
  delete: async () => undefined,
};

/** Prompt tokens llama.cpp evaluates per step: a warm reports its progress, and stops when asked,
 *  after each step. 32 gives a report every ~2 s on SmolLM2-135M here (~8 s on a 0.5B model); a
 *  169-token contract's prefill took 10.4 s with it against 9.8 s with llama.cpp's default (2048)
 *  in Chromium (one sample each). */
const PROMPT_BATCH = 32;

const mb = (n: number) => (n / 1e6).toFixed(1);
const lostError = (reason: string): EdgeError => new EdgeError("engine_lost", { reason });
const lostInLoad = (reason: string): EdgeError =>
  EdgeError.withTableFix("model_load_failed", { reason, stage: "worker" }, `The llama.cpp worker failed: ${reason}.`);

/** wllama's logger: each line is a sign of life (`line`); errors are also kept for the coded error
 *  (errorLog). wllama hands its worker's error event here too: that worker is lost. */
export function wllamaLogger(log: Log, line: (text: string) => void, loss: WorkerLoss): Log["logger"] {
  const seen = (...a: unknown[]): void => line(a.map(String).join(" ").slice(0, 160));
  const error = (...a: unknown[]): void => {
    const [first] = a;
    if (first instanceof Event) {
      first.preventDefault();
      loss.lost(
        (first as Partial<ErrorEvent>).message || "wllama's worker stopped (it could not start, or it crashed)",
      );
      return;
    }
    seen(...a);
    log.logger.error(...a);
  };
  return { debug: seen, log: seen, warn: seen, error };
}

/** The build wllama runs: the default (Memory64 + JSPI) where it can, else the compat one; with
 *  "compat", the compat one everywhere. */
function chooseBuild(w: Wllama, assets: WllamaAssets, build: WllamaLoadOptions["build"]): void {
  w.setCompat(assets.compat);
  if (build === "compat")
    w.getWorkerResources = () => ({ wasmPath: assets.compat.wasm, jsPath: assets.compat.worker, compat: true });
}

function loadParams(bytes: ModelBytes, options: WllamaLoadOptions, threads: number): LoadModelParams {
  return {
    n_ctx: Math.min(options.contextSize, bytes.summary.contextLength ?? options.contextSize),
    n_threads: threads,
    n_parallel: 1,
    n_batch: PROMPT_BATCH,
    n_gpu_layers: options.webgpu ? 999 : 0,
  };
}

/** wllama's files for the build it chose here, fetched through `context.file` (their bytes fill
 *  0.7–0.75 of the bar): the wasm given as a blob: URL (typed so that it compiles while streaming),
 *  the worker script as code with the thread prelude first — the default build's script is the glue
 *  wllama embeds, fetched as the file it ships (`assets.worker`); the URLs, to revoke once loaded. */
async function localFiles(w: Wllama, assets: WllamaAssets, context: StartContext): Promise<string[]> {
  const chosen = w.getWorkerResources();
  const fetched = (url: string): Promise<Blob> =>
    context.file(url, (p) => {
      const name = url.split("/").pop();
      const of = p.total ? ` of ${mb(p.total)}` : "";
      context.onProgress({
        progress: 0.7 + (p.total ? 0.05 * (p.loaded / p.total) : 0),
        text: `Fetching llama.cpp's runtime (${name}): ${mb(p.loaded)}${of} MB`,
        phase: "download",
      });
    });
  const wasm = URL.createObjectURL(new Blob([await fetched(chosen.wasmPath)], { type: "application/wasm" }));
  const glue = chosen.jsPath ?? assets.worker;
  const code = typeof glue === "string" ? await (await fetched(glue)).text() : glue.code;
  w.getWorkerResources = () => ({ ...chosen, wasmPath: wasm, jsPath: { code: withThreadPrelude(code) } });
  return [wasm];
}

/** A load given up: its worker is ended now, or once wllama has started it. */
function endWhenSettled(w: Wllama, loading: Promise<void>): void {
  void w.exit().catch(() => undefined);
  void loading
    .then(
      () => w.exit(),
      () => w.exit(),
    )
    .catch(() => undefined);
}

function loadFailure(e: unknown, name: string): EdgeError {
  if (e instanceof EdgeError) return e;
  return new EdgeError(
    "model_load_failed",
    { model: name, original: String(e) },
    `llama.cpp could not load ${name}: ${(e as Error).message}`,
  );
}

/** The load itself: wllama's files, then the model; given up when `context.signal` fires. */
async function loadInto(
  w: Wllama,
  assets: WllamaAssets,
  bytes: ModelBytes,
  params: LoadModelParams,
  loss: WorkerLoss,
  context: StartContext,
  loadingText: string,
): Promise<void> {
  const urls = await raceSignal(localFiles(w, assets, context), context.signal, loadAbortedError);
  context.onProgress({ progress: 0.75, text: loadingText, phase: "compile" });
  const loading = w.loadModel([bytes.file], params);
  try {
    await raceSignal(loss.guard(loading, lostInLoad), context.signal, loadAbortedError);
  } catch (e) {
    endWhenSettled(w, loading);
    throw e;
  } finally {
    for (const url of urls) URL.revokeObjectURL(url);
  }
}

/** wllama 3.13's worker logs this first (its locateFile), the page never does: from then on the
 *  worker runs, and llama.cpp may compute for LLAMA_STEP_MS between two lines. */
const WORKER_SPOKE = /^Loading "wllama\.wasm" from /;

/** Each line wllama logs while loading, as a sign of life; none once the load is over. */
export function lineSigns(alive: StartContext["alive"]): { line(text: string): void; end(): void } {
  let spoke = false;
  let ended = false;
  return {
    line(text) {
      if (ended) return;
      spoke ||= WORKER_SPOKE.test(text);
      alive(text, spoke ? LLAMA_STEP_MS : undefined);
    },
    end: () => void (ended = true),
  };
}

/** A new wllama on this page holding the checked bytes, or model_load_failed / aborted. Every line
 *  it logs while loading is a sign of life. */
export async function startWllama(
  assets: WllamaAssets,
  bytes: ModelBytes,
  name: string,
  options: WllamaLoadOptions,
  context: StartContext,
): Promise<LoadedModel> {
  const threads =
    options.threads ??
    defaultThreads({
      cores: navigator.hardwareConcurrency || 1,
      isolated: globalThis.crossOriginIsolated === true,
      modelBytes: bytes.file.size,
    });
  const loadingText = `Loading ${name} into llama.cpp (${options.webgpu ? "WebGPU" : `CPU, ${threads} thread${threads > 1 ? "s" : ""}`})…`;
  const log = errorLog();
  const loss = new WorkerLoss();
  const signs = lineSigns(context.alive);
  const w = new Wllama(
    { default: assets.wasm },
    {
      suppressNativeLog: false,
      logger: wllamaLogger(log, signs.line, loss),
      cacheManager: new CacheManager([NO_STORAGE]),
    },
  );
  chooseBuild(w, assets, options.build);
  try {
    await loadInto(w, assets, bytes, loadParams(bytes, options, threads), loss, context, loadingText);
  } catch (e) {
    throw loadFailure(e, name);
  } finally {
    signs.end();
  }
  const model: PreparedModel = {
    id: name,
    sha256: `sha256:${bytes.sha}`,
    size: bytes.file.size,
    summary: bytes.summary,
  };
  return new WllamaModel(w, log, loss, model, options.webgpu ? "WebGPU" : "CPU");
}

/** One loaded model: its wllama, the log its failures are explained from, and the warmer. */
class WllamaModel implements LoadedModel {
  readonly runtime = `${RUNTIME} (llama.cpp ${Wllama.getLibllamaVersion()})`;
  readonly contextWindow: number;
  /** What wllama runs with: more than one only where SharedArrayBuffer can be shared. */
  readonly threads: number;
  /** Aborted by unload(): stops whatever runs. */
  private readonly ending = new AbortController();
  private readonly warm: PrefixWarmer;
  /** The generation or warm in progress, settled or not. */
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly w: Wllama,
    private readonly log: Log,
    private readonly loss: WorkerLoss,
    readonly model: PreparedModel,
    readonly device: string,
  ) {
    this.contextWindow = w.getLoadedContextInfo().n_ctx;
    this.threads = w.getNumThreads();
    this.warm = prefixWarmer(
      (messages, signal, onProgress) => probe(w, messages, log, signal, onProgress),
      () => this.contextWindow,
    );
  }

  generate(request: GenerateRequest, onText: (delta: string) => void, signal: AbortSignal): Promise<GenerateResult> {
    return this.run(generateWith(this.w, request, onText, this.log, this.until(signal)));
  }

  choiceLogits(
    messages: PromptMessage[],
    choices: readonly (readonly string[])[],
    signal: AbortSignal,
  ): Promise<ChoiceScores> {
    return this.run(choiceLogprobs(this.w, messages, choices, this.log, this.until(signal)));
  }

  warmPrefix(
    messages: PromptMessage[],
    options: WarmOptions & { signal: AbortSignal },
  ): Promise<{ tokens: number; evaluated: number }> {
    return this.run(this.warm(messages, this.until(options.signal), options.onProgress));
  }

  /** Stops what runs and waits until it has ended — wllama stops a completion between two steps,
   *  so for the step in progress (at most STALL_MS: a worker silent that long is stuck) — then ends
   *  wllama's worker: llama.cpp's memory and threads go with it. Firefox logs "uncaught exception:
   *  undefined" for a worker ended inside a JSPI call: wllama's, mid-step (hence the wait), or a
   *  thread's (the thread prelude, thread-prelude.ts). */
  async unload(): Promise<void> {
    this.ending.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.running, new Promise((r) => (timer = setTimeout(r, STALL_MS)))]);
    clearTimeout(timer);
    await this.w.exit();
  }

  private run<T>(work: Promise<T>): Promise<T> {
    this.running = work.catch(() => undefined);
    return this.loss.guard(work, lostError);
  }

  private until(signal: AbortSignal): AbortSignal {
    return AbortSignal.any([signal, this.ending.signal]);
  }
}
