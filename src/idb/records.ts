// Every record the one IndexedDB schema (idb-schema.ts) stores, declared once, types only. The
// features above the schema that own them (confirm, facts, imprint) re-export them from here, so each
// feature's store-idb.ts reads and writes its records with the schema's own types, without casts.
// It sits in `store`, below those features (docs/architecture.md), and imports only lower layers.
import type { ErrorCode, ErrorJson } from "../contract/errors.ts";
import type { Sha256 } from "../contract/hash.ts";
import type { ExecutionLevel, JsonObject } from "../contract/types.ts";
import type { ModelFingerprint } from "../engines/engine.ts";
import type { ToolSurfaceKind } from "../receipts/types.ts";
import type { VfsEntryRecord } from "../builtins/vfs/store.ts";

// ---- pending actions (confirm/) ----

/**
 * pending → claimed → done | failed; pending → expired | rejected. `claimed` is the at-most-once
 * point: a claimed action is never run again, and one left claimed (a crash between the side
 * effect and the receipt) stays visible as claimed.
 */
export type PendingStatus = "pending" | "claimed" | "done" | "failed" | "expired" | "rejected";

/** The selection the session froze its active set with (re-applied when confirming). */
export interface BoundSelection {
  tool: string[];
  tool_tag: string[];
}

export interface PendingAction {
  record_version: "edge.pending.v1";
  id: string;
  status: PendingStatus;
  created_at: string;
  expires_at: string;
  tool_name: string;
  execution_level: ExecutionLevel;
  /** Exactly what will run. null once wiped (expiry, rejection): arguments may be sensitive. */
  arguments: JsonObject | null;
  arguments_wiped: boolean;
  /** The tools source's name/path (Node: the absolute path the CLI re-reads). */
  tools_file: string;
  selection: BoundSelection;
  tools_file_sha256: Sha256;
  /** The folder the tools project is read from when it is not the tools file's own (--tools-root). */
  tools_root?: string;
  /** The tools project's manifest hash (absent in records made before projects existed). */
  tools_bundle_sha256?: Sha256;
  /** That manifest's files (path → sha256), to name the file that changed; not bound (the hash is). */
  tools_files?: Record<string, string>;
  active_set_sha256: Sha256;
  tool_schema_sha256: Sha256;
  args_sha256: Sha256;
  /** sha256 of the single-use token; the token itself is never stored. */
  token_sha256: Sha256;
  /** sha256(JCS({binding_version, every field above except status/arguments_wiped})). */
  binding_sha256: Sha256;
  /** HMAC-SHA256 keyed with the token over binding_sha256 (hex): storage edits cannot re-bind without the token. */
  binding_mac: string;
  /** The chat run and call that asked. */
  run_id: string | null;
  call_id: string | null;
  claimed_at?: string;
  finished_at?: string;
  rejected_at?: string;
  expired_at?: string;
  /** The confirm receipt, when the run reached one. */
  receipt_id?: string;
  result_sha256?: Sha256;
  /** Why it failed (failed), or a problem after it ran (e.g. storage_failed for the receipt). */
  code?: ErrorCode;
}

/** A pending action as stored: the record itself (the `by_status` index reads `status`). */
export type PendingActionRecord = PendingAction;

// ---- facts (facts/) ----

/** Where an imported fact came from (facts from URLs and saved HTML pages). Optional: a facts
 *  file written by hand, or by Edge Studio, has none. */
export interface FactProvenance {
  /** The page's URL after redirects (a saved file: `file:` + its name). */
  source_url: string;
  /** sha256 of the page's bytes as fetched (or read from the saved file). */
  page_sha256: string;
  fetched_at?: string;
  /** How the page became facts: `page` (its main text) or `html-table-rows`. */
  split?: string;
}

export interface Fact {
  fact_id: string;
  topic: string;
  text: string;
  tags: string[];
  source_label: string;
  provenance?: FactProvenance;
}

/** A fact as stored: keyed by [store, fact_id], the `by_store` index reads `store`. */
export type FactRecord = Fact & { store: string /** When the import that wrote it ran. */; imported_at?: string };

/** A facts store's revision, kept in `meta` under "facts.revision/<store>". */
export type FactsRevisionRecord = { revision: number; updated_at: string };

// ---- imprints (imprint/) ----

export interface ImprintState {
  /** The state file's format, as the engine names it (llama.cpp: "llama.cpp.seq_state"), and the
   *  version its header carries. */
  format: string;
  format_version: number;
  /** sha256 and size of the state file's bytes. */
  artifact_sha256: Sha256;
  artifact_bytes: number;
  /** The GGUF file the state was evaluated with (the model fingerprint's sha256). */
  model_sha256: Sha256;
  /** The runtime and its version (the fingerprint's runtime), e.g. "node-llama-cpp 3.22.1". */
  runtime: string;
  /** The context window the state was saved from. */
  context_size: number;
  /** sha256 of the system message whose evaluation the state holds (the imprint's prefix). */
  prefix_sha256: Sha256;
  /** The tokens it holds: the template's rendering of that system message, up to the next user turn. */
  prefix_tokens: number;
  tokens_sha256: Sha256;
}

export interface ImprintEvaluationItem {
  question_sha256: Sha256;
  expected_tool: string | null;
  /** What the output parsed to without / with the prefix: a tool name, "answer", "invalid" or "error:<code>". */
  without_prefix: string;
  with_prefix: string;
  matched_without: boolean;
  matched_with: boolean;
}

export interface ImprintEvaluation {
  /** How the evaluation ran: "engine" (the learning engine answered), "skipped" (no scored question). */
  mode: "engine" | "skipped";
  engine: string;
  model_id: string;
  question_count: number;
  /** Questions with an expectation (expected_tool given, null meaning "no call"). */
  scored: number;
  matched_without_prefix: number;
  matched_with_prefix: number;
  items: ImprintEvaluationItem[];
  /** Milliseconds of the prefix-only prefill pass before the questions (web-llm); null when the
   *  engine has no prefill to warm (scripted). */
  prefill_ms: number | null;
}

export interface ImprintTools {
  /** Where the imprint's tools came from; chat must restore it with the same kind of surface.
   *  Absent in imprints learned before facts surfaces could be learned: a tools file. */
  surface?: ToolSurfaceKind;
  schema_generator_version: string;
  active_set_sha256: Sha256;
  /** Tool name → schema_sha256 (sha256(JCS(schema))). */
  tool_schema_sha256: Record<string, Sha256>;
  /** Informational only: a function-body edit changes it and must still restore. */
  tools_file_sha256: Sha256 | null;
  /** A manifest surface's file hash (informational, like tools_file_sha256). */
  tools_manifest_sha256?: Sha256;
  /** A facts_store surface's store. */
  facts_store?: string;
}

export interface ImprintRecordBody {
  imprint_version: "edge.imprint.v1";
  id: string;
  created_at: string;
  runtime: { edge: string; imprint_prefix: string; tool_contract: string };
  model: { engine: string; model_id: string; fingerprint: ModelFingerprint | null };
  sample: {
    sample_id: string;
    peer_id: string;
    app_id: string;
    base_model_id: string;
    sample_sha256: Sha256;
    record_count: number;
    correction_count: number;
    question_count: number;
  };
  /** null when learned without tools. */
  tools: ImprintTools | null;
  max_calls: number;
  prefix: string;
  prefix_sha256: Sha256;
  evaluation: ImprintEvaluation;
  warnings: ErrorJson[];
  learn_receipt_id: string | null;
  /** The saved model state of the prefix (a file beside the record), bound by sha256 to the model
   *  file, runtime, context size and tokens. Absent or null: the engine could not save one (scripted,
   *  web-llm, the browser's llama.cpp) or the imprint predates it; restore evaluates the prefix. */
  state?: ImprintState | null;
}

export interface Imprint extends ImprintRecordBody {
  imprint_sha256: Sha256;
}

/** An imprint as stored (re-verified on every read, imprint/record.ts verifyImprint). */
export type ImprintRecord = Imprint;

// ---- the workspace VFS (builtins/vfs/) ----

/** One file or directory of the workspace VFS, keyed by path (declared by the VFS seam, a lower layer). */
export type VfsRecord = VfsEntryRecord;

// ---- chat sessions ----

/** A chat session (no feature stores one yet: only the key is fixed). */
export interface SessionRecord {
  id: string;
  [field: string]: unknown;
}
