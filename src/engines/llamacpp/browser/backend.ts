// The browser llama.cpp backend, page side: each load starts a module worker
// (workers/llamacpp.worker.ts) and drives it through comlink. Only this small file and comlink are
// on the page; wllama and its wasm are in the worker, fetched when a model is first loaded.
//
// Threads: one, unless the page is cross-origin isolated (SharedArrayBuffer; a docs page embedding
// the widget must send COOP/COEP itself) — then the caller's, or the worker's default (threads.ts).
// Device: llama.cpp's WebGPU backend when a usable, non-fallback adapter exists (else — or if that
// load fails — the CPU).
import * as Comlink from "comlink";
import { EdgeError } from "../../../contract/errors.ts";
import { raceSignal } from "../../../contract/abort.ts";
import { probeWebGPU } from "../../webgpu.ts";
import { loadAbortedError } from "../../engine.ts";
import type { GenerateRequest, GenerateResult, LlamaBackend, LoadedModel, ModelSource, PromptMessage } from "../backend.ts";
import { installEdgeErrorTransfer } from "./comlink-errors.ts";
import type { LlamaWorkerApi, WorkerLoaded, WorkerLoadOptions, WorkerModelSource } from "./protocol.ts";

export interface BrowserLlamaBackendOptions {
  /** Start the llama.cpp worker (override for custom builds). */
  createWorker?: () => Worker;
  /** "auto" (default): WebGPU when usable, else CPU. "cpu": always the CPU. */
  device?: "auto" | "cpu";
  /** A load that reports no progress for this long fails with model_load_failed and its worker is
   *  ended (default STALL_MS). */
  stallMs?: number;
}

/** How long a load may go without a progress report before it is called stalled. The longest
 *  silent step is llama.cpp reading the model into its memory (one report before it, none during
 *  it): a few seconds for the catalog's models, well under a minute for a 4 GB file on a slow
 *  machine. A Firefox load was once seen to sit at that step for 240 s with no error at all. */
export const STALL_MS = 180_000;

export function createLlamaWorker(): Worker {
  return new Worker(new URL("../../../../workers/llamacpp.worker.ts", import.meta.url), { type: "module", name: "edge-llamacpp" });
}

async function usableWebGPU(): Promise<boolean> {
  const probe = await probeWebGPU().catch(() => undefined);
  return probe?.available === true && !probe.adapter.isFallbackAdapter;
}

/** A worker and its comlink handle; a worker error rejects whatever is pending on it. */
class WorkerLink {
  readonly remote: Comlink.Remote<LlamaWorkerApi>;
  private readonly failures = new Set<(e: unknown) => void>();
  private failure: string | undefined;

  constructor(readonly worker: Worker) {
    this.remote = Comlink.wrap<LlamaWorkerApi>(worker);
    worker.addEventListener("error", (ev) => {
      ev.preventDefault();
      this.failure = ev.message || "the llama.cpp worker stopped (it could not start, or it crashed)";
      for (const reject of this.failures) reject(this.failure);
    });
  }

  /** `work`, or a rejection with `onLost(reason)` if the worker dies first. */
  guard<T>(work: Promise<T>, onLost: (reason: string) => EdgeError): Promise<T> {
    if (this.failure) return Promise.reject(onLost(this.failure));
    return new Promise<T>((resolve, reject) => {
      const fail = (reason: unknown) => reject(onLost(String(reason)));
      this.failures.add(fail);
      work.then(resolve, reject).finally(() => this.failures.delete(fail));
    });
  }

  end(): void {
    this.remote[Comlink.releaseProxy]();
    this.worker.terminate();
  }
}

class BrowserLoadedModel implements LoadedModel {
  readonly model: WorkerLoaded["model"];
  readonly runtime: string;
  readonly device: string;
  readonly contextWindow: number;
  readonly threads: number;

  constructor(
    private readonly link: WorkerLink,
    loaded: WorkerLoaded,
  ) {
    this.model = loaded.model;
    this.runtime = loaded.runtime;
    this.device = loaded.device;
    this.contextWindow = loaded.contextWindow;
    this.threads = loaded.threads;
  }

  async generate(request: GenerateRequest, onText: (delta: string) => void, signal: AbortSignal): Promise<GenerateResult> {
    const onAbort = () => void this.link.remote.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    // The text streams on its own port; the result comes on comlink's. Ports are not ordered with
    // each other, so the result is returned only after the port's end mark: every piece first.
    const text = new MessageChannel();
    const streamed = new Promise<void>((resolve) => {
      text.port1.onmessage = (ev: MessageEvent<string | null>) => {
        if (ev.data === null) {
          text.port1.close();
          resolve();
        } else onText(ev.data);
      };
    });
    try {
      const result = await this.link.guard(this.link.remote.generate(request, Comlink.transfer(text.port2, [text.port2])), (reason) => new EdgeError("engine_lost", { reason }));
      await streamed;
      return result;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  warmPrefix(messages: PromptMessage[]): Promise<{ tokens: number; evaluated: number }> {
    return this.link.guard(this.link.remote.warmPrefix(messages), (reason) => new EdgeError("engine_lost", { reason }));
  }

  async unload(): Promise<void> {
    // Give the worker a moment to free llama.cpp's memory; it is terminated either way.
    await Promise.race([this.link.remote.unload().catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
    this.link.end();
  }
}

function workerSource(source: ModelSource): WorkerModelSource {
  if (source.kind === "file") {
    throw new EdgeError("model_source_unsupported", { source: source.path });
  }
  return source;
}

type LoadOptions = Parameters<LlamaBackend["load"]>[1];
type Progress = Parameters<NonNullable<LoadOptions["onProgress"]>>[0];

/** Rejects with model_load_failed once `stallMs` pass without a call of `alive` (each progress
 *  report calls it); `stop` ends the watch. */
function stallWatch(stallMs: number): { alive(p?: Progress): void; stalled: Promise<never>; stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = "the start";
  let fail: (e: EdgeError) => void = () => undefined;
  const stalled = new Promise<never>((_, reject) => (fail = reject));
  stalled.catch(() => undefined); // raced below; unobserved once the load settled
  const alive = (p?: Progress): void => {
    if (p?.text) last = `“${p.text}”`;
    clearTimeout(timer);
    timer = setTimeout(() => {
      const seconds = Math.round(stallMs / 1000);
      fail(new EdgeError("model_load_failed", { stage: "stalled", stalled_ms: stallMs, last_progress: last }, `Loading the model stopped: no progress for ${seconds} s after ${last}. Reload the page and load it again; if it stops again, try a smaller model or another browser.`));
    }, stallMs);
  };
  alive();
  return { alive, stalled, stop: () => clearTimeout(timer) };
}

async function loadIn(create: () => Worker, source: WorkerModelSource, options: WorkerLoadOptions, load: LoadOptions, stallMs: number): Promise<LoadedModel> {
  const link = new WorkerLink(create());
  const onAbort = () => void link.remote.abort();
  load.signal?.addEventListener("abort", onAbort, { once: true });
  const watch = stallWatch(stallMs);
  const progress = Comlink.proxy((p: Progress) => {
    watch.alive(p);
    load.onProgress?.(p);
  });
  const loading = link.guard(link.remote.load(source, options, progress), (reason) => EdgeError.withTableFix("model_load_failed", { reason, stage: "worker" }, `The llama.cpp worker failed: ${reason}.`));
  try {
    return new BrowserLoadedModel(link, await raceSignal(Promise.race([loading, watch.stalled]), load.signal, loadAbortedError));
  } catch (e) {
    // Cancelled: the worker stops its download at once and removes what it wrote; give it a moment
    // to finish that (a terminated worker leaves its part file behind), then end it either way.
    if (load.signal?.aborted) await Promise.race([loading.catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
    // Nothing of a failed load survives: its worker (and whatever it allocated) is ended.
    link.end();
    throw e;
  } finally {
    watch.stop();
    load.signal?.removeEventListener("abort", onAbort);
  }
}

const stalled = (e: unknown): boolean => e instanceof EdgeError && e.code === "model_load_failed" && e.details["stage"] === "stalled";

/**
 * Runs a load, and once more in a fresh worker when it stalled: Firefox now and then never starts
 * the worker wllama nests inside Edge's (a few loads in a hundred, in pages a service worker
 * controls), and a second worker starts. The person sees why it starts over; progress never goes
 * back. A second stall fails as the first would have.
 */
function onceMoreIfStalled(load: LoadOptions): (run: (load: LoadOptions) => Promise<LoadedModel>) => Promise<LoadedModel> {
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
      report({ progress: shown, text: "The model load stopped making progress; starting it again in a fresh worker…", phase: "compile" });
      return run(watched);
    }
  };
}

export function createBrowserLlamaBackend(options: BrowserLlamaBackendOptions = {}): LlamaBackend {
  installEdgeErrorTransfer();
  const create = options.createWorker ?? createLlamaWorker;
  const stallMs = options.stallMs ?? STALL_MS;
  return {
    async load(source, load) {
      const from = workerSource(source);
      // Nothing here waits on the person: persistent storage is asked for by the UI, without
      // blocking (persistence.ts); Cancel ends every step.
      if (load.signal?.aborted) throw loadAbortedError();
      const webgpu = options.device !== "cpu" && (await raceSignal(usableWebGPU(), load.signal, loadAbortedError));
      // Threads: the caller's, else the worker's choice once it knows the model's size (threads.ts).
      const base = { contextSize: load.contextSize, ...(load.threads !== undefined ? { threads: load.threads } : {}) };
      const once = onceMoreIfStalled(load);
      try {
        return await once((l) => loadIn(create, from, { ...base, webgpu }, l, stallMs));
      } catch (e) {
        // llama.cpp's WebGPU backend did not take this model here: the CPU always can.
        if (!webgpu || !(e instanceof EdgeError) || e.code !== "model_load_failed") throw e;
        return once((l) => loadIn(create, from, { ...base, webgpu: false }, l, stallMs));
      }
    },
  };
}
