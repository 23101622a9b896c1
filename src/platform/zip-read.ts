// A bounded zip reader (fflate), environment-neutral: every file of an archive, inflated within
// bounds counted on the bytes actually inflated — never on the sizes an archive declares — with
// input fed in small slices so one inflate step cannot allocate a bomb's full output. The
// workspace's import (src/builtins/workspace/zip.ts) and a tools project from a zip
// (src/toolset/project-archive.ts) both read archives with it, so it sits in src/platform.
import { Unzip, UnzipInflate, UnzipPassThrough } from "fflate";
import { EdgeError } from "../contract/errors.ts";
import { concatBytes } from "../contract/hash.ts";

/** Input slice per push: with deflate's maximal ratio (≈ 1032:1) one step inflates ≤ ≈ 17 MB. */
const SLICE = 16 * 1024;

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
export function readZip(
  bytes: Uint8Array,
  bounds: ZipBounds,
  pathOf: (name: string) => string,
  tooLarge: (what: string) => EdgeError,
): { files: { path: string; data: Uint8Array }[]; bytes: number } {
  if (!(bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5))) {
    throw new EdgeError(
      "zip_invalid",
      {},
      "This file is not a zip archive (it does not start with a zip header); nothing was imported.",
    );
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
      if (err)
        return fail(
          EdgeError.withTableFix(
            "zip_invalid",
            { entry: file.name },
            `The archive entry ${file.name} cannot be read (${err.message}); nothing was imported.`,
          ),
        );
      size += chunk.byteLength;
      total += chunk.byteLength;
      if (size > bounds.fileBytes)
        return fail(tooLarge(`${file.name} is over the ${bounds.fileBytes}-byte file limit`));
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
    for (let i = 0; i < bytes.byteLength && !failure; i += SLICE)
      unzip.push(bytes.subarray(i, i + SLICE), i + SLICE >= bytes.byteLength);
  } catch (err) {
    fail(
      EdgeError.withTableFix(
        "zip_invalid",
        { reason: String(err) },
        `The archive is damaged (${(err as Error).message}); nothing was imported.`,
      ),
    );
  }
  if (failure) throw failure;
  if (open.size)
    throw new EdgeError(
      "zip_invalid",
      { entries: [...open] },
      "The archive ends in the middle of a file (truncated download?); nothing was imported.",
    );
  return { files, bytes: total };
}
