// The pending-action store seam: confirm() and the broker depend on this interface only;
// store-idb.ts (browser), store-node.ts (Node files) and store-memory.ts (page lifetime) implement it.
import type { PendingAction } from "./types.ts";

/**
 * Where pending actions live. `update` is THE atomic step: read the record and, if `fn` returns a
 * new record, write it, with no other writer (tab, process) in between. `fn` must be synchronous
 * (IndexedDB transactions cannot wait for anything else).
 */
export interface PendingStore {
  /** Insert a new record; fails (storage_failed) if the id exists. */
  create(record: PendingAction): Promise<void>;
  get(id: string): Promise<PendingAction | undefined>;
  /** Oldest first. */
  list(): Promise<PendingAction[]>;
  update(
    id: string,
    fn: (current: PendingAction) => PendingAction | null,
  ): Promise<{ current: PendingAction | undefined; written: PendingAction | null }>;
  delete(id: string): Promise<void>;
}
