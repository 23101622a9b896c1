// Pending actions (SPEC §6, issue 5): what a commit tool call becomes when chat reaches it, and
// the store seam the confirmation core needs. The core never touches IndexedDB or files itself:
// `store-idb.ts` (browser) and `store-node.ts` (Node) implement PendingStore (store.ts).
import type { ErrorCode, ErrorJson } from "../contract/errors.ts";
import type { Sha256 } from "../contract/hash.ts";
import type { ExecutionLevel, JsonObject } from "../contract/types.ts";

export const PENDING_RECORD_VERSION = "edge.pending.v1";
export const BINDING_VERSION = "edge.pending.binding.v1";
/** 10 minutes (SPEC §6). */
export const DEFAULT_PENDING_TTL_MS = 10 * 60 * 1000;
/** Finished, rejected and expired records are deleted this long after they expired. */
export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * pending → claimed → done | failed; pending → expired | rejected. `claimed` is the at-most-once
 * point: a claimed action is never run again, and one left claimed (a crash between the side
 * effect and the receipt) stays visible as claimed.
 */
export type PendingStatus = "pending" | "claimed" | "done" | "failed" | "expired" | "rejected";
export const PENDING_STATUSES: readonly PendingStatus[] = ["pending", "claimed", "done", "failed", "expired", "rejected"];

/** The selection the session froze its active set with (re-applied when confirming). */
export interface BoundSelection {
  tool: string[];
  tool_tag: string[];
}

export interface PendingAction {
  record_version: typeof PENDING_RECORD_VERSION;
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

/** What a person sees before deciding: the action without its secrets' hashes. */
export type PendingView = Omit<PendingAction, "token_sha256" | "binding_mac">;

/** The ticket handed to the page / printed by the CLI: the token appears here once. */
export interface PendingTicketInfo {
  id: string;
  expires_at: string;
  confirmation_token: string;
}

/** What confirm/reject return (and `edge tools confirm --json` prints). */
export interface ConfirmOutcome {
  ok: boolean;
  id: string;
  /** The record's status after this attempt (null when there is no record). */
  status: PendingStatus | null;
  result?: JsonObject;
  receipt_id?: string;
  error?: ErrorJson;
}
