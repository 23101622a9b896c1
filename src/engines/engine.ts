// The Engine seam: the tool loop talks to a language model only through this interface.
// Implementations: WebLLMEngine (web-llm in a worker, WebGPU), the llama.cpp engine (GGUF models:
// wllama in a browser worker, a native binding in Node) and ScriptedEngine (replays a script;
// tests and the explicitly labelled demo). Nothing here imports an engine library, so the core can
// depend on this file without pulling megabytes into its bundle.
import { EdgeError, type ErrorCode } from "../contract/errors.ts";

export type ChatRole = "system" | "user" | "assistant" | "tool";

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** A structural tag as web-llm 0.2.86 (web-xgrammar) accepts it: `{type, format}` where format
 *  is one of any_text, const_string, grammar, json_schema, regex, sequence, or, tag, … */
export interface StructuralTag {
  type: "structural_tag";
  format: StructuralTagFormat;
}
export type StructuralTagFormat =
  | { type: "json_schema"; json_schema: Record<string, unknown> | boolean }
  | { type: "regex"; pattern: string }
  | { type: "const_string"; value: string }
  | { type: "any_text"; excludes?: string[] }
  | { type: "or"; elements: StructuralTagFormat[] }
  | { type: "sequence"; elements: StructuralTagFormat[] }
  | { type: "tag"; begin: string; content: StructuralTagFormat; end: string };

/** The `response_format` of web-llm's chat API (same field names, so it is passed through). */
export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object"; schema?: string }
  | { type: "grammar"; grammar: string }
  | { type: "structural_tag"; structural_tag: StructuralTag | string };

export type LoadPhase = "download" | "compile" | "ready";

export interface LoadProgress {
  /** Overall progress of the load, 0..1, never decreasing within one load. */
  progress: number;
  /** The engine's own human-readable status line. */
  text: string;
  phase: LoadPhase;
}

export type ProgressListener = (p: LoadProgress) => void;

export interface ChatRequest {
  messages: ChatMessage[];
  responseFormat?: ResponseFormat;
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
  /** Called with each new piece of text as it is generated. */
  onToken?: (delta: string) => void;
}

/** Engine.scoreChoices: the conversation the model would answer, and the answers to weigh. */
export interface ChoiceRequest {
  messages: ChatMessage[];
  /** Each choice as its spellings; a spelling counts only where it is one token of the model's vocabulary. */
  choices: readonly (readonly string[])[];
  signal?: AbortSignal;
}

/** Engine.scoreChoices' answer. An engine that sees only the most likely tokens (wllama: its top
 *  log-probabilities) scores a choice it did not see -Infinity and says below what it sees nothing:
 *  such a choice is less likely than `floor`, not impossible. */
export interface ChoiceScores {
  /** Per choice, the log of its probability. */
  logProbs: number[];
  /** The least log-probability the engine saw (-Infinity: it saw the whole vocabulary). */
  floor: number;
}

export interface ChatUsage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
  prefillTokensPerS?: number;
  decodeTokensPerS?: number;
  /** Prompt tokens the engine actually evaluated for this request; the rest of `promptTokens` came
   *  from its prompt cache (a follow-up that extends the previous conversation evaluates only the
   *  new tokens). Undefined when the engine does not report it. */
  promptTokensEvaluated?: number;
  /** Milliseconds from the request to the first generated token. */
  timeToFirstTokenMs?: number;
  /** Seconds spent compiling the guided-decoding grammar (web-llm's `grammar_init_s`). */
  grammarInitS?: number;
  grammarPerTokenS?: number;
}

export interface ChatResult {
  /** The full generated text (the concatenation of every onToken delta). */
  text: string;
  /** Why generation stopped: "stop" (natural end), "length" (maxTokens or context). */
  finishReason?: "stop" | "length";
  usage?: ChatUsage;
}

/** What identifies the exact model that produced an answer (receipts, imprints). */
export interface ModelFingerprint {
  modelId: string;
  /** sha256 of the model file ("sha256:<hex>"), for engines that load one file (GGUF). */
  sha256?: string;
  /** The inference runtime and its version, e.g. "wllama 3.13.0" or "node-llama-cpp 3.22.1". */
  runtime?: string;
  /** URL of the compiled model library (.wasm). */
  modelLib?: string;
  /** Base URL of the weights and config (mlc-chat-config.json, tensor cache). */
  modelUrl?: string;
  /** SRI hashes pinned in the model record, when present. */
  integrity?: {
    config?: string;
    model_lib?: string;
    tokenizer?: Record<string, string>;
  };
  /** web-llm's model-library version folder, e.g. "v0_2_86/base". */
  runtimeVersion?: string;
  /** Whether this variant needs the `shader-f16` WebGPU feature. */
  shaderF16?: boolean;
}

/** Which engine runs the model ("scripted" replays a script: tests and demos). */
export type EngineKind = "webllm" | "llamacpp" | "scripted";

export interface EngineInfo {
  kind: EngineKind;
  modelId: string;
  label: string;
  fingerprint?: ModelFingerprint;
  /** The loaded model's context window in tokens (prompt + answer), when known. */
  contextWindow?: number;
  /** CPU threads the runtime runs the model with, when it says (llama.cpp in the browser: more
   *  than one only on a cross-origin-isolated page). */
  threads?: number;
  /** The context the model was trained with (the most it allows), when the runtime reports it. */
  trainedContextWindow?: number;
}

/**
 * The end of a context_window_exceeded message: what to do, and whether a larger window is still
 * possible. A window already at the model's trained context cannot grow: saying "load it with a
 * larger context" then sends the person round in circles.
 */
export function contextWindowAdvice(window: number, trained: number | undefined): string {
  if (trained !== undefined && window >= trained) {
    return `That is the most this model allows (it was trained with a ${trained}-token context). Shorten the prompt or the tool results, reset the conversation, or use a model trained with a longer context.`;
  }
  const upTo = trained !== undefined ? ` (up to ${trained} tokens: --ctx-size ${trained})` : "";
  return `Shorten the prompt or the tool results, reset the conversation, or load the model with a larger context${upTo}.`;
}

/** How a conversation start is warmed (Engine.warmPrefix). */
export interface WarmOptions {
  /** The start's tokens evaluated so far of `total`, as the engine reports them (llama.cpp in the
   *  browser: after each batch; Node: at the end). */
  onProgress?: (p: { processed: number; total: number }) => void;
  /** Stops the warm (between batches: what was evaluated stays in the cache); it rejects `aborted`. */
  signal?: AbortSignal;
}

/** What warming a conversation start did (Engine.warmPrefix). */
export interface PrefixWarmth {
  /** Tokens of the conversation start now held in the engine's prompt cache. */
  tokens: number;
  /** Of them, evaluated by this call (0: an earlier conversation had already evaluated them). */
  evaluated: number;
}

/**
 * Engines whose runtime can save the evaluated state of a conversation start to a file and load it
 * back (llama.cpp in Node: a context sequence's KV cache and tokens). Loading a state made by
 * another model can crash the runtime: callers bind a state file to the model, runtime, context
 * size and tokens, and check all of it before calling loadPrefixState.
 */
export interface PrefixStateCapability {
  /** The tokens every conversation starting with `messages` begins with (template included). */
  prefixTokens(messages: readonly ChatMessage[]): Promise<number[]>;
  /** Evaluate exactly that conversation start and save its state to `file`. */
  savePrefixState(messages: readonly ChatMessage[], file: string): Promise<{ tokens: number[]; bytes: number }>;
  /** Load a state saved by savePrefixState; resolves with the tokens it holds. */
  loadPrefixState(file: string): Promise<number[]>;
  /** Read a state file's header without the runtime: its format, version and tokens; null when the
   *  bytes are not a state of this engine's format. */
  readStateHeader(bytes: Uint8Array): { format: string; version: number; tokens: number[] } | null;
}

/** What putting a conversation start in the engine did (StartStateStore.prime). */
export interface StartPrimed {
  /** "state_file": loaded from a saved state, nothing evaluated; "state_saved": evaluated now and
   *  saved for the next process; "engine": evaluated now, not saved; "none": not evaluated (the
   *  first prompt evaluates it). `saveFailed` says why it was not saved. */
  via: "state_file" | "state_saved" | "engine" | "none";
  /** Tokens of the start the engine now holds, and of them how many were evaluated now. */
  tokens: number;
  evaluated: number;
  /** Why a saved state of this start was found but not loaded (foreign, damaged, mismatched). */
  fallback?: { code: ErrorCode; reason: string };
  saveFailed?: { code: ErrorCode; reason: string };
}

/**
 * Saved states of conversation starts that outlive the process, for an engine with prefixState:
 * attached by its caller (the CLI: src/imprint/start-states-node.ts, a file cache). A session
 * without an imprint puts its system message (the tool contract) in the engine through it, once,
 * in its first run. A missing, foreign or damaged state is a fallback, never a failure.
 */
export interface StartStateStore {
  /** Loads the saved state of the start `[system]` when a valid one exists, else evaluates it and saves it. */
  prime(system: string): Promise<StartPrimed>;
}

export interface Engine {
  info(): EngineInfo;
  /** Download (or reuse cached) weights and compile. Rejects with an EdgeError from the table. */
  load(onProgress?: ProgressListener, signal?: AbortSignal): Promise<void>;
  /** Generate one assistant turn; streams via request.onToken, resolves with the full text. */
  chat(request: ChatRequest): Promise<ChatResult>;
  /** The exact number of prompt tokens these messages make for the loaded model (chat template
   *  included), for engines that can tokenize; the loop fits history to the context window with it. */
  countTokens?(messages: readonly ChatMessage[]): Promise<number>;
  /** The exact prompt tokens themselves (llama.cpp in Node): what a chat with these messages
   *  evaluates, so a caller can see where two prompts part (a template that re-renders history). */
  promptTokens?(messages: readonly ChatMessage[]): Promise<number[]>;
  /** For engines with a prompt cache that outlives a conversation (llama.cpp): evaluate the start
   *  of a conversation (an imprint's system message) now, once per loaded model, so that every
   *  later request starting with these messages evaluates only what follows — also in a new
   *  conversation. Present once loaded, for engines that can. */
  warmPrefix?(messages: readonly ChatMessage[], options?: WarmOptions): Promise<PrefixWarmth>;
  /** Present once loaded, for engines that can save and load a prefix's state (llama.cpp in Node). */
  prefixState?: PrefixStateCapability;
  /** How likely the model's next turn starts with each choice (`[["yes", "Yes"], ["no", "No"]]`):
   *  the natural log of the summed probability of its one-token spellings. Present once loaded, for
   *  engines that can read the model's next-token distribution (llama.cpp); the checked turn
   *  decides with it (chat/model-turn.ts). */
  scoreChoices?(request: ChoiceRequest): Promise<ChoiceScores>;
  /** Saved conversation starts across processes, when the caller attached a store (Node CLI). */
  startStates?: StartStateStore;
  /** Stop the generation in progress (its chat() rejects with `aborted`). */
  abort(): void;
  /** Free the model (and its worker); load() again before the next chat(). */
  unload(): Promise<void>;
}

const ROLES: ReadonlySet<string> = new Set(["system", "user", "assistant", "tool"]);

/**
 * The message rules both engines enforce, so a loop tested against the scripted engine does not
 * break on the real one: at least one message; a system message only first; the last message from
 * the user or a tool (the model answers it); every content a string.
 */
export function validateMessages(messages: readonly ChatMessage[]): void {
  const bad = (reason: string, index?: number): never => {
    throw EdgeError.withTableFix("invalid_chat_messages", { reason, index }, `Invalid chat messages: ${reason}.`);
  };
  if (!Array.isArray(messages) || messages.length === 0) bad("at least one message is needed");
  messages.forEach((m, i) => {
    if (m === null || typeof m !== "object" || !ROLES.has(m.role)) bad(`message ${i} has an unknown role`, i);
    if (typeof m.content !== "string") bad(`message ${i} has non-string content`, i);
    if (m.role === "system" && i !== 0) bad(`the system message must be the first message (found at ${i})`, i);
  });
  const last = messages[messages.length - 1]!;
  if (last.role !== "user" && last.role !== "tool") {
    bad("the last message must come from the user or a tool", messages.length - 1);
  }
}

/** The `aborted` error both engines reject with. */
export function abortedError(details: Record<string, unknown> = {}): EdgeError {
  return new EdgeError("aborted", { stage: "generation", ...details });
}

/** The `aborted` error of a model load (download, checks, runtime load) stopped by its signal. */
export const loadAbortedError = (): EdgeError => new EdgeError("aborted", { stage: "load" });
