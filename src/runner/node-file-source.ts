// A tools file on disk, read the way a path from the command line must be read: only a regular
// file, and never more than the size limit. `edge tools validate /dev/zero` (or a FIFO, or a
// directory) is refused at once with a coded error instead of reading forever.
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { EdgeError } from "../contract/errors.ts";
import { MAX_TOOLS_FILE_BYTES } from "../contract/types.ts";
import type { ToolSource } from "./host.ts";

/** O_NONBLOCK: opening a FIFO must not wait for a writer before we can see it is not a file. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** The file's bytes: tools_file_not_regular, tools_file_too_large (decided from the size before
 *  reading, and again if it grows while being read) or tools_file_unreadable. */
export async function readToolsFile(path: string): Promise<Uint8Array> {
  const maxBytes = MAX_TOOLS_FILE_BYTES;
  let fh: FileHandle;
  try {
    fh = await open(path, OPEN_FLAGS);
  } catch (err) {
    throw unreadable(path, err);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile())
      throw new EdgeError(
        "tools_file_not_regular",
        { path },
        `${path} is ${kindOf(st)}, not a regular file; point Edge at a tools.py file.`,
      );
    if (st.size > maxBytes) throw tooLarge(path, st.size, maxBytes);
    // One byte more than the limit: a file that grew since stat() is caught without reading it all.
    const buf = new Uint8Array(Math.min(st.size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, filled, buf.byteLength - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled > maxBytes) throw tooLarge(path, filled, maxBytes, "at least ");
      if (filled === buf.byteLength) break;
    }
    return buf.subarray(0, filled);
  } catch (err) {
    if (err instanceof EdgeError) throw err;
    throw unreadable(path, err);
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** A tools file on disk; every read() returns the file's current bytes. */
export function fileSource(path: string): ToolSource {
  return { name: path, read: () => readToolsFile(path) };
}

function tooLarge(path: string, size: number, max: number, prefix = ""): EdgeError {
  return new EdgeError(
    "tools_file_too_large",
    { path, size_bytes: size, max_bytes: max },
    `${path} is ${prefix}${size} bytes; the limit is ${max} bytes (1 MiB). Keep tools.py small and load data inside functions.`,
  );
}

function unreadable(path: string, err: unknown): EdgeError {
  return new EdgeError("tools_file_unreadable", { path, reason: err instanceof Error ? err.message : String(err) });
}

function kindOf(st: {
  isDirectory(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}): string {
  if (st.isDirectory()) return "a directory";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isFIFO()) return "a pipe (FIFO)";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}
