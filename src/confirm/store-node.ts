// The pending action store in Node: one JSON file per action in <dataDir>/pending/<id>.json,
// readable by its owner only (folder 0700, files 0600). Every change takes the folder's
// inter-process lock file, so two `edge tools confirm` processes cannot both claim an action.
import { unlink } from "node:fs/promises";
import path from "node:path";
import { EdgeError } from "../contract/errors.ts";
import {
  dataDir,
  ensurePrivateDir,
  listDirIfExists,
  readTextIfExists,
  withFileLock,
  writeFileAtomic,
  type FileLockOptions,
} from "../platform/node-files.ts";
import { toStorageError } from "../platform/storage-error.ts";
import { isPendingId } from "./pending.ts";
import type { PendingAction } from "./types.ts";
import type { PendingStore } from "./store.ts";

export interface NodePendingStoreOptions extends FileLockOptions {
  /** The data directory (actions go to <dir>/pending). Default dataDir() at creation time. */
  dir?: string;
}

export interface NodePendingStore extends PendingStore {
  readonly dir: string;
  /** The file of one action (what `edge tools confirm PATH` accepts). */
  fileOf(id: string): string;
}

const FILE_RE = /^(pa_[0-9a-f]{32})\.json$/;

/** `edge tools confirm` takes an id or the path of a pending file; both name the same action. */
export function pendingIdFromArgument(arg: string): string | null {
  if (isPendingId(arg)) return arg;
  const m = FILE_RE.exec(path.basename(arg));
  return m ? m[1]! : null;
}

export function createNodePendingStore(options: NodePendingStoreOptions = {}): NodePendingStore {
  const root = options.dir ?? dataDir();
  const dir = path.join(root, "pending");
  const lockFile = path.join(dir, ".lock");

  const fileOf = (id: string): string => {
    if (!isPendingId(id)) throw new EdgeError("pending_action_not_found", { id });
    return path.join(dir, `${id}.json`);
  };

  async function ready(): Promise<void> {
    await ensurePrivateDir(root);
    await ensurePrivateDir(dir, { narrow: true });
  }

  async function read(id: string): Promise<PendingAction | undefined> {
    const file = fileOf(id);
    const text = await readTextIfExists(file, "read pending action");
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as PendingAction;
    } catch (err) {
      throw new EdgeError(
        "storage_failed",
        { op: "read pending action", path: file, reason: "not_json" },
        `Saving to local storage failed: ${file} is not JSON (${(err as Error).message}). Restore the file, or move it away to start with an empty store.`,
      );
    }
  }

  const write = (record: PendingAction, noClobber: boolean): Promise<void> =>
    writeFileAtomic(fileOf(record.id), `${JSON.stringify(record, null, 2)}\n`, { noClobber });

  return {
    dir,
    fileOf,
    async create(record) {
      await ready();
      await withFileLock(lockFile, () => write(record, true), options);
    },
    get: read,
    async list() {
      const names = (await listDirIfExists(dir, "list pending actions")).filter((f) => FILE_RE.test(f));
      const all = (await Promise.all(names.map((n) => read(n.slice(0, -5))))).filter(
        (r): r is PendingAction => r !== undefined,
      );
      return all.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
    },
    async update(id, fn) {
      fileOf(id);
      await ready();
      return withFileLock(
        lockFile,
        async () => {
          const current = await read(id);
          if (!current) return { current: undefined, written: null };
          const next = fn(current);
          if (!next) return { current, written: null };
          if (next.id !== id)
            throw new EdgeError("pending_action_id_changed", {}, "A pending action's id cannot change.");
          await write(next, false);
          return { current: next, written: next };
        },
        options,
      );
    },
    async delete(id) {
      const file = fileOf(id);
      await ready();
      await withFileLock(
        lockFile,
        async () => {
          try {
            await unlink(file);
          } catch (err) {
            if ((err as { code?: string }).code !== "ENOENT")
              throw toStorageError(err, "delete pending action", { path: file });
          }
        },
        options,
      );
    },
  };
}
