// The receipt of docs/contract.md §9: hash-first, one per run, chained. Raw text only with includeText.
import type { ErrorCode } from "../contract/errors.ts";
import type { Sha256 } from "../contract/hash.ts";
import type { ExecutionLevel } from "../contract/types.ts";
import type { FrozenPackage } from "../packages/lock.ts";
import type { ModelFingerprint } from "../engines/engine.ts";

export const RECEIPT_VERSION = "edge.receipt.v1";

export type RunOutcome = "answered" | "return_direct" | "pending_confirmation" | "failed_closed";
export type CallStatus = "ok" | "failed_closed" | "pending_confirmation" | "aborted";
/** imprint_with_contract: a profile-only imprint joined with a facts surface (the lookups' contract
 *  is injected before the imprint's prefix). */
export type ToolInstructionMode = "contract" | "imprint" | "imprint_with_contract" | "none";
/** Where a run's (or an imprint's) tools came from: a Python tools file, a tools manifest, or a facts store. */
export type ToolSurfaceKind = "tools_file" | "tools_manifest" | "facts_store";
/** The protocol of a client that asked for a run (rather than Edge's CLI, playground or widget); the receipt field is `surface`, a name kept for the format's sake. */
export type RequestProtocol = "mcp";
export interface ReceiptClient {
  name: string;
  version: string;
}
/** How a confirm receipt's decision reached Edge: "terminal" (the token given to `edge tools
 *  confirm`, or y/N in `edge chat -i`), "page" (the playground's or the widget's card),
 *  "elicitation" (an MCP client answered yes; that a person saw the question is the client's word). */
export type ConfirmedVia = "terminal" | "page" | "elicitation";
/** The receipt fields that say who asked (both set together, or neither). */
export interface ReceiptOrigin {
  surface: RequestProtocol;
  client: ReceiptClient;
}

export interface CallReceipt {
  call_id: string;
  tool_name: string;
  execution_level: ExecutionLevel | null;
  args_sha256: Sha256 | null;
  result_sha256: Sha256 | null;
  tool_schema_sha256: Sha256 | null;
  tools_file_sha256_verified: boolean;
  runner_secret_verified: boolean;
  network_used_by_edge: false;
  status: CallStatus;
  code?: ErrorCode;
  duration_ms: number;
  /** Built-in lookups report how many rows they returned. */
  rows?: number;
  /** read_local tools: sha256 of the workspace snapshot mounted for the call (docs/receipts.md). */
  workspace_sha256?: Sha256;
  /** Only with includeText. */
  arguments?: unknown;
}

/**
 * A call the checks refused before anything ran (docs/contract.md §4 step 4): an unknown tool, arguments that
 * do not match the schema, or output that is a call in the wrong shape. It is not in `calls` (it
 * never ran and counts toward no budget); the first one of a run gets the repair turn, the next
 * one ends the run with its code.
 */
/** How a proposed call was judged before it could run (a checked turn, src/chat/model-turn.ts):
 *  "yes" it ran, "no" the model answered instead, "repeat" an identical call had already run in
 *  this prompt, "cut_off" the proposal reached the token limit unfinished (tool_name is "" when it
 *  stopped before its name), "no_call" the model's reply was unlikely to start a call, so it was
 *  not asked for one (tool_name ""); after the last four the model answered instead. */
export interface CallCheck {
  turn: number;
  tool_name: string;
  verdict: "yes" | "no" | "repeat" | "cut_off" | "no_call";
  /** A weighed verdict's score and the model's measured threshold (src/chat/check-calibration.ts):
   *  for "no_call" the log-probability that the reply starts a call (in the browser, when no
   *  spelling of a start was among the 200 likeliest tokens, the 200th's: a bound), for "yes" and "no" how much
   *  the request raised the log-odds of "yes" to the check; absent for a generated verdict. */
  score?: number;
  threshold?: number;
}

export interface RefusedCall {
  /** The tool the model named (null when the call was malformed). */
  tool_name: string | null;
  code: ErrorCode;
  /** sha256 of the arguments as the model wrote them (null when none could be read). */
  args_sha256: Sha256 | null;
  /** The model turn of the run (0-based) that wrote it. */
  turn: number;
  /** What followed: the model was told the error and asked once more, or the run failed closed. */
  then: "repair_turn" | "failed_closed";
  /** Only with includeText. */
  arguments?: unknown;
}

/** How the prompt of a run's last generation was fitted to the model's context window. */
export interface ContextReceipt {
  /** The model's context window in tokens (prompt + answer). */
  window: number;
  /** The context the model was trained with: the most the window can be (when the engine knows it). */
  trained_window?: number;
  /** max_tokens: the answer budget reserved in the window. */
  max_tokens: number;
  /** The prompt's counted size (an upper bound), when it was counted. */
  prompt_tokens?: number;
  /** Earlier turns of the conversation left out to make room (oldest first, whole turns). */
  turns_dropped: number;
  /** "engine": the model's own tokenizer; "estimate": a conservative byte-based bound. */
  counted_by: "engine" | "estimate";
}

/** How a session's fixed conversation start reached the model: a restored imprint's prefix
 *  (imprint_prefix) or, without an imprint, the tool contract kept as a saved state across runs
 *  (contract_prefix: `edge chat --model`). */
export interface PrefixStartReceipt {
  /** "state_file": a saved model state of the start was loaded (nothing of it evaluated);
   *  "state_saved" (contract_prefix): evaluated now and saved, so the next run loads it;
   *  "engine": the engine keeps the evaluated prefix across conversations of the loaded model
   *  (prefix_tokens_evaluated is 0 when an earlier conversation had evaluated it); for
   *  contract_prefix, evaluated now but not saved (state_save_failed says why);
   *  "none": the engine keeps nothing between conversations; the prefix is evaluated as text
   *  (contract_prefix: with the first prompt, as it could not be evaluated first). */
  prefix_cache: "state_file" | "state_saved" | "engine" | "none";
  prefix_tokens?: number;
  /** Tokens of the prefix evaluated when the session started. */
  prefix_tokens_evaluated?: number;
  /** Why a saved state was not loaded (imprint_state_* for an imprint, start_state_* for the contract). */
  state_fallback?: { code: ErrorCode; reason: string };
  /** contract_prefix: why the evaluated start was not saved (a storage failure, a start that does not fit the window). */
  state_save_failed?: { code: ErrorCode; reason: string };
  /** This run's first generation: its prompt tokens, and how many of them the engine evaluated
   *  (the rest came from the restored or cached prefix and the conversation so far). */
  prompt_tokens?: number;
  prompt_tokens_evaluated?: number;
}

/** The name imprint_prefix's type had before contract_prefix shared it. */
export type ImprintPrefixReceipt = PrefixStartReceipt;

/** As stored in receipts (`engine_stats`), the CLI's --json output and shown in the UI. */
export interface EngineStats {
  /** Generations in this run that reported usage. */
  generations: number;
  /** Of the run's first generation: what the person waited before text began. */
  time_to_first_token_ms?: number;
  /** Decode speed over the run (completion tokens per second of decoding, weighted by tokens). */
  decode_tokens_per_s?: number;
  /** Prefill speed of the first generation. */
  prefill_tokens_per_s?: number;
  /** Of the first generation's prompt, the tokens the engine evaluated: the question alone when
   *  the conversation start was read ahead (ChatSession.warm) or an earlier conversation cached it. */
  first_prompt_tokens_evaluated?: number;
  /** Prompt tokens the engine evaluated (the rest came from its prompt cache), summed. */
  prompt_tokens_evaluated?: number;
  completion_tokens?: number;
}

/** A receipt before it is chained (what the loop produces). */
export interface ReceiptBody {
  receipt_version: typeof RECEIPT_VERSION;
  /** Also the run id. */
  id: string;
  kind: "chat" | "tool_call" | "confirm" | "learn";
  created_at: string;
  model_id: string | null;
  engine: string | null;
  /** Which exact model build answered (a GGUF engine: the file's sha256 and the runtime). Optional:
   *  absent from receipts written before it existed and from engines that report none. */
  model_fingerprint?: ModelFingerprint;
  prompt_sha256: Sha256 | null;
  answer_sha256: Sha256 | null;
  tools_file_sha256: Sha256 | null;
  /** A Python tools run: the hash of the tools project's manifest (the tools file and every file
   *  mounted beside it; docs/tools-projects.md). Absent without Python tools and in older receipts. */
  tools_bundle_sha256?: Sha256;
  /** The Python packages frozen with the tools project (name, version, wheel file, sha256 of the
   *  lock), in install order (docs/packages.md). Absent when it has none, and in older receipts. */
  python_packages?: FrozenPackage[];
  /** sha256 of the project's pylock.toml, when its declared dependencies are locked (docs/packages.md). */
  python_lock_sha256?: Sha256;
  tools_manifest_sha256?: Sha256 | null;
  /** Which kind of tools the run had (absent without tools, and in older receipts). */
  tool_surface?: ToolSurfaceKind;
  /** The store of a facts_store surface. */
  facts_store?: string;
  active_set_sha256: Sha256 | null;
  schema_generator_version: string | null;
  tool_instruction_mode: ToolInstructionMode;
  tool_instruction_sha256: Sha256 | null;
  imprint_id: string | null;
  outcome: RunOutcome;
  code: ErrorCode | null;
  network_used_by_edge: false;
  calls: CallReceipt[];
  /** Calls refused before they ran, and whether a repair turn followed (absent when none). */
  refused_calls?: RefusedCall[];
  /** Each proposed call's check, in order (absent when the engine's turns are not checked). */
  call_checks?: CallCheck[];
  /** Raw prompt/answer, only when the user opted in (includeText). */
  text?: { prompt?: string; answer?: string };
  /** Free-form, hash-covered extras of a kind (e.g. pending action id, imprint evaluation). */
  extra?: Record<string, unknown>;
  /** Who asked for the run when it came from outside Edge's own front doors: "mcp", an MCP client
   *  through `edge mcp serve` (docs/mcp.md). Absent otherwise, and in older receipts. */
  surface?: RequestProtocol;
  /** That client as it named itself when it connected (MCP initialize: clientInfo). */
  client?: ReceiptClient;
  /** Confirm receipts: how the decision to run reached Edge. Absent from older receipts. */
  confirmed_via?: ConfirmedVia;
  // The fields below are optional and absent from receipts written before they existed, so older
  // chains still verify (a receipt's hash covers exactly the fields it has).
  /** Why the run's last generation stopped: "length" means the answer was cut off (truncated). */
  finish_reason?: "stop" | "length";
  /** Time to first token, tokens per second and token counts, when the engine reports usage. */
  engine_stats?: EngineStats;
  /** Context-window fitting, when the engine knows its window. */
  context?: ContextReceipt;
  /** Runs restored from an imprint (docs/contract.md §9): "state" when its saved model state was loaded,
   *  "prefix" when the prefix was evaluated as text (or kept warm by the engine); how, in imprint_prefix. */
  imprint_restore?: "state" | "prefix";
  imprint_prefix?: PrefixStartReceipt;
  /** Runs without an imprint whose engine keeps saved conversation starts (`edge chat --model`):
   *  how the tool contract reached the model — from a saved state, or evaluated (and saved). */
  contract_prefix?: PrefixStartReceipt;
}

/** A stored receipt: the body plus its place in the chain. */
export interface Receipt extends ReceiptBody {
  /** Position in the chain, 1-based. */
  seq: number;
  prev_receipt_sha256: Sha256 | null;
  /** sha256(JCS(the receipt without this field)). */
  receipt_sha256: Sha256;
}
