// What the page and the llama.cpp worker (workers/llamacpp.worker.ts) say to each other, through
// comlink: the worker exposes a LlamaWorkerApi, the page holds a comlink Remote of it. Load
// progress crosses as a comlink proxy; generated text streams over a MessagePort of its own (one
// message per piece, no reply: a comlink call per token doubled the messages and, measured in
// bench/engine.bench.ts, slowed decoding by half on the generated model). Types only.
import type { LoadProgress } from "../../engine.ts";
import type { GenerateRequest, GenerateResult, PreparedModel, PromptMessage } from "../backend.ts";

/** A model source that can cross to the worker (a File from disk is structured-cloneable). */
export type WorkerModelSource =
  | { kind: "url"; url: string; sha256?: string; id?: string }
  | { kind: "blob"; blob: Blob; name: string; sha256?: string; id?: string };

export interface WorkerLoadOptions {
  contextSize: number;
  /** CPU threads (undefined: defaultThreads for the model, threads.ts); more than one only where
   *  the page is cross-origin isolated. */
  threads?: number;
  /** Run llama.cpp's WebGPU backend (only when a usable, non-fallback adapter was found). */
  webgpu: boolean;
}

export interface WorkerLoaded {
  model: PreparedModel;
  runtime: string;
  device: string;
  contextWindow: number;
  /** CPU threads llama.cpp runs with (1 where the page is not cross-origin isolated). */
  threads: number;
}

export interface LlamaWorkerApi {
  /** Get the model's bytes (stored model, download, or the given file), check them, load them. */
  load(source: WorkerModelSource, options: WorkerLoadOptions, onProgress: (p: LoadProgress) => void): Promise<WorkerLoaded>;
  /** Streams each piece of text as a string message on `text`, then `null`, then resolves. */
  generate(request: GenerateRequest, text: MessagePort): Promise<GenerateResult>;
  /** Make llama.cpp's prompt cache hold this conversation start (Engine.warmPrefix; prefix-warm.ts). */
  warmPrefix(messages: PromptMessage[]): Promise<{ tokens: number; evaluated: number }>;
  /** Stop the download, load or generation in progress. */
  abort(): void;
  unload(): Promise<void>;
}
