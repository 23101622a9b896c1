// The workspace virtual file system shared by the built-in tools and the bash tool. It is an
// in-memory tree (fast, synchronous reads for just-bash's many small calls) that implements
// just-bash's IFileSystem, with every change written through a persistence adapter before the
// call returns: IndexedDB in the browser (store-idb.ts), a snapshot file in Node (store-node.ts),
// or none (ephemeral, tests). Size limits are enforced here, before anything is stored.
// No DOM, no Node: just-bash's types only.
import type { BufferEncoding, CpOptions, FileContent, FsStat, IFileSystem, MkdirOptions, RmOptions } from "just-bash";
import { decodeContent, encodeContent, encodingOf } from "./content.ts";
import {
  batchChanges,
  copyChanges,
  dirEntry,
  moveChanges,
  parentsToCreate,
  removeChanges,
  type Changes,
  type VfsBatchItem,
} from "./change-sets.ts";
import { checkQuota, recordsOf, undoChanges, type Entry } from "./changes.ts";
import { childPrefix, DEV_NULL, exists, isDir, normalizePath, notDir, notFound, parentOf, vfsError } from "./paths.ts";
import type { VfsEntryRecord, VfsPersistence } from "./store.ts";
import { toStorageError } from "../../platform/storage-error.ts";

export interface VfsLimits {
  /** Sum of all file sizes. Default 64 MiB. */
  maxTotalBytes: number;
  /** One file. Default 16 MiB. */
  maxFileBytes: number;
  /** Files plus directories. Default 20 000. */
  maxEntries: number;
}

export const DEFAULT_VFS_LIMITS: VfsLimits = {
  maxTotalBytes: 64 * 1024 * 1024,
  maxFileBytes: 16 * 1024 * 1024,
  maxEntries: 20_000,
};
/** Where relative paths of the file tools and the shell's working directory point. */
export const WORKSPACE_DIR = "/workspace";

export interface VfsUsage {
  bytes: number;
  entries: number;
  limits: VfsLimits;
}

export interface OpenVfsOptions {
  persistence?: VfsPersistence | null;
  limits?: Partial<VfsLimits>;
}

/** Load the stored tree (if any) and return the file system. */
export async function openVfs(options: OpenVfsOptions = {}): Promise<EdgeVfs> {
  const records = options.persistence ? await options.persistence.load() : [];
  return new EdgeVfs(records, options.persistence ?? null, { ...DEFAULT_VFS_LIMITS, ...options.limits });
}

export class EdgeVfs implements IFileSystem {
  private readonly entries = new Map<string, Entry>();
  private totalBytes = 0;
  /** Commits run one after another, in the order the changes were made in memory. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    records: readonly VfsEntryRecord[],
    private readonly persistence: VfsPersistence | null,
    readonly limits: VfsLimits,
  ) {
    this.entries.set("/", { type: "directory", mode: 0o755, mtime: Date.now() });
    for (const r of records) {
      const p = normalizePath(r.path);
      const e: Entry = {
        type: r.type,
        mode: r.mode,
        mtime: r.mtime,
        ...(r.type === "file" ? { data: r.data ?? new Uint8Array() } : {}),
      };
      this.entries.set(p, e);
      if (e.data) this.totalBytes += e.data.byteLength;
    }
    // A stored tree always has its parents (commits add them); be robust to a damaged one.
    for (const p of [...this.entries.keys()]) {
      for (let d = parentOf(p); d !== "/" && !this.entries.has(d); d = parentOf(d))
        this.entries.set(d, { type: "directory", mode: 0o755, mtime: Date.now() });
    }
  }

  usage(): VfsUsage {
    return { bytes: this.totalBytes, entries: this.entries.size - 1, limits: { ...this.limits } };
  }

  // ── changes: validated, applied in memory, then committed; reverted if the commit fails ──

  private async apply(changes: Changes): Promise<void> {
    const bytes = checkQuota(this.entries, this.totalBytes, changes, this.limits);
    const before = new Map<string, Entry | undefined>();
    for (const [p, next] of changes) {
      before.set(p, this.entries.get(p));
      if (next) this.entries.set(p, next);
      else this.entries.delete(p);
    }
    this.totalBytes = bytes;
    if (!this.persistence) return;
    const { put, remove } = recordsOf(changes);
    const persistence = this.persistence;
    const run = this.queue.then(() => persistence.commit(put, remove));
    this.queue = run.catch(() => undefined);
    try {
      await run;
    } catch (err) {
      this.totalBytes += undoChanges(this.entries, before, changes);
      throw toStorageError(err, "write workspace file", { path: [...changes.keys()][0] });
    }
  }

  /** Write a whole file, creating missing parent directories when `parents` is set (the file tools do). */
  async writeBytes(path: string, data: Uint8Array, options: { parents?: boolean } = {}): Promise<{ created: boolean }> {
    const p = normalizePath(path);
    if (p === DEV_NULL) return { created: false };
    const prev = this.entries.get(p);
    if (prev?.type === "directory") throw isDir("open", p);
    const changes: Changes = new Map();
    for (const d of parentsToCreate(this.entries, p, "open", options.parents === true)) changes.set(d, dirEntry());
    changes.set(p, { type: "file", data, mode: prev?.mode ?? 0o644, mtime: Date.now() });
    await this.apply(changes);
    return { created: !prev };
  }

  /**
   * Several changes as ONE: every limit is checked for the whole batch and it is committed in one
   * transaction, so an import or an approved plan lands whole or not at all. `data: null` removes
   * a file or directory (list a directory's contents too); `mkdir` creates a directory. Missing
   * parent directories are created.
   */
  async writeBatch(items: readonly VfsBatchItem[]): Promise<void> {
    const changes = batchChanges(this.entries, items);
    if (changes.size) await this.apply(changes);
  }

  /** An ephemeral copy (no persistence, same limits) to try changes on: a dry run. File bytes
   *  are shared, never copied: the VFS replaces a file's array on every write, never edits it. */
  fork(): EdgeVfs {
    const records: VfsEntryRecord[] = [];
    for (const [path, e] of this.entries)
      if (path !== "/")
        records.push({ path, type: e.type, mode: e.mode, mtime: e.mtime, ...(e.data ? { data: e.data } : {}) });
    return new EdgeVfs(records, null, this.limits);
  }

  /** Whether `path` is a directory (listing code: no exceptions). */
  isDirectory(path: string): boolean {
    return this.entries.get(normalizePath(path))?.type === "directory";
  }

  readBytes(path: string): Uint8Array {
    const p = normalizePath(path);
    if (p === DEV_NULL) return new Uint8Array();
    const e = this.entries.get(p);
    if (!e) throw notFound("open", p);
    if (e.type === "directory") throw isDir("read", p);
    return e.data!;
  }

  /** A file's bytes, or null for a directory or a missing path (listing code: no exceptions). */
  readBytesIfFile(path: string): Uint8Array | null {
    const e = this.entries.get(normalizePath(path));
    return e?.type === "file" ? e.data! : null;
  }

  // ── IFileSystem (just-bash) ──────────────────────────────────────────────────────────

  async readFile(path: string, options?: { encoding?: BufferEncoding | null } | BufferEncoding): Promise<string> {
    return decodeContent(this.readBytes(path), encodingOf(options));
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    return new Uint8Array(this.readBytes(path));
  }

  async writeFile(
    path: string,
    content: FileContent,
    options?: { encoding?: BufferEncoding } | BufferEncoding,
  ): Promise<void> {
    await this.writeBytes(path, encodeContent(content, encodingOf(options)));
  }

  async appendFile(
    path: string,
    content: FileContent,
    options?: { encoding?: BufferEncoding } | BufferEncoding,
  ): Promise<void> {
    const p = normalizePath(path);
    if (p === DEV_NULL) return;
    const prev = this.entries.get(p);
    if (prev?.type === "directory") throw isDir("open", p);
    const add = encodeContent(content, encodingOf(options));
    const old = prev?.data ?? new Uint8Array();
    const data = new Uint8Array(old.byteLength + add.byteLength);
    data.set(old);
    data.set(add, old.byteLength);
    await this.writeBytes(p, data);
  }

  async exists(path: string): Promise<boolean> {
    try {
      const p = normalizePath(path);
      return p === DEV_NULL || this.entries.has(p);
    } catch {
      return false;
    }
  }

  async stat(path: string): Promise<FsStat> {
    const p = normalizePath(path);
    if (p === DEV_NULL)
      return { isFile: true, isDirectory: false, isSymbolicLink: false, mode: 0o666, size: 0, mtime: new Date(0) };
    const e = this.entries.get(p);
    if (!e) throw notFound("stat", p);
    return {
      isFile: e.type === "file",
      isDirectory: e.type === "directory",
      isSymbolicLink: false,
      mode: e.mode,
      size: e.data?.byteLength ?? 0,
      mtime: new Date(e.mtime),
    };
  }

  lstat(path: string): Promise<FsStat> {
    return this.stat(path);
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    const p = normalizePath(path);
    const e = this.entries.get(p);
    if (e) {
      if (options?.recursive && e.type === "directory") return;
      throw exists("mkdir", p);
    }
    const changes: Changes = new Map();
    for (const d of parentsToCreate(this.entries, p, "mkdir", options?.recursive === true)) changes.set(d, dirEntry());
    changes.set(p, dirEntry());
    await this.apply(changes);
  }

  private children(dir: string): string[] {
    const prefix = childPrefix(dir);
    const out: string[] = [];
    for (const key of this.entries.keys()) {
      if (key !== "/" && key.startsWith(prefix) && !key.slice(prefix.length).includes("/"))
        out.push(key.slice(prefix.length));
    }
    return out.sort();
  }

  async readdir(path: string): Promise<string[]> {
    const p = normalizePath(path);
    const e = this.entries.get(p);
    if (!e) throw notFound("scandir", p);
    if (e.type !== "directory") throw notDir("scandir", p);
    return this.children(p);
  }

  async readdirWithFileTypes(
    path: string,
  ): Promise<{ name: string; isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }[]> {
    const p = normalizePath(path);
    return (await this.readdir(p)).map((name) => {
      const e = this.entries.get(`${childPrefix(p)}${name}`)!;
      return { name, isFile: e.type === "file", isDirectory: e.type === "directory", isSymbolicLink: false };
    });
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    const changes = removeChanges(this.entries, path, options);
    if (changes.size) await this.apply(changes);
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    await this.apply(copyChanges(this.entries, src, dest, options));
  }

  async mv(src: string, dest: string): Promise<void> {
    const changes = moveChanges(this.entries, src, dest);
    if (changes.size) await this.apply(changes);
  }

  resolvePath(base: string, path: string): string {
    return normalizePath(path, normalizePath(base));
  }

  getAllPaths(): string[] {
    return [...this.entries.keys()];
  }

  async chmod(path: string, mode: number): Promise<void> {
    const p = normalizePath(path);
    const e = this.entries.get(p);
    if (!e) throw notFound("chmod", p);
    await this.apply(new Map([[p, { ...e, mode: mode & 0o7777 }]]));
  }

  async symlink(_target: string, linkPath: string): Promise<void> {
    throw vfsError(
      "vfs_not_supported",
      "ENOTSUP",
      "symbolic links are not supported in the workspace",
      "symlink",
      normalizePath(linkPath),
    );
  }

  async link(_existing: string, newPath: string): Promise<void> {
    throw vfsError(
      "vfs_not_supported",
      "ENOTSUP",
      "hard links are not supported in the workspace",
      "link",
      normalizePath(newPath),
    );
  }

  async readlink(path: string): Promise<string> {
    const p = normalizePath(path);
    if (!this.entries.has(p)) throw notFound("readlink", p);
    throw vfsError("vfs_invalid_path", "EINVAL", "not a symbolic link", "readlink", p);
  }

  async realpath(path: string): Promise<string> {
    const p = normalizePath(path);
    if (!this.entries.has(p)) throw notFound("realpath", p);
    return p;
  }

  async utimes(path: string, _atime: Date, mtime: Date): Promise<void> {
    const p = normalizePath(path);
    const e = this.entries.get(p);
    if (!e) throw notFound("utime", p);
    await this.apply(new Map([[p, { ...e, mtime: mtime.getTime() }]]));
  }

  /** Wait until every change made so far is stored. */
  async flush(): Promise<void> {
    await this.queue;
  }
}
