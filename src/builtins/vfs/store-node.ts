// Node persistence of the workspace VFS: one snapshot file, $EDGE_DATA_DIR/vfs/<name>.json
// (file bytes base64), replaced atomically after every change under an inter-process lock.
// Rewriting the snapshot costs O(workspace size) per change, which the VFS size limits keep
// small; the CLI and tests use it, the browser uses IndexedDB (store-idb.ts).
import path from "node:path";
import { EdgeError } from "../../contract/errors.ts";
import {
  dataDir,
  ensurePrivateDir,
  readTextIfExists,
  withFileLock,
  writeFileAtomic,
} from "../../platform/node-files.ts";
import { toStorageError } from "../../platform/storage-error.ts";
import { openVfs, type EdgeVfs, type OpenVfsOptions } from "./core.ts";
import type { VfsEntryRecord, VfsPersistence } from "./store.ts";

const SNAPSHOT_VERSION = "edge.vfs.snapshot.v1";

interface StoredEntry {
  path: string;
  type: "file" | "directory";
  mode: number;
  mtime: number;
  data_base64?: string;
}

export interface NodeVfsOptions {
  /** Default: dataDir()/vfs. */
  dir?: string;
  /** Snapshot name (one workspace per name). Default "default". */
  name?: string;
}

/** The snapshot file of a stored workspace (it exists once something was written to it). */
export function nodeVfsFile(options: NodeVfsOptions = {}): string {
  const dir = options.dir ?? path.join(dataDir(), "vfs");
  const name = options.name ?? "default";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name))
    throw new EdgeError("invalid_workspace_name", { name }, "The workspace name must be 1–64 of [A-Za-z0-9_-].");
  return path.join(dir, `${name}.json`);
}

function nodeVfsPersistence(options: NodeVfsOptions = {}): VfsPersistence {
  const file = nodeVfsFile(options);
  const dir = path.dirname(file);
  const name = path.basename(file, ".json");
  const lock = path.join(dir, `.${name}.lock`);

  async function read(): Promise<Map<string, StoredEntry>> {
    const text = await readTextIfExists(file, "load workspace files");
    if (text === undefined) return new Map();
    try {
      const parsed = JSON.parse(text) as { schema_version: string; entries: StoredEntry[] };
      if (parsed.schema_version !== SNAPSHOT_VERSION || !Array.isArray(parsed.entries))
        throw new Error("unexpected content");
      return new Map(parsed.entries.map((e) => [e.path, e]));
    } catch (err) {
      throw toStorageError(err, "load workspace files", {
        path: file,
        reason: `corrupt workspace snapshot: ${String(err)}`,
      });
    }
  }

  return {
    async load() {
      return [...(await read()).values()].map(toRecord);
    },
    async commit(put, remove) {
      await ensurePrivateDir(dir, { narrow: true });
      await withFileLock(lock, async () => {
        // Re-read under the lock: another process may have changed other paths meanwhile.
        const next = await read();
        for (const p of remove) next.delete(p);
        for (const r of put) next.set(r.path, fromRecord(r));
        await writeFileAtomic(file, JSON.stringify({ schema_version: SNAPSHOT_VERSION, entries: [...next.values()] }));
      });
    },
  };
}

export function openNodeVfs(options: NodeVfsOptions & Omit<OpenVfsOptions, "persistence"> = {}): Promise<EdgeVfs> {
  const { dir, name, ...rest } = options;
  return openVfs({ ...rest, persistence: nodeVfsPersistence({ ...(dir ? { dir } : {}), ...(name ? { name } : {}) }) });
}

function toRecord(e: StoredEntry): VfsEntryRecord {
  return {
    path: e.path,
    type: e.type,
    mode: e.mode,
    mtime: e.mtime,
    ...(e.type === "file" ? { data: new Uint8Array(Buffer.from(e.data_base64 ?? "", "base64")) } : {}),
  };
}

function fromRecord(r: VfsEntryRecord): StoredEntry {
  return {
    path: r.path,
    type: r.type,
    mode: r.mode,
    mtime: r.mtime,
    ...(r.data ? { data_base64: Buffer.from(r.data).toString("base64") } : {}),
  };
}
