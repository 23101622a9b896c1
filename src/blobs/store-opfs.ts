// The OPFS backend of the blob store (store.ts): folder `<name>`, per entry `<key><ext>` (the
// bytes) + `<key>.json` ({size, meta}); a write goes to `<key>.part` and is moved into place on
// commit, then its .json is written: only an entry with both, sizes matching, is listed. Why OPFS
// first: it streams hundreds of MB to disk as they arrive and hands them back as a File that is
// read without another copy. Needs `FileSystemFileHandle.createWritable` (Safari and WebKitGTK
// lack it: they use IndexedDB).
import { writeError, type BlobEntry, type BlobMeta, type BlobStore, type BlobWriter } from "./store.ts";

interface EntryFile<M> {
  size: number;
  meta: M;
}

type MovableHandle = FileSystemFileHandle & { move(name: string): Promise<void> };

/** OPFS with createWritable, here (page or worker); false where it is missing or refused. */
export async function opfsWritable(): Promise<boolean> {
  const storage = (globalThis.navigator as Navigator | undefined)?.storage;
  if (typeof storage?.getDirectory !== "function" || typeof FileSystemFileHandle === "undefined") return false;
  if (typeof (FileSystemFileHandle.prototype as { createWritable?: unknown }).createWritable !== "function")
    return false;
  // Private windows may refuse the directory itself.
  return storage.getDirectory().then(
    () => true,
    () => false,
  );
}

async function remove(dir: FileSystemDirectoryHandle, name: string): Promise<void> {
  await dir.removeEntry(name).catch(() => undefined);
}

export function createOpfsBlobStore<M extends BlobMeta>(name: string, ext = ".bin"): BlobStore<M> {
  const folder = async () => (await navigator.storage.getDirectory()).getDirectoryHandle(name, { create: true });
  const file = (dir: FileSystemDirectoryHandle, key: string) =>
    dir.getFileHandle(`${key}${ext}`).then(
      (h) => h.getFile(),
      () => undefined,
    );

  async function readRecord(dir: FileSystemDirectoryHandle, key: string): Promise<EntryFile<M> | undefined> {
    try {
      // Entries written before this store existed hold the meta itself (it has the size).
      const raw = JSON.parse(await (await (await dir.getFileHandle(`${key}.json`)).getFile()).text()) as
        | EntryFile<M>
        | (M & { size?: number });
      return "meta" in raw ? (raw as EntryFile<M>) : { size: Number(raw.size), meta: raw };
    } catch {
      return undefined;
    }
  }

  async function drop(dir: FileSystemDirectoryHandle, key: string): Promise<void> {
    await remove(dir, `${key}.json`);
    await remove(dir, `${key}${ext}`);
    await remove(dir, `${key}.part`);
  }

  const store: BlobStore<M> = {
    kind: "opfs",
    persistent: true,
    async begin(key): Promise<BlobWriter<M>> {
      const dir = await folder();
      await drop(dir, key);
      const handle = (await dir.getFileHandle(`${key}.part`, { create: true })) as MovableHandle;
      const writable = await handle.createWritable();
      let size = 0;
      let closed = false;
      const close = async () => {
        if (!closed) await writable.close();
        closed = true;
      };
      return {
        async write(chunk) {
          try {
            await writable.write(chunk as Uint8Array<ArrayBuffer>);
          } catch (e) {
            throw writeError(e, "write");
          }
          size += chunk.length;
        },
        async staged() {
          await close();
          return handle.getFile();
        },
        async commit(meta) {
          try {
            await close();
            await handle.move(`${key}${ext}`);
            const w = await (await dir.getFileHandle(`${key}.json`, { create: true })).createWritable();
            await w.write(JSON.stringify({ size, meta } satisfies EntryFile<M>));
            await w.close();
          } catch (e) {
            throw writeError(e, "commit");
          }
          const bytes = await file(dir, key);
          if (!bytes) throw writeError(new Error("the stored file vanished"), "commit");
          return bytes;
        },
        async abort() {
          if (!closed) await writable.abort().catch(() => undefined);
          closed = true;
          await drop(dir, key);
        },
      };
    },
    async get(key) {
      const dir = await folder();
      const record = await readRecord(dir, key);
      const bytes = record ? await file(dir, key) : undefined;
      return record && bytes?.size === record.size
        ? { entry: { key, size: record.size, meta: record.meta }, blob: bytes }
        : undefined;
    },
    async list() {
      const dir = await folder();
      const out: BlobEntry<M>[] = [];
      for await (const entryName of dir.keys()) {
        if (!entryName.endsWith(".json")) continue;
        const got = await store.get(entryName.slice(0, -5));
        if (got) out.push(got.entry);
      }
      return out;
    },
    async delete(key) {
      await drop(await folder(), key);
    },
  };
  return store;
}
