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
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SnapshotFileRef } from "../../workers/protocol.ts";

const PREFIX = "edge-runner-";

export interface SnapshotFiles {
  /** What runners are allowed to read: the files of this folder (`--allow-fs-read`). */
  readonly readable: string;
  /** `bytes` in a file of the folder (one file per snapshot, written once); undefined (send them
   *  inline) when it cannot be written. */
  place(bytes: Uint8Array): Promise<SnapshotFileRef | undefined>;
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
      if (pid && Number(pid) !== process.pid && !alive(Number(pid))) rmSync(join(dir, name), { recursive: true, force: true });
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
  let count = 0;
  return {
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

let shared: SnapshotFiles | undefined | null = null;

/** This process's folder, shared by all its runner hosts (made on first use). */
export function processSnapshotFiles(): SnapshotFiles | undefined {
  if (shared === null) shared = createSnapshotFiles();
  return shared;
}
