// Which blob store this browser can use (store.ts): OPFS with createWritable, else IndexedDB,
// else memory only. Page and worker see the same browser, so they pick the same store; entries
// of a store that is no longer the first (an OPFS that became writable after an update) are
// still found, listed and deleted.
import { createIdbBlobStore, idbUsable } from "./store-idb.ts";
import { createMemoryBlobStore } from "./store-memory.ts";
import { createOpfsBlobStore, opfsWritable } from "./store-opfs.ts";
import type { BlobMeta, BlobStore } from "./store.ts";

export type { BlobMeta, BlobStore } from "./store.ts";

export interface BlobStoreOptions {
  /** The OPFS folder and the IndexedDB database (one per kind of content, e.g. "edge-models"). */
  name: string;
  /** File name extension of an OPFS entry's bytes (e.g. ".gguf"). */
  ext?: string;
}

/** Every store that keeps entries here, the one new entries go to first ([] where none can). */
export async function persistentBlobStores<M extends BlobMeta>(options: BlobStoreOptions): Promise<BlobStore<M>[]> {
  const [opfs, idb] = await Promise.all([opfsWritable(), idbUsable(options.name)]);
  return [
    ...(opfs ? [createOpfsBlobStore<M>(options.name, options.ext)] : []),
    ...(idb ? [createIdbBlobStore<M>(options.name)] : []),
  ];
}

export { createMemoryBlobStore };
