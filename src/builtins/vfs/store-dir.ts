// A directory on disk as the workspace (`edge chat --workspace DIR`): DIR's files are loaded into
// the VFS at /workspace (same limits as any workspace; too large is refused up front), and every
// change under /workspace is written back to DIR. Nothing outside DIR is ever read or written:
// paths are normalized inside the VFS (`..` cannot climb out of it), symbolic links whose target
// leaves DIR are not loaded (reported as skipped, workspace_path_escape), and before a write every
// existing component of the target path is checked to be a real folder inside DIR — never a link —
// so a link planted in DIR cannot redirect a write. Each file is replaced atomically (temp file +
// rename); a change of several files is written file by file. Other VFS paths (/.edge: goals,
// spill) stay in memory for the run.
import { lstat, mkdir, readdir, readFile, realpath, rm, rmdir } from "node:fs/promises";
import path from "node:path";
import { EdgeError } from "../../contract/errors.ts";
import { writeFileAtomic } from "../../platform/node-files.ts";
import { toStorageError } from "../../platform/storage-error.ts";
import { DEFAULT_VFS_LIMITS, openVfs, WORKSPACE_DIR, type EdgeVfs, type VfsLimits } from "./core.ts";
import type { VfsEntryRecord, VfsPersistence } from "./store.ts";

export interface SkippedEntry {
  /** Path relative to DIR. */
  path: string;
  code: "workspace_path_escape";
  target?: string;
}

export interface DirVfs {
  vfs: EdgeVfs;
  root: string;
  skipped: SkippedEntry[];
}

const escapeError = (rel: string, why: string): EdgeError =>
  EdgeError.withTableFix(
    "workspace_path_escape",
    { path: rel },
    `${rel}: ${why}; only files inside the workspace folder can be written.`,
  );

async function loadDir(root: string, limits: VfsLimits, skipped: SkippedEntry[]): Promise<VfsEntryRecord[]> {
  const records: VfsEntryRecord[] = [];
  let bytes = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full).split(path.sep).join("/");
      let stat = await lstat(full);
      if (stat.isSymbolicLink()) {
        const target = await realpath(full).catch(() => null);
        if (!target || (target !== root && !target.startsWith(`${root}${path.sep}`))) {
          skipped.push({ path: rel, code: "workspace_path_escape", ...(target ? { target } : {}) });
          continue;
        }
        stat = await lstat(target);
        if (stat.isDirectory()) {
          // A link to a folder inside DIR would load that folder twice: skip it, the folder is there.
          skipped.push({ path: rel, code: "workspace_path_escape", target });
          continue;
        }
      }
      const vpath = `${WORKSPACE_DIR}/${rel}`;
      if (stat.isDirectory()) {
        records.push({ path: vpath, type: "directory", mode: 0o755, mtime: stat.mtimeMs });
        await walk(full);
      } else if (stat.isFile()) {
        bytes += stat.size;
        if (bytes > limits.maxTotalBytes || records.length >= limits.maxEntries || stat.size > limits.maxFileBytes) {
          throw new EdgeError(
            "vfs_quota_exceeded",
            { dir: root, limits },
            `The folder ${root} is larger than a workspace may be (${limits.maxTotalBytes} bytes, ${limits.maxFileBytes} per file, ${limits.maxEntries} entries); point --workspace at a smaller folder.`,
          );
        }
        const data = await readFile(full);
        records.push({
          path: vpath,
          type: "file",
          mode: 0o644,
          mtime: stat.mtimeMs,
          data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
        });
      }
    }
  };
  await walk(root);
  return records;
}

/** Every existing component between DIR and `target` must be a real folder (never a link). */
async function checkInside(root: string, rel: string): Promise<string> {
  const parts = rel.split("/");
  let at = root;
  for (const [i, part] of parts.entries()) {
    at = path.join(at, part);
    const st = await lstat(at).catch(() => null);
    if (!st) break;
    if (st.isSymbolicLink()) throw escapeError(rel, `${parts.slice(0, i + 1).join("/")} is a symbolic link`);
    if (i < parts.length - 1 && !st.isDirectory()) break;
  }
  return at;
}

function dirVfsPersistence(root: string, limits: VfsLimits, skipped: SkippedEntry[]): VfsPersistence {
  const prefix = `${WORKSPACE_DIR}/`;
  return {
    load: () => loadDir(root, limits, skipped),
    async commit(put, remove) {
      try {
        for (const p of remove) {
          if (!p.startsWith(prefix)) continue;
          const rel = p.slice(prefix.length);
          const full = await checkInside(root, rel);
          const st = await lstat(full).catch(() => null);
          if (st?.isDirectory()) await rmdir(full).catch(async () => rm(full, { recursive: true, force: true }));
          else if (st) await rm(full, { force: true });
        }
        for (const r of [...put].sort((a, b) => a.path.localeCompare(b.path))) {
          if (!r.path.startsWith(prefix)) continue;
          const rel = r.path.slice(prefix.length);
          const full = await checkInside(root, rel);
          if (r.type === "directory") await mkdir(full, { recursive: true });
          else await writeFileAtomic(full, r.data ?? new Uint8Array(0));
        }
      } catch (err) {
        throw toStorageError(err, "write to the workspace folder", { dir: root });
      }
    },
  };
}

/** DIR as the workspace: loaded now, written back on every change. */
export async function openDirVfs(dir: string, limits: Partial<VfsLimits> = {}): Promise<DirVfs> {
  let root: string;
  try {
    root = await realpath(path.resolve(dir));
    if (!(await lstat(root)).isDirectory()) throw new Error("not a directory");
  } catch (err) {
    throw EdgeError.withTableFix(
      "path_unreadable",
      { dir },
      `--workspace ${dir} is not a readable folder (${(err as Error).message}).`,
    );
  }
  const all = { ...DEFAULT_VFS_LIMITS, ...limits };
  const skipped: SkippedEntry[] = [];
  const vfs = await openVfs({ persistence: dirVfsPersistence(root, all, skipped), limits: all });
  if (!(await vfs.exists(WORKSPACE_DIR))) await vfs.mkdir(WORKSPACE_DIR, { recursive: true });
  return { vfs, root, skipped };
}
