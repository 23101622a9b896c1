// The memory snapshot handed to Node runner processes through a file instead of their pipe. A
// 31 MB boot frame took 250–330 ms to cross the pipe (libuv writes a socket buffer at a time: about
// 110 MB/s on this machine), longer than anything else a runner does before Pyodide starts; read
// from a file in the page cache it takes a few milliseconds (docs/runner.md).
//
// The file is this process's own copy of bytes the pool already checked (the signed index's
// sha256, node-snapshot.ts): written by the host only, once per snapshot, in a private folder
// (mkdtemp, 0700) under the system's temporary folder that exists before any runner starts, so
// that runners are allowed to read that folder's files (`--allow-fs-read`) and nothing else new.
// A runner cannot write them (the permission model gives runners no writes), so tool code in one
// runner cannot change what the next one boots from; reading them reveals nothing a runner did not
// boot from. Removed when this process exits; folders left by a process that was killed are
// removed by the next one.
//
// The disk cache's snapshot (node-snapshot.ts) is copied here too before a runner boots from it:
// runners are never allowed to read anything under $EDGE_DATA_DIR. Node's permission model checks
// the path it is given and the kernel then follows links, so a grant for the cache's files let a
// link planted there by whoever can write the data folder (`runner-evil -> /`) open every file of
// the user to tool code. The copy is read through one descriptor opened without following a link
// (O_NOFOLLOW), checked to be a regular file of the signed size; the runner checks its sha256.
import { constants, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { open, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BootMessage, SnapshotFileRef } from "../../workers/protocol.ts";

const PREFIX = "edge-runner-";

export interface SnapshotFiles {
  /** What runners are allowed to read: the files of this folder (`--allow-fs-read`). */
  readonly readable: string;
  /** `bytes` in a file of the folder (one file per snapshot, written once); undefined (send them
   *  inline) when it cannot be written. */
  place(bytes: Uint8Array): Promise<SnapshotFileRef | undefined>;
  /** A private copy of a snapshot file others may write (the disk cache's), with the same size and
   *  sha256; undefined when it is not a regular file of that size (a link, a FIFO …) or cannot be copied. */
  adopt(ref: SnapshotFileRef): Promise<SnapshotFileRef | undefined>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Folders of processes that are gone (killed before their exit hook ran). */
function removeStale(dir: string): void {
  try {
    for (const name of readdirSync(dir)) {
      const pid = new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1];
      if (pid && Number(pid) !== process.pid && !alive(Number(pid)))
        rmSync(join(dir, name), { recursive: true, force: true });
    }
  } catch {
    // not ours to list, or gone meanwhile
  }
}

/** A private folder for snapshot files (made now, its files on `place`), removed when this
 *  process exits; undefined when it cannot be made (runners then get the bytes through their pipe). */
export function createSnapshotFiles(parent = tmpdir()): SnapshotFiles | undefined {
  let folder: string;
  try {
    removeStale(parent);
    folder = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
  } catch {
    return undefined;
  }
  process.once("exit", () => rmSync(folder, { recursive: true, force: true }));
  const placed = new WeakMap<Uint8Array, Promise<SnapshotFileRef | undefined>>();
  const adopted = new Map<string, Promise<SnapshotFileRef | undefined>>();
  let count = 0;
  return {
    adopt(ref) {
      const id = `${ref.path}\0${ref.size}\0${ref.sha256 ?? ""}`;
      let copy = adopted.get(id);
      if (!copy) {
        const path = join(folder, `${++count}.snapshot`);
        const refused = (): undefined => {
          adopted.delete(id); // a later boot may find the file again (the pool makes a new one)
          return undefined;
        };
        copy = copyRegularFile(ref, path).then(
          (copied): SnapshotFileRef | undefined => (copied ? { ...ref, path } : refused()),
          refused,
        );
        adopted.set(id, copy);
      }
      return copy;
    },
    readable: join(folder, "*"),
    place(bytes) {
      let ref = placed.get(bytes);
      if (!ref) {
        const path = join(folder, `${++count}.snapshot`);
        const partial = `${path}.partial`;
        ref = writeFile(partial, bytes, { mode: 0o600, flag: "wx" })
          .then(() => rename(partial, path))
          .then(
            (): SnapshotFileRef => ({ path, size: bytes.byteLength }),
            () => undefined,
          );
        placed.set(bytes, ref);
      }
      return ref;
    },
  };
}

/** Opening a snapshot file: never through a link, never waiting on a FIFO. */
const OPEN_NOFOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const COPY_CHUNK = 4 * 1024 * 1024;

/** Copy `ref.size` bytes of the regular file at `ref.path` (not a link) to `dest` (0600, new);
 *  false (nothing copied) when it is not a regular file of that size. Opening a link rejects. */
async function copyRegularFile(ref: SnapshotFileRef, dest: string): Promise<boolean> {
  const from = await open(ref.path, OPEN_NOFOLLOW);
  const partial = `${dest}.partial`;
  let whole = false;
  try {
    const st = await from.stat();
    if (!st.isFile() || st.size !== ref.size) return false;
    const to = await open(partial, "wx", 0o600);
    try {
      const buf = new Uint8Array(Math.min(COPY_CHUNK, Math.max(ref.size, 1)));
      let done = 0;
      while (done < ref.size) {
        const { bytesRead } = await from.read(buf, 0, Math.min(buf.byteLength, ref.size - done), done);
        if (bytesRead === 0) break; // shorter than its signed size
        await to.write(buf, 0, bytesRead);
        done += bytesRead;
      }
      whole = done === ref.size;
    } finally {
      await to.close();
    }
    if (whole) await rename(partial, dest);
    return whole;
  } finally {
    if (!whole) await rm(partial, { force: true });
    await from.close();
  }
}

/** The boot a runner of this process is sent: a snapshot in one of this process's private files
 *  (bytes placed, a cache file adopted), else as it was (inline bytes; or a cache file the runner
 *  cannot read, whose failed boot makes the pool discard it and make a new snapshot). */
export async function privateSnapshotBoot(files: SnapshotFiles | undefined, boot: BootMessage): Promise<BootMessage> {
  if (!files) return boot;
  if (boot.snapshot instanceof Uint8Array) {
    const ref = await files.place(boot.snapshot);
    if (!ref) return boot;
    const { snapshot: _inline, ...rest } = boot;
    return { ...rest, snapshotFile: ref };
  }
  if (!boot.snapshotFile) return boot;
  const copy = await files.adopt(boot.snapshotFile);
  return copy ? { ...boot, snapshotFile: copy } : boot;
}

let shared: SnapshotFiles | undefined | null = null;

/** This process's folder, shared by all its runner hosts (made on first use). */
export function processSnapshotFiles(): SnapshotFiles | undefined {
  if (shared === null) shared = createSnapshotFiles();
  return shared;
}
