// The browser llama.cpp backend, on the page. A load runs in two steps: a fresh module worker
// (workers/llamacpp.worker.ts, driven through comlink: worker-session.ts) gets and checks the
// model's bytes and fetches wllama's files, handing Blobs back; then wllama, on the page, loads them
// (page-model.ts) and starts its own worker from here — no worker is nested in another. Only this
// file, the small worker client and comlink are on the page until a model loads; wllama comes then,
// from the app's origin.
//
// Threads: one, unless the page is cross-origin isolated (SharedArrayBuffer; a docs page embedding
// the widget must send COOP/COEP itself) — then the caller's, or the default for the model
// (threads.ts). Device: llama.cpp's WebGPU backend when a usable, non-fallback adapter exists
// (else — or if that load fails — the CPU). A load silent for STALL_MS fails (stall-watch.ts) and
// is tried once more.
import { EdgeError } from "../../../contract/errors.ts";
import { raceSignal } from "../../../contract/abort.ts";
import { probeWebGPU } from "../../webgpu.ts";
import { loadAbortedError } from "../../engine.ts";
import type { LlamaBackend, LoadedModel, ModelSource } from "../backend.ts";
import { modelIdOf } from "../engine.ts";
import type {
  FileProgress,
  ModelBytes,
  ModelStarter,
  StartContext,
  WllamaLoadOptions,
  WorkerModelSource,
} from "./protocol.ts";
import { STALL_MS, stallWatch, type LoadMeasureDetail } from "./stall-watch.ts";
import { createLlamaWorker, workerSession } from "./worker-session.ts";

export interface BrowserLlamaBackendOptions {
  /** Start the worker that gets and checks a model's bytes and fetches wllama's files (override
   *  for custom builds). */
  createWorker?: () => Worker;
  /** "auto" (default): WebGPU when usable, else CPU. "cpu": always the CPU. */
  device?: "auto" | "cpu";
  /** A load that gives no sign of life for this long fails with model_load_failed, and what it
   *  started is ended (default STALL_MS). */
  stallMs?: number;
  /** "compat": wllama's compat build (what Safari runs) in any browser, for tests and benches. */
  wllamaBuild?: WllamaLoadOptions["build"];
  /** Loads the checked bytes into llama.cpp (default: wllama on this page); tests pass their own. */
  start?: ModelStarter;
}

/** wllama on this page, fetched the first time a model loads. */
const startOnPage: ModelStarter = async (...args) => {
  const [{ startWllama }, { WLLAMA_ASSETS }] = await Promise.all([
    import("./page-model.ts"),
    import("./page-assets.ts"),
  ]);
  return startWllama(WLLAMA_ASSETS, ...args);
};

async function usableWebGPU(): Promise<boolean> {
  const probe = await probeWebGPU().catch(() => undefined);
  return probe?.available === true && !probe.adapter.isFallbackAdapter;
}

function workerSource(source: ModelSource): WorkerModelSource {
  if (source.kind === "file") {
    throw new EdgeError("model_source_unsupported", { source: source.path });
  }
  return source;
}

type LoadOptions = Parameters<LlamaBackend["load"]>[1];
type Progress = Parameters<NonNullable<LoadOptions["onProgress"]>>[0];

/** One backend load: where from, how to start its workers and llama.cpp, and what its attempts got
 *  from a worker (the bytes, wllama's files), kept for a retry (another device, a later stall). */
interface LoadPlan {
  source: WorkerModelSource;
  name: string;
  create: () => Worker;
  start: ModelStarter;
  stallMs: number;
  kept: { bytes?: ModelBytes; files: Map<string, Blob> };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stalled = (e: unknown): boolean =>
  e instanceof EdgeError && e.code === "model_load_failed" && e.details["stage"] === "stalled";

/** `run` given a signal that fires when the attempt is given up, with the error it ends with as its
 *  reason. A cancel waits up to 2 s for the work to stop (a stopped download removes what it
 *  wrote); a model that loads after all is unloaded. */
async function attempt(
  run: (signal: AbortSignal) => Promise<LoadedModel>,
  load: LoadOptions,
  stall: Promise<never>,
): Promise<LoadedModel> {
  const given = new AbortController();
  const cancel = () => given.abort(loadAbortedError());
  load.signal?.addEventListener("abort", cancel, { once: true });
  const running = run(given.signal);
  try {
    return await raceSignal(Promise.race([running, stall]), load.signal, loadAbortedError);
  } catch (e) {
    given.abort(e);
    running
      .then(
        (m) => m.unload(),
        () => undefined,
      )
      .catch(() => undefined);
    if (load.signal?.aborted) await Promise.race([running.catch(() => undefined), sleep(2000)]);
    throw e;
  } finally {
    load.signal?.removeEventListener("abort", cancel);
  }
}

function outcomeOf(e: unknown, load: LoadOptions): LoadMeasureDetail["outcome"] {
  return stalled(e) ? "stalled" : load.signal?.aborted ? "aborted" : "failed";
}

async function keep<K, V>(map: Map<K, V>, key: K, get: () => Promise<V>): Promise<V> {
  const got = map.get(key) ?? (await get());
  map.set(key, got);
  return got;
}

/** The attempt's work: the bytes (from the worker, or kept), then llama.cpp, asking the same worker
 *  for wllama's files; the worker is ended when the attempt is. */
async function bytesThenStart(
  plan: LoadPlan,
  options: WllamaLoadOptions,
  signs: Pick<StartContext, "onProgress" | "alive">,
  signal: AbortSignal,
): Promise<LoadedModel> {
  const session = workerSession(plan.create, signal);
  try {
    plan.kept.bytes ??= await session.bytes(plan.source, signs.onProgress);
    const file = (url: string, onBytes: (p: FileProgress) => void) =>
      keep(plan.kept.files, url, () => session.file(url, onBytes));
    return await plan.start(plan.kept.bytes, plan.name, options, { ...signs, signal, file });
  } finally {
    await session.end();
  }
}

/** One attempt, under one stall watch. */
async function loadOnce(plan: LoadPlan, options: WllamaLoadOptions, load: LoadOptions): Promise<LoadedModel> {
  const watch = stallWatch(plan.stallMs);
  const onProgress = (p: Progress): void => {
    watch.progress(p);
    load.onProgress?.(p);
  };
  try {
    const model = await attempt(
      (signal) => bytesThenStart(plan, options, { onProgress, alive: watch.alive }, signal),
      load,
      watch.stalled,
    );
    watch.stop("loaded");
    return model;
  } catch (e) {
    watch.stop(outcomeOf(e, load));
    throw e;
  }
}

/**
 * Runs a load, and once more when it stalled: Firefox now and then never started the worker wllama
 * nested inside Edge's (a few loads in a hundred, in pages a service worker controls) — no worker
 * is nested now, and this stays as the remedy for whatever else leaves a load silent. The person
 * sees why it starts over; progress never goes back. A second stall fails as the first would have.
 */
function onceMoreIfStalled(
  load: LoadOptions,
): (run: (load: LoadOptions) => Promise<LoadedModel>) => Promise<LoadedModel> {
  let shown = 0;
  const report = (p: Progress): void => {
    shown = Math.max(shown, p.progress);
    load.onProgress?.({ ...p, progress: shown });
  };
  const watched: LoadOptions = { ...load, onProgress: report };
  return async (run) => {
    try {
      return await run(watched);
    } catch (e) {
      if (!stalled(e) || load.signal?.aborted) throw e;
      report({
        progress: shown,
        text: "The model load stopped making progress; starting it again in a fresh worker…",
        phase: "compile",
      });
      return run(watched);
    }
  };
}

export function createBrowserLlamaBackend(options: BrowserLlamaBackendOptions = {}): LlamaBackend {
  const create = options.createWorker ?? createLlamaWorker;
  const start = options.start ?? startOnPage;
  const stallMs = options.stallMs ?? STALL_MS;
  return {
    async load(source, load) {
      const from = workerSource(source);
      // Nothing here waits on the person: persistent storage is asked for by the UI, without
      // blocking (persistence.ts); Cancel ends every step.
      if (load.signal?.aborted) throw loadAbortedError();
      const webgpu = options.device !== "cpu" && (await raceSignal(usableWebGPU(), load.signal, loadAbortedError));
      // Threads: the caller's, else the default for the model once its size is known (threads.ts).
      const base = {
        contextSize: load.contextSize,
        build: options.wllamaBuild ?? "auto",
        ...(load.threads !== undefined ? { threads: load.threads } : {}),
      } as const;
      const plan: LoadPlan = {
        source: from,
        name: modelIdOf(from),
        create,
        start,
        stallMs,
        kept: { files: new Map() },
      };
      const once = onceMoreIfStalled(load);
      const on = (gpu: boolean) => once((l) => loadOnce(plan, { ...base, webgpu: gpu }, l));
      try {
        return await on(webgpu);
      } catch (e) {
        // llama.cpp's WebGPU backend did not take this model here: the CPU always can.
        if (!webgpu || !(e instanceof EdgeError) || e.code !== "model_load_failed") throw e;
        return on(false);
      }
    },
  };
}
