// The workspace as a zip (fflate): export a folder of the VFS, and import an archive into it,
// bounded against zip bombs. The bound is what the workspace can still hold (its total, file and
// entry limits), counted on the bytes actually inflated — never on the sizes an archive declares —
// and input is fed in small slices so one inflate step cannot allocate a bomb's full output.
// Every entry name is checked (importPath) and the whole archive is written as ONE VFS change:
// a bad name, a bomb or a broken archive leaves the workspace exactly as it was.
import { Unzip, UnzipInflate, UnzipPassThrough, zipSync, type Zippable } from "fflate";
import { EdgeError } from "../../contract/errors.ts";
import { concatBytes } from "../../contract/hash.ts";
import { WORKSPACE_DIR, type EdgeVfs } from "../vfs/core.ts";
import { importPath, relativeTo } from "./import-path.ts";

/** Input slice per push: with deflate's maximal ratio (≈ 1032:1) one step inflates ≤ ≈ 17 MB. */
const SLICE = 16 * 1024;

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
  const room = { bytes: usage.limits.maxTotalBytes - usage.bytes, entries: usage.limits.maxEntries - usage.entries, fileBytes: usage.limits.maxFileBytes };
  const tooLarge = (what: string): EdgeError =>
    new EdgeError("zip_too_large", { limits: usage.limits, used: usage.bytes }, `The archive expands beyond what the workspace can hold (${what}); nothing was imported.`);
  const { files, bytes: total } = readZip(bytes, room, (name) => importPath(name, into), tooLarge);
  await vfs.writeBatch(files);
  return { files: files.length, bytes: total, paths: files.map((f) => f.path) };
}

/** What an archive may expand to: total bytes, entries, bytes of one file (counted as inflated). */
export interface ZipBounds {
  bytes: number;
  entries: number;
  fileBytes: number;
}

/**
 * Every file of a zip archive, inflated within `bounds` (zip_too_large from `tooLarge` past them),
 * each named by `pathOf(entry name)` (which throws an EdgeError for a name it refuses). Folder
 * entries are left out. Throws zip_invalid for anything that is not a whole, readable archive.
 */
export function readZip(bytes: Uint8Array, bounds: ZipBounds, pathOf: (name: string) => string, tooLarge: (what: string) => EdgeError): { files: { path: string; data: Uint8Array }[]; bytes: number } {
  if (!(bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5))) {
    throw new EdgeError("zip_invalid", {}, "This file is not a zip archive (it does not start with a zip header); nothing was imported.");
  }
  const files: { path: string; data: Uint8Array }[] = [];
  const open = new Set<string>();
  let total = 0;
  let entries = 0;
  let failure: EdgeError | undefined;
  const fail = (err: EdgeError): void => {
    failure ??= err;
  };
  const unzip = new Unzip((file) => {
    if (failure) return;
    if (++entries > bounds.entries) return fail(tooLarge(`more than ${bounds.entries} more entries`));
    let path: string;
    try {
      path = pathOf(file.name);
    } catch (err) {
      return fail(err as EdgeError);
    }
    if (file.name.endsWith("/")) return; // folders are created as parents of their files
    const chunks: Uint8Array[] = [];
    let size = 0;
    open.add(path);
    file.ondata = (err, chunk, final) => {
      if (failure) return;
      if (err) return fail(new EdgeError("zip_invalid", { entry: file.name }, `The archive entry ${file.name} cannot be read (${err.message}); nothing was imported.`));
      size += chunk.byteLength;
      total += chunk.byteLength;
      if (size > bounds.fileBytes) return fail(tooLarge(`${file.name} is over the ${bounds.fileBytes}-byte file limit`));
      if (total > bounds.bytes) return fail(tooLarge(`more than the ${bounds.bytes} bytes still free`));
      chunks.push(chunk);
      if (final) {
        open.delete(path);
        files.push({ path, data: concatBytes(chunks) });
      }
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  try {
    for (let i = 0; i < bytes.byteLength && !failure; i += SLICE) unzip.push(bytes.subarray(i, i + SLICE), i + SLICE >= bytes.byteLength);
  } catch (err) {
    fail(new EdgeError("zip_invalid", { reason: String(err) }, `The archive is damaged (${(err as Error).message}); nothing was imported.`));
  }
  if (failure) throw failure;
  if (open.size) throw new EdgeError("zip_invalid", { entries: [...open] }, "The archive ends in the middle of a file (truncated download?); nothing was imported.");
  return { files, bytes: total };
}
