// The change set of each operation that touches more than one path (a batch, a removal, a copy, a
// move, and the parent directories a write creates), worked out from the tree as it is without
// changing it. EdgeVfs then checks, applies and stores the set as one change (changes.ts), so an
// operation lands whole or not at all, and a refused one (ENOTDIR, EEXIST, …) changes nothing.
import type { CpOptions, RmOptions } from "just-bash";
import type { Entry } from "./changes.ts";
import { childPrefix, DEV_NULL, exists, isDir, normalizePath, notDir, notFound, parentOf, vfsError } from "./paths.ts";

/** Path → its entry after the change, or null to remove it. */
export type Changes = Map<string, Entry | null>;

/** One change of `writeBatch`: write a file, remove a path (data null), or create a directory. */
export type VfsBatchItem = { path: string; data: Uint8Array | null } | { path: string; mkdir: true };

export function dirEntry(): Entry {
  return { type: "directory", mode: 0o755, mtime: Date.now() };
}

/** Missing parent directories of `path` (outermost first), or a ENOTDIR/ENOENT error. */
export function parentsToCreate(
  entries: ReadonlyMap<string, Entry>,
  path: string,
  op: string,
  create: boolean,
): string[] {
  const missing: string[] = [];
  for (let d = parentOf(path); ; d = parentOf(d)) {
    const e = entries.get(d);
    if (e) {
      if (e.type !== "directory") throw notDir(op, path);
      break;
    }
    if (!create) throw notFound(op, path);
    missing.unshift(d);
    if (d === "/") break;
  }
  return missing;
}

/** Every path below directory `dir`, at any depth. */
function subtree(entries: ReadonlyMap<string, Entry>, dir: string): string[] {
  const prefix = childPrefix(dir);
  return [...entries.keys()].filter((k) => k !== "/" && k.startsWith(prefix));
}

/** The items of a batch as one change set; a later item sees the earlier ones (a file written
 *  into a directory the batch creates). Missing parent directories are created. */
export function batchChanges(entries: ReadonlyMap<string, Entry>, items: readonly VfsBatchItem[]): Changes {
  const changes: Changes = new Map();
  const current = (p: string): Entry | null | undefined => (changes.has(p) ? changes.get(p) : entries.get(p));
  for (const item of items) {
    const p = normalizePath(item.path);
    if (p === DEV_NULL || p === "/")
      throw vfsError("vfs_invalid_path", "EINVAL", "not a path that can be written", "open", p);
    const prev = current(p);
    if ("data" in item && item.data === null) {
      if (prev) changes.set(p, null);
      continue;
    }
    for (let d = parentOf(p); d !== "/"; d = parentOf(d)) {
      const e = current(d);
      if (e?.type === "directory") break;
      if (e) throw notDir("open", p);
      changes.set(d, dirEntry());
    }
    if ("mkdir" in item) {
      if (prev?.type === "file") throw exists("mkdir", p);
      if (!prev) changes.set(p, dirEntry());
      continue;
    }
    if (prev?.type === "directory") throw isDir("open", p);
    changes.set(p, { type: "file", data: item.data!, mode: prev?.mode ?? 0o644, mtime: Date.now() });
  }
  return changes;
}

/** `rm path`: the path and, for a directory, everything below it (only with `recursive` when it
 *  is not empty). Empty when the path is missing and `force` is set. */
export function removeChanges(entries: ReadonlyMap<string, Entry>, path: string, options?: RmOptions): Changes {
  const p = normalizePath(path);
  const e = entries.get(p);
  const changes: Changes = new Map();
  if (!e) {
    if (options?.force) return changes;
    throw notFound("rm", p);
  }
  if (e.type === "directory") {
    const inside = subtree(entries, p);
    if (inside.length && !options?.recursive)
      throw vfsError("vfs_not_empty", "ENOTEMPTY", "directory not empty", "rm", p);
    for (const k of inside) changes.set(k, null);
  }
  if (p !== "/") changes.set(p, null); // the root itself always stays
  return changes;
}

/** `cp src dest`: fresh copies of the bytes (a later write to one never shows in the other). */
export function copyChanges(
  entries: ReadonlyMap<string, Entry>,
  src: string,
  dest: string,
  options?: CpOptions,
): Changes {
  const s = normalizePath(src);
  const d = normalizePath(dest);
  const e = entries.get(s);
  if (!e) throw notFound("cp", s);
  if (e.type === "directory" && !options?.recursive) throw isDir("cp", s);
  if (d === s || d.startsWith(childPrefix(s)))
    throw vfsError("vfs_invalid_path", "EINVAL", "cannot copy a directory into itself", "cp", d);
  const changes: Changes = new Map();
  for (const dir of parentsToCreate(entries, d, "cp", false)) changes.set(dir, dirEntry());
  const target = entries.get(d);
  if (target?.type === "directory" && e.type === "file") throw isDir("cp", d);
  changes.set(d, { ...e, ...(e.data ? { data: new Uint8Array(e.data) } : {}), mtime: Date.now() });
  if (e.type === "directory") {
    for (const k of subtree(entries, s)) {
      const v = entries.get(k)!;
      changes.set(d + k.slice(s.length), { ...v, ...(v.data ? { data: new Uint8Array(v.data) } : {}) });
    }
  }
  return changes;
}

/** `mv src dest`: the entries move as they are (bytes and times kept). Empty when they are the
 *  same path. */
export function moveChanges(entries: ReadonlyMap<string, Entry>, src: string, dest: string): Changes {
  const s = normalizePath(src);
  const d = normalizePath(dest);
  const e = entries.get(s);
  if (!e) throw notFound("rename", s);
  if (s === "/" || d.startsWith(childPrefix(s)))
    throw vfsError("vfs_invalid_path", "EINVAL", "cannot move a directory into itself", "rename", d);
  const changes: Changes = new Map();
  if (d === s) return changes;
  const target = entries.get(d);
  if (target && (target.type === "directory" || e.type === "directory")) throw exists("rename", d);
  for (const dir of parentsToCreate(entries, d, "rename", false)) changes.set(dir, dirEntry());
  changes.set(s, null);
  changes.set(d, e);
  if (e.type === "directory") {
    for (const k of subtree(entries, s)) {
      changes.set(k, null);
      changes.set(d + k.slice(s.length), entries.get(k)!);
    }
  }
  return changes;
}
