// The receipt of SPEC §9: hash-first, one per run, chained. Raw text only with includeText.
import type { ErrorCode } from "../contract/errors.ts";
import type { Sha256 } from "../contract/hash.ts";
import type { ExecutionLevel } from "../contract/types.ts";
import type { ModelFingerprint } from "../engines/engine.ts";

export const RECEIPT_VERSION = "edge.receipt.v1";

export type RunOutcome = "answered" | "return_direct" | "pending_confirmation" | "failed_closed";
export type CallStatus = "ok" | "failed_closed" | "pending_confirmation" | "aborted";
/** imprint_with_contract: a profile-only imprint joined with a facts surface (the lookups' contract
 *  is injected before the imprint's prefix). */
export type ToolInstructionMode = "contract" | "imprint" | "imprint_with_contract" | "none";
export type ToolSurfaceKind = "tools_file" | "tools_manifest" | "facts_store";

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
  /** Only with includeText. */
  arguments?: unknown;
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
  /** Raw prompt/answer, only when the user opted in (includeText). */
  text?: { prompt?: string; answer?: string };
  /** Free-form, hash-covered extras of a kind (e.g. pending action id, imprint evaluation). */
  extra?: Record<string, unknown>;
}

/** A stored receipt: the body plus its place in the chain. */
export interface Receipt extends ReceiptBody {
  /** Position in the chain, 1-based. */
  seq: number;
  prev_receipt_sha256: Sha256 | null;
  /** sha256(JCS(the receipt without this field)). */
  receipt_sha256: Sha256;
}

/** Where receipts live: IndexedDB in the browser, files under $EDGE_DATA_DIR in Node. */
export interface ReceiptStore {
  /** Chain and persist atomically (also against other tabs/processes); rejects with storage_failed. */
  append(body: ReceiptBody): Promise<Receipt>;
  get(id: string): Promise<Receipt | undefined>;
  /** Oldest first. */
  list(): Promise<Receipt[]>;
}
