// The chat session's public types: its options (one tool source, `tools`), the events of a turn,
// a run's result, and the seams a session is given (a non-Python tool surface, the confirmation
// flow, a restored imprint). Types only, but for the default call budget.
import type { ErrorCode, ErrorJson } from "../contract/errors.ts";
import type { Sha256 } from "../contract/hash.ts";
import type { ExecutionLevel, JsonObject, Selection, ToolSchema } from "../contract/types.ts";
import type { Engine, EngineInfo, PrefixWarmth, WarmOptions } from "../engines/engine.ts";
import type { ToolChoice, TurnFormat } from "../engines/tool-turn.ts";
import type { RunnerHost, ToolSource } from "../runner/host.ts";
import type { ApprovalHandler, ToolRuntime } from "../runtime/index.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";
import type { WorkspaceSource } from "../toolset/workspace.ts";
import type { CallReceipt, EngineStats, Receipt, ReceiptBody, RunOutcome } from "../receipts/types.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import type { StateRestorer } from "./imprint-restore.ts";

export const DEFAULT_MAX_CALLS = 4;

/** A non-Python tool source (tools manifest, facts store): it registers its tools and names its hashes. */
export interface ToolSurface {
  readonly kind: "tools_manifest" | "facts_store";
  /** Registers the surface's tools into the session's runtime. */
  register(runtime: ToolRuntime): void;
  readonly active_set_sha256: Sha256;
  readonly schema_generator_version: string;
  readonly tools_manifest_sha256?: Sha256;
  /** The store of a facts_store surface (receipts name it). */
  readonly facts_store?: string;
}

/**
 * The session's one tool source (none: built-ins or no tools at all).
 * - `file`: a tools file (re-read for every call), frozen once when the session starts; `selection`
 *   (--tool / --tool-tag) picks among its tools.
 * - `toolset`: an already frozen toolset (e.g. the playground froze it to show inspect).
 * - `surface`: built-in local facts lookups, from a tools manifest or over one facts store (the
 *   surface names which).
 * `file` and `toolset` run Python tools: they need the session's `host`.
 */
export type ChatTools =
  | { readonly kind: "file"; readonly source: ToolSource; readonly selection?: Selection }
  | { readonly kind: "toolset"; readonly toolset: FrozenToolset }
  | { readonly kind: "surface"; readonly surface: ToolSurface };

/** What the session hands the confirmation flow when a commit tool asks. */
export interface PendingRequest {
  run_id: string;
  call_id: string;
  tool_name: string;
  arguments: JsonObject;
  execution_level: ExecutionLevel;
  tool_schema_sha256: Sha256 | null;
  tools_file_sha256: Sha256 | null;
  /** A Python tool's project: tools_bundle_sha256 and its manifest (path → sha256), so confirming
   *  can name a file that changed. */
  tools_bundle?: { sha256: Sha256; files: Record<string, string> };
  active_set_sha256: Sha256 | null;
}

/** A created pending action as the page sees it; the token is shown once and never stored. */
export interface PendingTicket {
  id: string;
  expires_at: string;
  confirmation_token: string;
  [extra: string]: unknown;
}

export interface ConfirmationBroker {
  request(request: PendingRequest): Promise<PendingTicket>;
}

/** A restored imprint: the gate runs before any generation, then the prefix starts the conversation. */
export interface ImprintBinding {
  readonly id: string;
  readonly prefix: string;
  /** false when the prefix carries no tool contract (an imprint learned without tools): with a
   *  facts surface the session then injects the contract before the prefix. Default true. */
  readonly toolContract?: boolean;
  /** Throws the imprint_* EdgeError when the imprint does not fit this session (docs/contract.md §7). */
  check(context: {
    schemas: readonly ToolSchema[];
    toolset: FrozenToolset | null;
    engine: EngineInfo;
    surface?: ToolSurface | null;
  }): Promise<void> | void;
  /** Loads the imprint's saved model state, when it has one this environment can load (Node). */
  readonly restoreState?: StateRestorer;
}

export interface ChatSessionOptions {
  /** The one tool source: a tools file, a frozen toolset, or a facts surface. */
  tools?: ChatTools;
  /** Runs Python tools; needed with a `file` or `toolset` source. */
  host?: RunnerHost;
  engine: Engine;
  store?: ReceiptStore;
  maxCalls?: number;
  /** Store raw prompt, answer and arguments in receipts (off by default). */
  includeText?: boolean;
  /** Per-call hard limit for Python tools. */
  timeoutMs?: number;
  /** Decides "ask" verdicts (commit tools). Without one (and no `confirmations`), asking is a
   *  deny (fail-closed). */
  approval?: ApprovalHandler;
  /** The confirmation flow: an "ask" creates a pending action and ends the turn pending. */
  confirmations?: ConfirmationBroker;
  /** Restore a Neural Imprint: its prefix replaces the contract after its gate passed. */
  imprint?: ImprintBinding;
  /** Which tool calls guided decoding allows: auto (default), required, none — part of the
   *  engine's tool-turn policy (src/engines/tool-turn.ts), the same one learn's evaluation uses. */
  toolChoice?: ToolChoice;
  /** Replaces the policy's response format (tests steer a generating engine with it); asked for
   *  each model turn of a prompt (`turn.index` 0 is the first). */
  responseFormat?: TurnFormat;
  /** Extra tools (built-ins) or hooks: the session registers its Python tools into this runtime. */
  runtime?: ToolRuntime;
  /** Mounted read-only at /workspace for Python tools that declare read_local (a snapshot per call). */
  workspace?: WorkspaceSource;
  /** max_tokens of every generation (default: 1024, at most a quarter of the context window). */
  maxTokens?: number;
}

export type ChatEvent =
  /** A generation finished: its text without a leading think block (and that block's content). */
  | { type: "model_output"; text: string; turn: number; reasoning?: string }
  | { type: "repair"; code: ErrorCode; message: string }
  | { type: "tool_call"; call_id: string; tool_name: string; arguments: JsonObject }
  | { type: "tool_result"; call: CallReceipt; result?: unknown; stderr?: string; error?: ErrorJson };

export interface ChatTurnOptions {
  signal?: AbortSignal;
  /** Streamed model text, as it is generated (tool-call JSON included; a leading think block is
   *  held back, never streamed). */
  onToken?: (delta: string) => void;
  onEvent?: (event: ChatEvent) => void;
}

export interface ChatRun {
  ok: boolean;
  outcome: RunOutcome;
  run_id: string;
  /** The model's final answer (answered), or the canonical JSON of a return_direct result. */
  answer?: string;
  /** The validated result of a return_direct tool. */
  result?: unknown;
  /** The answer was cut off at max_tokens or the context window (finish_reason "length"): it is
   *  incomplete and must be shown as such. */
  truncated?: true;
  /** Why the run's last generation stopped. */
  finish_reason?: "stop" | "length";
  /** Time to first token and tokens per second, when the engine reports them. */
  engine_stats?: EngineStats;
  error?: ErrorJson;
  /** Set when the run ended pending_confirmation through the confirmation flow. */
  pending_action?: PendingTicket;
  receipt: Receipt | ReceiptBody;
}

export interface ChatSession {
  readonly toolset: FrozenToolset | null;
  readonly contract: string | null;
  readonly runtime: ToolRuntime;
  chat(prompt: string, options?: ChatTurnOptions): Promise<ChatRun>;
  /** Evaluate the conversation start (the system message: the tool contract) in the engine's
   *  prompt cache now, before any question, so the first turn evaluates only the question (a
   *  question asked meanwhile waits for it and continues from it). null when there is nothing to
   *  warm: no system message, or an engine without a prompt cache (web-llm, scripted). */
  warm(options?: WarmOptions): Promise<PrefixWarmth | null>;
  /** Forget the conversation (the frozen tools stay). */
  reset(): void;
}
