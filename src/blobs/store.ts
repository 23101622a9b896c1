// Large binary entries kept on the device — downloaded model files today, anything of that size
// later (e.g. a model's saved state) — behind one interface, one file per backend:
//   store-opfs.ts    the origin-private file system, written with createWritable (Chromium, Firefox)
//   store-idb.ts     IndexedDB, as Blob chunks (browsers without OPFS or createWritable: Safari,
//                    WebKitGTK)
//   store-memory.ts  this page or worker only (nothing can store here: say so, promise nothing)
// index.ts picks the first that works. An entry is written in steps (begin → write… → staged →
// commit) and is listed or returned only once committed: a failed, aborted or interrupted write
// leaves nothing that counts, and the next begin or delete of its key removes the remains.

import { EdgeError } from "../contract/errors.ts";
import { toStorageError } from "../platform/storage-error.ts";

export type BlobStoreKind = "opfs" | "idb" | "memory";

/** What a caller records beside the bytes (JSON). */
export type BlobMeta = Record<string, unknown>;

export interface BlobEntry<M extends BlobMeta> {
  key: string;
  size: number;
  meta: M;
}

export interface BlobWriter<M extends BlobMeta> {
  /** Append bytes (in order). Rejects with storage_failed (e.g. the quota) and keeps nothing. */
  write(chunk: Uint8Array): Promise<void>;
  /** Everything written so far, readable before it is an entry (to check it). No more writes. */
  staged(): Promise<Blob>;
  /** Make it the entry `key` with `meta`; resolves with the stored bytes. */
  commit(meta: M): Promise<Blob>;
  /** Drop what was written; nothing stays. Never rejects. */
  abort(): Promise<void>;
}

export interface BlobStore<M extends BlobMeta> {
  readonly kind: BlobStoreKind;
  /** Whether entries outlive this page (false for the memory store). */
  readonly persistent: boolean;
  /** Start writing entry `key` (an entry or the remains of a write under that key go first). */
  begin(key: string): Promise<BlobWriter<M>>;
  get(key: string): Promise<{ entry: BlobEntry<M>; blob: Blob } | undefined>;
  /** Every committed entry. */
  list(): Promise<BlobEntry<M>[]>;
  /** Remove an entry and any remains of a write under its key. */
  delete(key: string): Promise<void>;
}

/** The browser refused a write for lack of space. */
export function isQuota(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === "QuotaExceededError" || name === "NS_ERROR_DOM_QUOTA_REACHED";
}

/** A failed write as the table's code: lack of space gets a sentence a person can act on. */
export function writeError(err: unknown, op: string): EdgeError {
  if (err instanceof EdgeError) return err;
  const name = (err as { name?: unknown } | null)?.name;
  if (isQuota(err)) {
    return new EdgeError(
      "storage_failed",
      { op, name, reason: "quota" },
      "This site has no room left to store the file on this device: delete stored models or free disk space. Nothing was kept.",
    );
  }
  return toStorageError(err, op);
}
