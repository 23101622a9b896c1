// Pending actions (docs/contract.md §6): what a commit tool call becomes when chat reaches it, and
// the store seam the confirmation core needs. The core never touches IndexedDB or files itself:
// `store-idb.ts` (browser) and `store-node.ts` (Node) implement PendingStore (store.ts).
import type { ErrorJson } from "../contract/errors.ts";
import type { JsonObject } from "../contract/types.ts";
import type { BoundSelection, PendingAction, PendingStatus } from "../idb/records.ts";

// The stored record is declared with the IndexedDB schema's other records (idb/records.ts).
export type { BoundSelection, PendingAction, PendingStatus };

export const PENDING_RECORD_VERSION: PendingAction["record_version"] = "edge.pending.v1";
export const BINDING_VERSION = "edge.pending.binding.v1";
/** 10 minutes (docs/contract.md §6). */
export const DEFAULT_PENDING_TTL_MS = 10 * 60 * 1000;
/** Finished, rejected and expired records are deleted this long after they expired. */
export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;

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
