// Edge's own files, by device and inode, so that a tools project never mounts them under another
// name: its data folder (receipts, pending actions and their confirmation tokens, the snapshot
// cache), its key folder (the snapshot signing key) and the keeper's runtime folder (its tokens).
// A folder is recognised wherever it appears (a bind mount, a symlinked spelling); a file only
// matters when it has more than one name (a hard link the person made): a project file whose
// inode is one of these is skipped as "edge_data", like the folders themselves.
import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { dataDir } from "../platform/node-files.ts";
import { keeperDir } from "./keeper-wire.ts";
import { snapshotKeyFile } from "./node-snapshot.ts";
import { inodeOf } from "./project-open.ts";

/** Files looked at in Edge's folders before giving up on the rest (a data folder holds a few
 *  thousand receipts; this only runs when a project file has more than one name). */
const MAX_ENTRIES = 200_000;

/** Edge's private folders: never mounted wherever they are. */
function privateFolders(): string[] {
  const runtime = keeperDir();
  return [dataDir(), path.dirname(snapshotKeyFile()), ...(runtime ? [runtime] : [])];
}

/** "dev:ino" of each private folder that exists. */
export async function privateFolderInodes(): Promise<Set<string>> {
  const found = await Promise.all(privateFolders().map((p) => lstat(p).then(inodeOf, () => undefined)));
  return new Set(found.filter((id): id is string => id !== undefined));
}

/** "dev:ino" of every file in Edge's private folders, as they are now (a walk asks once, and only
 *  when it meets a file with more than one name). */
export function privateFileInodes(): Promise<Set<string>> {
  return collect(privateFolders());
}

async function collect(roots: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const queue = [...roots];
  let seen = 0;
  while (queue.length && seen < MAX_ENTRIES) {
    const dir = queue.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // not there (yet), or not ours to read
    }
    for (const e of entries) {
      if (++seen > MAX_ENTRIES) break;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) queue.push(full);
      else if (e.isFile()) {
        const st = await lstat(full).catch(() => undefined);
        if (st) out.add(inodeOf(st));
      }
    }
  }
  return out;
}
