// The workspace as a zip (fflate): export a folder of the VFS, and import an archive into it,
// bounded against zip bombs (src/platform/zip-read.ts). The bound is what the workspace can still
// hold (its total, file and entry limits). Every entry name is checked (importPath) and the whole
// archive is written as ONE VFS change: a bad name, a bomb or a broken archive leaves the
// workspace exactly as it was.
import { zipSync, type Zippable } from "fflate";
import { EdgeError } from "../../contract/errors.ts";
import { readZip } from "../../platform/zip-read.ts";
import { WORKSPACE_DIR, type EdgeVfs } from "../vfs/core.ts";
import { importPath, relativeTo } from "./import-path.ts";

export interface ZipImportReport {
  files: number;
  bytes: number;
  paths: string[];
}

/** Every file and folder under `root` as a zip archive (paths relative to root). */
export function exportZip(vfs: EdgeVfs, root = WORKSPACE_DIR): Uint8Array {
  const entries: Zippable = {};
  const prefix = root === "/" ? "/" : `${root}/`;
  for (const path of vfs.getAllPaths().sort()) {
    if (!path.startsWith(prefix)) continue;
    const rel = relativeTo(root, path);
    const data = vfs.readBytesIfFile(path);
    // A folder is an empty entry whose name ends with "/" (kept so empty folders survive).
    entries[data ? rel : `${rel}/`] = data ?? new Uint8Array(0);
  }
  return zipSync(entries, { level: 6 });
}

/** Extract `bytes` (a zip archive) under `into`, whole or not at all. */
export async function importZip(vfs: EdgeVfs, bytes: Uint8Array, into = WORKSPACE_DIR): Promise<ZipImportReport> {
  const usage = vfs.usage();
  const room = {
    bytes: usage.limits.maxTotalBytes - usage.bytes,
    entries: usage.limits.maxEntries - usage.entries,
    fileBytes: usage.limits.maxFileBytes,
  };
  const tooLarge = (what: string): EdgeError =>
    EdgeError.withTableFix(
      "zip_too_large",
      { limits: usage.limits, used: usage.bytes },
      `The archive expands beyond what the workspace can hold (${what}); nothing was imported.`,
    );
  const { files, bytes: total } = readZip(bytes, room, (name) => importPath(name, into), tooLarge);
  await vfs.writeBatch(files);
  return { files: files.length, bytes: total, paths: files.map((f) => f.path) };
}
