// The IndexedDB backend of the blob store (store.ts), for browsers without OPFS or createWritable
// (Safari, WebKitGTK): database `<name>`, an `entries` record per key ({key, size, meta,
// chunks, complete}) and the bytes as Blob chunks of 4 MiB under [key, index]. A download streams
// into chunks as it arrives (memory: one chunk), and the entry is read back as one Blob made of
// the stored chunks (or, where Blobs cannot be stored, of their bytes). A write marks its record incomplete first and complete on commit; list and
// get skip incomplete records, and begin/delete of the key clear them.
import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import { toStorageError } from "../platform/storage-error.ts";
import { isQuota, writeError, type BlobEntry, type BlobMeta, type BlobStore, type BlobWriter } from "./store.ts";

const CHUNK_BYTES = 4 * 1024 * 1024;

interface EntryRecord<M> {
  key: string;
  size: number;
  chunks: number;
  complete: boolean;
  meta: M | null;
}

interface BlobDbSchema<M> extends DBSchema {
  entries: { key: string; value: EntryRecord<M> };
  chunks: { key: [string, number]; value: Blob | ArrayBuffer };
}

/** IndexedDB here (page or worker), and willing to open a database. */
export async function idbUsable(name: string): Promise<boolean> {
  if (typeof indexedDB === "undefined") return false;
  return openBlobDb(name).then(
    (db) => (db.close(), true),
    () => false,
  );
}

function openBlobDb<M>(name: string): Promise<IDBPDatabase<BlobDbSchema<M>>> {
  return openDB<BlobDbSchema<M>>(name, 1, {
    upgrade(db) {
      db.createObjectStore("entries", { keyPath: "key" });
      db.createObjectStore("chunks");
    },
  });
}

const chunkRange = (key: string) => IDBKeyRange.bound([key, 0], [key, Number.MAX_SAFE_INTEGER]);

export function createIdbBlobStore<M extends BlobMeta>(name: string): BlobStore<M> {
  let opened: Promise<IDBPDatabase<BlobDbSchema<M>>> | undefined;
  const db = () => {
    opened ??= openBlobDb<M>(name).catch((e: unknown) => {
      opened = undefined;
      throw toStorageError(e, "open", { db: name });
    });
    return opened;
  };

  async function drop(key: string): Promise<void> {
    const tx = (await db()).transaction(["entries", "chunks"], "readwrite");
    await Promise.all([
      tx.objectStore("entries").delete(key),
      tx.objectStore("chunks").delete(chunkRange(key)),
      tx.done,
    ]);
  }

  async function bytesOf(record: EntryRecord<M>): Promise<Blob | undefined> {
    const parts = await (await db()).getAll("chunks", chunkRange(record.key));
    const blob = new Blob(parts);
    return parts.length === record.chunks && blob.size === record.size ? blob : undefined;
  }

  return {
    kind: "idb",
    persistent: true,
    async begin(key): Promise<BlobWriter<M>> {
      await drop(key);
      await (await db()).put("entries", { key, size: 0, chunks: 0, complete: false, meta: null });
      let pending: Uint8Array<ArrayBuffer>[] = [];
      let pendingBytes = 0;
      let size = 0;
      let chunks = 0;
      // Blob values where the browser keeps them (on disk, read back lazily); WebKit refuses Blobs
      // in a private or automation session ("Error preparing Blob/File data"), so there the chunk
      // goes in as its bytes — anything but a full quota is retried that way once, then kept so.
      let asBytes = false;
      const flush = async () => {
        if (!pendingBytes) return;
        const parts = pending;
        pending = [];
        pendingBytes = 0;
        const bytes = async () => await new Blob(parts).arrayBuffer();
        const put = async (value: Blob | ArrayBuffer) => (await db()).put("chunks", value, [key, chunks]);
        if (asBytes) await put(await bytes());
        else {
          try {
            await put(new Blob(parts));
          } catch (e) {
            if (isQuota(e)) throw e;
            asBytes = true;
            await put(await bytes());
          }
        }
        chunks += 1;
      };
      const record = (complete: boolean, meta: M | null): EntryRecord<M> => ({ key, size, chunks, complete, meta });
      return {
        async write(chunk) {
          pending.push(chunk as Uint8Array<ArrayBuffer>);
          pendingBytes += chunk.length;
          size += chunk.length;
          try {
            if (pendingBytes >= CHUNK_BYTES) await flush();
          } catch (e) {
            throw writeError(e, "write");
          }
        },
        async staged() {
          try {
            await flush();
            await (await db()).put("entries", record(false, null));
          } catch (e) {
            throw writeError(e, "write");
          }
          const blob = await bytesOf(record(false, null));
          if (!blob) throw writeError(new Error("the stored chunks do not add up to what was written"), "read back");
          return blob;
        },
        async commit(meta) {
          const done = record(true, meta);
          try {
            await (await db()).put("entries", done);
          } catch (e) {
            throw writeError(e, "commit");
          }
          const blob = await bytesOf(done);
          if (!blob) throw writeError(new Error("the stored chunks do not add up to what was written"), "commit");
          return blob;
        },
        async abort() {
          pending = [];
          await drop(key).catch(() => undefined);
        },
      };
    },
    async get(key) {
      const record = await (await db()).get("entries", key);
      if (!record?.complete || !record.meta) return undefined;
      const blob = await bytesOf(record);
      return blob ? { entry: { key, size: record.size, meta: record.meta }, blob } : undefined;
    },
    async list() {
      const records = await (await db()).getAll("entries");
      return records
        .filter((r) => r.complete && r.meta)
        .map((r): BlobEntry<M> => ({ key: r.key, size: r.size, meta: r.meta as M }));
    },
    delete: drop,
  };
}
