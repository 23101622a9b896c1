// Node file-storage primitives shared by every Node store (receipts, pending actions, imprints,
// facts, the VFS, packages, each in its own folder under dataDir()) and by the runner's snapshot
// and the llama.cpp runtime cache: the data directory, private folders, atomic no-clobber writes
// and an inter-process lock. Every fs failure becomes storage_failed. It lives in src/platform (the
// layer just above contract) so runner and engines may use it without importing a store.
import { randomBytes } from "node:crypto";
import { link, mkdir, open, readdir, readFile, rename, stat, chmod, unlink } from "node:fs/promises";
import { homedir, hostname } from "node:os";
import path from "node:path";
import { EdgeError } from "../contract/errors.ts";
import { toStorageError } from "./storage-error.ts";

/**
 * Where Edge keeps its data in Node: $EDGE_DATA_DIR, else the platform's user data dir —
 * $XDG_DATA_HOME/edge-web or ~/.local/share/edge-web (Linux and other Unix),
 * ~/Library/Application Support/edge-web (macOS), %APPDATA%\edge-web (Windows).
 */
export function dataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (env.EDGE_DATA_DIR) return path.resolve(env.EDGE_DATA_DIR);
  if (platform === "win32")
    return path.win32.join(env.APPDATA || path.win32.join(home, "AppData", "Roaming"), "edge-web");
  if (platform === "darwin") return path.posix.join(home, "Library", "Application Support", "edge-web");
  // The XDG spec says relative values are invalid and must be ignored.
  const xdg = env.XDG_DATA_HOME;
  if (xdg && path.posix.isAbsolute(xdg)) return path.posix.join(xdg, "edge-web");
  return path.posix.join(home, ".local", "share", "edge-web");
}

const isWindows = process.platform === "win32";

function fsCode(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && typeof (err as { code?: unknown }).code === "string"
    ? (err as { code: string }).code
    : undefined;
}

function tempSuffix(): string {
  return `${process.pid}.${randomBytes(6).toString("hex")}`;
}

/**
 * Create `dir` (and missing parents) private to the user (0700). With `narrow`, a folder Edge owns
 * alone (receipts/, pending/ …) that already exists with wider permissions is narrowed; folders
 * the user chose ($EDGE_DATA_DIR) and parents that existed before are left alone.
 */
/** A file's text, or undefined when it does not exist; any other failure is storage_failed. */
export async function readTextIfExists(file: string, op: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    if (fsCode(err) === "ENOENT") return undefined;
    throw toStorageError(err, op, { path: file });
  }
}

/** Remove a file; one that does not exist is fine; any other failure is storage_failed. */
export async function unlinkIfExists(file: string, op: string): Promise<void> {
  try {
    await unlink(file);
  } catch (err) {
    if (fsCode(err) !== "ENOENT") throw toStorageError(err, op, { path: file });
  }
}

/** A folder's entry names (sorted), or [] when it does not exist yet; else storage_failed. */
export async function listDirIfExists(dir: string, op: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (err) {
    if (fsCode(err) === "ENOENT") return [];
    throw toStorageError(err, op, { path: dir });
  }
}

export async function ensurePrivateDir(dir: string, options: { narrow?: boolean } = {}): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (options.narrow && !isWindows) {
      const st = await stat(dir);
      if ((st.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
    }
  } catch (err) {
    throw toStorageError(err, "create data folder", { path: dir });
  }
}

export interface AtomicWriteOptions {
  /** Fail with storage_failed (reason exists) instead of replacing a file that is already there. */
  noClobber?: boolean;
  /** false: skip the fsyncs, for a cache whose entry may be lost in a crash (still all or nothing). */
  durable?: boolean;
}

/**
 * Write a file so readers see either nothing or the whole content: write a private (0600) temp
 * file beside it, fsync (unless `durable: false`), then move it into place — with link() when noClobber (atomic and refuses
 * to replace), else rename(). The temp file never survives a failure.
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${tempSuffix()}.tmp`);
  try {
    const fh = await open(tmp, "wx", 0o600);
    try {
      await fh.writeFile(data);
      if (options.durable !== false) await fh.sync();
    } finally {
      await fh.close();
    }
    if (options.noClobber) {
      try {
        await link(tmp, file);
      } catch (err) {
        const code = fsCode(err);
        if (code === "EEXIST")
          throw new EdgeError(
            "storage_failed",
            { op: "write", path: file, reason: "exists" },
            `Saving to local storage failed: ${file} already exists and is never replaced. Pick another file name, or move the existing file away.`,
          );
        // File systems without hard links: check, then rename (only safe under a lock, which callers hold).
        if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EXDEV" && code !== "EOPNOTSUPP")
          throw err;
        if (await exists(file))
          throw new EdgeError(
            "storage_failed",
            { op: "write", path: file, reason: "exists" },
            `Saving to local storage failed: ${file} already exists and is never replaced. Pick another file name, or move the existing file away.`,
          );
        await rename(tmp, file);
      }
    } else {
      await rename(tmp, file);
    }
    if (options.durable !== false) await syncDir(path.dirname(file));
  } catch (err) {
    throw toStorageError(err, "write", { path: file });
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (err) {
    if (fsCode(err) === "ENOENT") return false;
    throw err;
  }
}

/** Make the rename/link durable. Best effort: not possible on Windows, and some file systems refuse it. */
async function syncDir(dir: string): Promise<void> {
  if (isWindows) return;
  try {
    const fh = await open(dir, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    /* best effort */
  }
}

export interface FileLockOptions {
  /** A lock older than this, or held by a dead process on this host, is broken. Default 10 000 ms. */
  staleMs?: number;
  /** Give up (storage_failed, reason lock_timeout) after this long. Default 15 000 ms. */
  timeoutMs?: number;
}

interface LockOwner {
  token: string;
  pid: number;
  host: string;
  created_at: string;
}

/**
 * Run `fn` while holding an exclusive lock file (created with O_EXCL, "wx"), across processes.
 * The lock names its holder (pid, host); a lock whose process is gone or that is older than
 * staleMs is broken by renaming it aside, so a crashed writer never wedges the store.
 */
export async function withFileLock<T>(
  lockFile: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const staleMs = options.staleMs ?? 10_000;
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  const owner: LockOwner = {
    token: randomBytes(16).toString("hex"),
    pid: process.pid,
    host: hostname(),
    created_at: new Date().toISOString(),
  };
  const content = JSON.stringify(owner);
  for (let attempt = 1; ; attempt++) {
    try {
      const fh = await open(lockFile, "wx", 0o600);
      try {
        await fh.writeFile(content);
      } finally {
        await fh.close();
      }
      break;
    } catch (err) {
      if (fsCode(err) !== "EEXIST") throw toStorageError(err, "lock", { path: lockFile });
    }
    const seen = await readLock(lockFile);
    if (seen !== null && isStale(seen, staleMs)) {
      await breakLock(lockFile, seen.raw);
      continue;
    }
    if (Date.now() > deadline) {
      throw new EdgeError(
        "storage_failed",
        { op: "lock", path: lockFile, reason: "lock_timeout", holder: seen?.owner ?? null },
        `Saving to local storage failed: another Edge process holds ${lockFile}. Wait for the other Edge process to finish, then try again.`,
      );
    }
    await new Promise((r) => setTimeout(r, Math.min(50, 2 + attempt) * (0.5 + Math.random())));
  }
  try {
    return await fn();
  } finally {
    const now = await readLock(lockFile);
    if (now?.raw === content) await unlink(lockFile).catch(() => undefined);
  }
}

interface SeenLock {
  raw: string;
  owner: LockOwner | null;
  ageMs: number;
}

async function readLock(lockFile: string): Promise<SeenLock | null> {
  try {
    const [raw, st] = await Promise.all([readFile(lockFile, "utf8"), stat(lockFile)]);
    let owner: LockOwner | null = null;
    try {
      owner = JSON.parse(raw) as LockOwner;
    } catch {
      owner = null; // being written right now, or garbage: only age can make it stale
    }
    return { raw, owner, ageMs: Date.now() - st.mtimeMs };
  } catch (err) {
    if (fsCode(err) === "ENOENT") return null;
    throw toStorageError(err, "lock", { path: lockFile });
  }
}

function isStale(seen: SeenLock, staleMs: number): boolean {
  if (seen.ageMs > staleMs) return true;
  const o = seen.owner;
  if (!o || o.host !== hostname() || typeof o.pid !== "number" || o.pid === process.pid) return false;
  try {
    process.kill(o.pid, 0);
    return false;
  } catch (err) {
    return fsCode(err) === "ESRCH";
  }
}

/** Move a stale lock aside; if what we moved turns out to be a fresh lock (a race), put it back. */
async function breakLock(lockFile: string, staleRaw: string): Promise<void> {
  const aside = `${lockFile}.stale.${tempSuffix()}`;
  try {
    await rename(lockFile, aside);
  } catch (err) {
    if (fsCode(err) === "ENOENT") return; // someone else broke it
    throw toStorageError(err, "lock", { path: lockFile });
  }
  const moved = await readFile(aside, "utf8").catch(() => staleRaw);
  if (moved !== staleRaw) await link(aside, lockFile).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}
