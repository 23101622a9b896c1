// The store of last resort: entries live in this page or worker only (store.ts). Used where no
// other store works (e.g. a browser that refuses storage in a cross-site frame), so a model from a
// URL still loads — it is downloaded again next time, and the UI says so before the download.
import type { BlobEntry, BlobMeta, BlobStore, BlobWriter } from "./store.ts";
import { EdgeError } from "../contract/errors.ts";

export function createMemoryBlobStore<M extends BlobMeta>(): BlobStore<M> {
  const entries = new Map<string, { entry: BlobEntry<M>; blob: Blob }>();
  return {
    kind: "memory",
    persistent: false,
    async begin(key): Promise<BlobWriter<M>> {
      entries.delete(key);
      const parts: Uint8Array<ArrayBuffer>[] = [];
      let size = 0;
      let blob: Blob | undefined;
      const staged = async () => (blob ??= new Blob(parts.splice(0)));
      return {
        async write(chunk) {
          if (blob)
            throw new EdgeError(
              "storage_failed",
              { op: "write", reason: "write after staged()" },
              "A chunk was written after staged(), so the file would not match what was staged; write every chunk before staged() or commit(), then save the file again.",
            );
          parts.push(chunk as Uint8Array<ArrayBuffer>); // a download's chunks are fresh buffers: kept, not copied
          size += chunk.length;
        },
        staged,
        async commit(meta) {
          const bytes = await staged();
          entries.set(key, { entry: { key, size, meta }, blob: bytes });
          return bytes;
        },
        async abort() {
          parts.length = 0;
          blob = undefined;
        },
      };
    },
    get: async (key) => entries.get(key),
    list: async () => [...entries.values()].map((e) => e.entry),
    delete: async (key) => void entries.delete(key),
  };
}
