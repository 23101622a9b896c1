// Browser persistence of the workspace VFS: the `vfs` store of the one IndexedDB database
// (keyPath path), one record per file or directory. A commit is one readwrite transaction, so a
// change is stored whole or not at all. Each tab loads the tree when it opens the VFS; changes
// made by another tab afterwards are seen after a reload (last writer per path wins).
import { EdgeError } from "../../contract/errors.ts";
import type { EdgeDb, VfsRecord } from "../../idb/schema.ts";
import { toStorageError } from "../../platform/storage-error.ts";
import { openVfs, type EdgeVfs, type OpenVfsOptions } from "./core.ts";
import type { VfsEntryRecord, VfsPersistence } from "./store.ts";

export function idbVfsPersistence(db: EdgeDb): VfsPersistence {
  return {
    async load() {
      try {
        const records = await db.getAll("vfs");
        return records.filter(isEntryRecord);
      } catch (err) {
        throw toStorageError(err, "load workspace files");
      }
    },
    async commit(put, remove) {
      try {
        const tx = db.transaction("vfs", "readwrite");
        const ops: Promise<unknown>[] = [];
        for (const p of remove) ops.push(tx.store.delete(p));
        for (const r of put) ops.push(tx.store.put({ ...r }));
        await Promise.all([...ops, tx.done]);
      } catch (err) {
        // The browser's quota is a limit the person can act on: its own code, not storage_failed.
        if ((err as { name?: unknown } | null)?.name === "QuotaExceededError") {
          throw new EdgeError("storage_quota_exceeded", {
            name: "QuotaExceededError",
            reason: String((err as Error).message ?? err),
          });
        }
        throw toStorageError(err, "write workspace files");
      }
    },
  };
}

export function openIdbVfs(db: EdgeDb, options: Omit<OpenVfsOptions, "persistence"> = {}): Promise<EdgeVfs> {
  return openVfs({ ...options, persistence: idbVfsPersistence(db) });
}

function isEntryRecord(r: VfsRecord): r is VfsRecord & VfsEntryRecord {
  return (r["type"] === "file" && r["data"] instanceof Uint8Array) || r["type"] === "directory";
}
