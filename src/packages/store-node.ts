// Wheels on disk: $EDGE_DATA_DIR/packages/<wheel file name>, one file each, written atomically
// (a temp file renamed into place) and private to the user like the rest of Edge's data. The
// folder is Edge's data, so a tools project never mounts it (node-project-source.ts skips it).
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { toStorageError } from "../platform/storage-error.ts";
import { dataDir, ensurePrivateDir, listDirIfExists, unlinkIfExists, writeFileAtomic } from "../platform/node-files.ts";
import type { PackageStore, StoredWheel } from "./store.ts";

/** The store's folder: $EDGE_DATA_DIR/packages (or the platform's data folder, platform/node-files.ts). */
function packagesDir(): string {
  return path.join(dataDir(), "packages");
}

/** A wheel's name as a file name of this folder (the lock's file_name is checked to be one). */
function fileIn(dir: string, fileName: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(fileName))
    throw toStorageError(new Error(`not a wheel file name: ${JSON.stringify(fileName)}`), "name a wheel");
  return path.join(dir, fileName);
}

export function createNodePackageStore(dir: string = packagesDir()): PackageStore {
  return {
    location: dir,
    async get(fileName) {
      try {
        return new Uint8Array(await readFile(fileIn(dir, fileName)));
      } catch (err) {
        if ((err as { code?: unknown }).code === "ENOENT") return undefined;
        throw toStorageError(err, "read a wheel", { path: path.join(dir, fileName) });
      }
    },
    async put(fileName, bytes) {
      await ensurePrivateDir(dir, { narrow: true });
      await writeFileAtomic(fileIn(dir, fileName), bytes);
    },
    async remove(fileName) {
      const file = fileIn(dir, fileName);
      const existed = await stat(file).then(
        () => true,
        () => false,
      );
      await unlinkIfExists(file, "remove a wheel");
      return existed;
    },
    async list() {
      const out: StoredWheel[] = [];
      for (const name of await listDirIfExists(dir, "list wheels")) {
        if (name.startsWith(".")) continue; // a temp file of an atomic write
        const st = await stat(path.join(dir, name)).catch(() => undefined);
        if (st?.isFile()) out.push({ file_name: name, bytes: st.size });
      }
      return out;
    },
  };
}
