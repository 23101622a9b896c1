// The seam between LlamaCppEngine (environment-neutral: message rules, guided-call grammar,
// abort, usage, fingerprint) and a llama.cpp runtime that holds the model: node-llama-cpp in Node
// (node/backend.ts), wllama in a browser worker (browser/). A backend gets the model's bytes
// (download + cache, or a local file), checks them (GGUF header, sha256), loads them, and
// generates. Types only: importing this file loads no runtime.
import type { ChoiceScores, LoadProgress, WarmOptions } from "../engine.ts";
import type { GgufSummary } from "./gguf.ts";

/** Where a model comes from. `sha256` (hex or "sha256:hex") pins the file: a mismatch after
 *  download is `model_integrity_failed` and nothing is cached. `id` names it in receipts. */
export type ModelSource =
  | { kind: "file"; path: string; sha256?: string; id?: string }
  | { kind: "blob"; blob: Blob; name: string; sha256?: string; id?: string }
  | { kind: "url"; url: string; sha256?: string; id?: string };

/** A model file that passed the checks, ready to load. */
export interface PreparedModel {
  id: string;
  /** "sha256:<hex>" of the file's bytes. */
  sha256: string;
  size: number;
  summary: GgufSummary;
}

/** A chat message as a llama.cpp chat template sees it (the loop's tool turns arrive as user turns). */
export interface PromptMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface GenerateRequest {
  messages: PromptMessage[];
  /** GBNF; the model can only write text this grammar accepts. */
  grammar?: string;
  /** The caller's answer budget; prompt + this must fit the context window. */
  maxTokens?: number;
  /** Used when maxTokens is not given, capped to the room left in the window. */
  defaultMaxTokens: number;
  temperature: number;
  seed: number;
}

export interface GenerateResult {
  text: string;
  finishReason: "stop" | "length";
  promptTokens: number;
  /** Prompt tokens evaluated for this request; the rest came from the cached prefix. */
  promptTokensEvaluated: number;
  completionTokens: number;
  timeToFirstTokenMs: number;
  /** Milliseconds spent evaluating the prompt, and decoding after the first token. */
  promptMs: number;
  decodeMs: number;
}

export interface BackendLoadOptions {
  /** Requested context window (tokens); capped to what the model was trained with. */
  contextSize: number;
  /** CPU threads for llama.cpp (undefined: the runtime's default). */
  threads?: number;
  signal?: AbortSignal;
  onProgress?: (p: LoadProgress) => void;
}

export interface LoadedModel {
  readonly model: PreparedModel;
  /** The runtime and its version, e.g. "node-llama-cpp 3.22.1". */
  readonly runtime: string;
  /** "CPU" or "WebGPU": where llama.cpp runs the model. */
  readonly device: string;
  readonly contextWindow: number;
  /** CPU threads llama.cpp runs with, when the runtime says. */
  readonly threads?: number;
  /** The exact prompt tokens generate() evaluates for these messages (chat template included),
   *  when the runtime can tokenize. */
  promptTokens?(messages: PromptMessage[]): Promise<number[]>;
  /** The context the model was trained with, when the runtime reports it (the window is capped to it). */
  readonly trainedContext?: number;
  /** One assistant turn. Rejects with `context_window_exceeded` before evaluating anything when
   *  the prompt and the answer budget do not fit; resolves early (finish "stop") on abort. */
  generate(request: GenerateRequest, onText: (delta: string) => void, signal: AbortSignal): Promise<GenerateResult>;
  /** Engine.scoreChoices: the next token's log-probability of each choice after these messages'
   *  generation prompt (nothing is generated; the prompt cache keeps the prompt). */
  choiceLogits?(
    messages: PromptMessage[],
    choices: readonly (readonly string[])[],
    signal: AbortSignal,
  ): Promise<ChoiceScores>;
  /** The tokens every conversation starting with `messages` begins with: the template's rendering
   *  of them up to where the next user turn's own text starts. */
  prefixTokens?(messages: PromptMessage[]): Promise<number[]>;
  /** Make the prompt cache hold exactly that conversation start (keeping what it already holds of
   *  it, evaluating the rest). The browser backend adopts Engine.warmPrefix by implementing this
   *  (wllama: a completion of the start with cache_prompt and no new tokens). */
  warmPrefix?(
    messages: PromptMessage[],
    options: WarmOptions & { signal: AbortSignal },
  ): Promise<{ tokens: number; evaluated: number }>;
  /** Warm exactly that conversation start, then save its state (KV cache + tokens) to `file`. */
  saveState?(messages: PromptMessage[], file: string): Promise<{ tokens: number[]; bytes: number }>;
  /** Replace the prompt cache with a state file saveState wrote; resolves with its tokens. The
   *  caller has checked the file belongs to this model, runtime and context size. */
  loadState?(file: string): Promise<number[]>;
  unload(): Promise<void>;
}

export interface LlamaBackend {
  load(source: ModelSource, options: BackendLoadOptions): Promise<LoadedModel>;
}
