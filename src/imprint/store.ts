// The imprint store seam: learn() and the restore gate depend on this interface only;
// store-idb.ts (browser), store-node.ts (Node files) and store-memory.ts (tests, demos) implement it.
import type { Imprint, ImprintListing } from "./record.ts";

/** Where imprints live: IndexedDB in the browser, files under $EDGE_DATA_DIR in Node. */
export interface ImprintStore {
  /** Store a sealed imprint; refuses (storage_failed) to replace one with the same id. */
  put(imprint: Imprint): Promise<void>;
  /** The verified imprint; imprint_not_found / imprint_corrupted. */
  get(id: string): Promise<Imprint>;
  /** Every stored imprint, oldest first; a corrupted one is listed with `corrupted: true` and not returned as usable. */
  list(): Promise<ImprintListing[]>;
  /** imprint_not_found when absent. */
  delete(id: string): Promise<void>;
}
