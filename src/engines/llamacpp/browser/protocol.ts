// The seams of the browser llama.cpp backend. Edge's worker (workers/llamacpp.worker.ts) gets and
// checks a model's bytes and hands the checked Blob to the page through comlink: the worker exposes
// a LlamaWorkerApi, the page holds a comlink Remote of it, and progress crosses as a comlink proxy.
// The page then runs wllama, which starts its own worker from the page (page-model.ts): no worker
// is nested in another (Firefox now and then never started wllama's when it was). Types only.
import type { LoadProgress } from "../../engine.ts";
import type { LoadedModel } from "../backend.ts";
import type { GgufSummary } from "../gguf.ts";

/** A model source that can cross to the worker (a File from disk is structured-cloneable). */
export type WorkerModelSource =
  | { kind: "url"; url: string; sha256?: string; id?: string }
  | { kind: "blob"; blob: Blob; name: string; sha256?: string; id?: string };

/** A model's bytes that passed the checks. The Blob crosses by structured clone: the page reads the
 *  same stored file (or the same memory), nothing is copied. */
export interface ModelBytes {
  file: Blob;
  /** hex */
  sha: string;
  summary: GgufSummary;
}

/** Bytes of a file fetched so far (`total`: 0 when the server did not say). */
export interface FileProgress {
  loaded: number;
  total: number;
}

export interface LlamaWorkerApi {
  /** The model's checked bytes: the stored copy, a download into the store, or the given file. */
  bytes(source: WorkerModelSource, onProgress: (p: LoadProgress) => void): Promise<ModelBytes>;
  /** One of wllama's own files (its wasm; the compat build's script and wasm), fetched by the
   *  worker — the app's service worker serves it there even when it does not control the page yet —
   *  its bytes reported as they come. */
  file(url: string, onBytes: (p: FileProgress) => void): Promise<Blob>;
  /** Stop the work in progress (what a download wrote is removed). */
  abort(): void;
}

export interface WllamaLoadOptions {
  contextSize: number;
  /** CPU threads (undefined: defaultThreads for the model, threads.ts); more than one only where
   *  the page is cross-origin isolated. */
  threads?: number;
  /** Run llama.cpp's WebGPU backend (only when a usable, non-fallback adapter was found). */
  webgpu: boolean;
  /** "compat": wllama's compat build (wasm32 + Asyncify, what Safari runs) even where the default
   *  one runs (tests and benches); "auto": the compat build only where it is needed. */
  build: "auto" | "compat";
}

/** What a load of checked bytes into llama.cpp is given besides them. */
export interface StartContext {
  onProgress(p: LoadProgress): void;
  /** A sign of life that is not a progress report (a line wllama or llama.cpp logged); `quietMs`:
   *  how long the silence after it may last (default: the stall limit). */
  alive(sign: string, quietMs?: number): void;
  /** Fires when the load is given up (cancelled, or silent too long; its reason is the error the load
   *  ends with): stop, and free what it took. */
  signal: AbortSignal;
  /** One of wllama's files, fetched by Edge's worker (LlamaWorkerApi.file). */
  file(url: string, onBytes: (p: FileProgress) => void): Promise<Blob>;
}

/** Loads checked bytes into llama.cpp (page-model.ts on the page; tests pass their own). */
export type ModelStarter = (
  bytes: ModelBytes,
  name: string,
  options: WllamaLoadOptions,
  context: StartContext,
) => Promise<LoadedModel>;
