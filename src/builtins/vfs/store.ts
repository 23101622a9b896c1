// The VFS persistence seam: the in-memory tree (core.ts) writes every change through this interface
// before a call returns; store-idb.ts (browser), store-node.ts (a snapshot file in Node) and
// store-dir.ts (a folder on disk as the workspace) implement it.

/** One stored entry: what the persistence adapters keep, keyed by path. */
export interface VfsEntryRecord {
  path: string;
  type: "file" | "directory";
  /** File bytes (files only). */
  data?: Uint8Array;
  mode: number;
  /** Milliseconds since the epoch. */
  mtime: number;
}

export interface VfsPersistence {
  /** Every stored entry (any order). */
  load(): Promise<VfsEntryRecord[]>;
  /** Store `put` and remove `remove` atomically. Rejects (storage_failed) without partial effects. */
  commit(put: readonly VfsEntryRecord[], remove: readonly string[]): Promise<void>;
}
