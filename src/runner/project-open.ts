// How the tools-project walk (node-project-source.ts) opens what it reads: every folder and file
// through a descriptor, each path resolved once. A writer of the project folder can swap an entry
// between the listing and the read — for a symlink out of the project, a FIFO, a link to /dev/zero,
// a folder for a link — so nothing the listing said is believed: a file is opened without following
// a link (O_NOFOLLOW) or waiting for a writer (O_NONBLOCK), and what the descriptor is (fstat)
// decides; a folder is opened with O_DIRECTORY|O_NOFOLLOW, and on Linux its entries are opened
// through its descriptor (/proc/self/fd/N/name, as openat would), so a folder swapped for a link
// after it was opened is never followed. Reads stop one byte past what was admitted.
import { constants, existsSync, type Stats } from "node:fs";
import { lstat, open, readlink, type FileHandle } from "node:fs/promises";

const FILE_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const FOLDER_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);
/** Entries named through their folder's descriptor (Linux); elsewhere through the folder's path. */
const PROC_FD = process.platform === "linux" && existsSync("/proc/self/fd");
const SLASH = Buffer.from("/");

/** An opened folder: its entries are reached through `via`. */
export interface OpenFolder {
  readonly handle: FileHandle;
  readonly st: Stats;
  readonly via: Buffer;
}

/** What an entry turned out to be once opened. */
export type OpenedEntry =
  | { kind: "file"; handle: FileHandle; st: Stats }
  /** A symbolic link (O_NOFOLLOW refused it): the caller decides whether to follow it. */
  | { kind: "link" }
  /** A FIFO, socket or device (closed again), or a folder where a file was listed. */
  | { kind: "other"; st: Stats }
  /** Removed since it was listed: not part of the project any more. */
  | { kind: "gone" };

const errno = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;

/** `name` inside an opened folder, as a path that resolves only that last name. */
export function entryPath(folder: OpenFolder, name: Buffer): Buffer {
  return Buffer.concat([folder.via, SLASH, name]);
}

/** Open a folder: `follow` only for the root the person named; a link anywhere else is "link";
 *  "gone" when it was removed since it was listed. */
export async function openFolder(
  path: Buffer | string,
  follow = false,
): Promise<OpenFolder | "link" | "not_a_folder" | "gone"> {
  let handle: FileHandle;
  try {
    handle = await open(path, follow ? FOLDER_FLAGS & ~(constants.O_NOFOLLOW ?? 0) : FOLDER_FLAGS);
  } catch (err) {
    if (errno(err) === "ELOOP") return "link";
    if (errno(err) === "ENOENT") return "gone";
    // Linux says ENOTDIR for a link under O_DIRECTORY|O_NOFOLLOW too: which one is only named here
    // (a link is then resolved and checked like any other, never entered as this folder).
    if (errno(err) === "ENOTDIR")
      return (await lstat(path).then(
        (st) => st.isSymbolicLink(),
        () => false,
      ))
        ? "link"
        : "not_a_folder";
    throw err;
  }
  const st = await handle.stat().catch(async (err: unknown) => {
    await handle.close();
    throw err;
  });
  if (!st.isDirectory()) {
    await handle.close();
    return "not_a_folder";
  }
  return { handle, st, via: PROC_FD ? Buffer.from(`/proc/self/fd/${handle.fd}`) : Buffer.from(path) };
}

/** Open an entry listed as a file (or a link's target): what the descriptor is decides. */
export async function openEntry(path: Buffer | string): Promise<OpenedEntry> {
  let handle: FileHandle;
  try {
    handle = await open(path, FILE_FLAGS);
  } catch (err) {
    // ELOOP: Linux and macOS for a link under O_NOFOLLOW; EMLINK: FreeBSD.
    if (errno(err) === "ELOOP" || errno(err) === "EMLINK") return { kind: "link" };
    if (errno(err) === "ENOENT") return { kind: "gone" };
    throw err;
  }
  const st = await handle.stat().catch(async (err: unknown) => {
    await handle.close();
    throw err;
  });
  if (st.isFile()) return { kind: "file", handle, st };
  await handle.close();
  return { kind: "other", st };
}

/** Where an opened file really is now (Linux: its descriptor's path), or undefined where that is
 *  not known: a link's target is checked again after it was opened. */
export async function openedPath(handle: FileHandle): Promise<string | undefined> {
  if (!PROC_FD) return undefined;
  // The kernel's path of the open file: where it was last, " (deleted)" once its name is gone
  // (replaced since it was opened), which says just as well which folder it was in.
  return (await readlink(`/proc/self/fd/${handle.fd}`)).replace(/ \(deleted\)$/, "");
}

/** At most `cap` bytes of the file, from `start` on (bytes already read before it), and whether it
 *  holds more: the read stops one byte past `cap`, however large the file has become. */
export async function readCapped(
  handle: FileHandle,
  cap: number,
  start: Uint8Array = new Uint8Array(0),
): Promise<{ bytes: Uint8Array; more: boolean }> {
  const buf = new Uint8Array(cap + 1);
  buf.set(start.subarray(0, cap + 1));
  let filled = Math.min(start.byteLength, cap + 1);
  while (filled < buf.byteLength) {
    const { bytesRead } = await handle.read(buf, filled, buf.byteLength - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled > cap ? { bytes: buf.subarray(0, cap), more: true } : { bytes: buf.subarray(0, filled), more: false };
}

/** The folder or file as "dev:ino", to compare with Edge's own (private-files.ts). */
export const inodeOf = (st: Pick<Stats, "dev" | "ino">): string => `${st.dev}:${st.ino}`;
