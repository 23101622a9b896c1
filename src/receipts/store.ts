// The receipt store seam: the chain's consumers depend on this interface only; store-idb.ts
// (browser), store-node.ts (Node files) and store-memory.ts (page lifetime) implement it.
import type { Receipt, ReceiptBody } from "./types.ts";

/** Where receipts live: IndexedDB in the browser, files under $EDGE_DATA_DIR in Node. */
export interface ReceiptStore {
  /** Chain and persist atomically (also against other tabs/processes); rejects with storage_failed. */
  append(body: ReceiptBody): Promise<Receipt>;
  get(id: string): Promise<Receipt | undefined>;
  /** Whether a receipt with this id was appended, in O(1) where the store keeps an id index (Node:
   *  its id markers); get() answers the same question where this is absent. */
  has?(id: string): Promise<boolean>;
  /** Oldest first. */
  list(): Promise<Receipt[]>;
}
