// One change of the workspace file system before it is applied: the size limits it must keep
// (checked before anything changes in memory or in storage), the records it stores, and its undo
// when storing fails.
import type { VfsLimits } from "./core.ts";
import { vfsError } from "./paths.ts";
import type { VfsEntryRecord } from "./store.ts";

/** A node of the in-memory tree. */
export interface Entry {
  type: "file" | "directory";
  data?: Uint8Array;
  mode: number;
  mtime: number;
}

/** The workspace's total bytes once `changes` (path → new entry, or null to remove) are applied,
 *  or vfs_quota_exceeded (a file, the total or the entry count over its limit; shrinking is
 *  always allowed). `entries` counts "/". */
export function checkQuota(
  entries: ReadonlyMap<string, Entry>,
  totalBytes: number,
  changes: ReadonlyMap<string, Entry | null>,
  limits: VfsLimits,
): number {
  let bytes = totalBytes;
  let count = entries.size;
  for (const [p, next] of changes) {
    const prev = entries.get(p);
    bytes += (next?.data?.byteLength ?? 0) - (prev?.data?.byteLength ?? 0);
    count += (next ? 1 : 0) - (prev ? 1 : 0);
    if (next?.data && next.data.byteLength > limits.maxFileBytes) {
      throw vfsError(
        "vfs_quota_exceeded",
        "ENOSPC",
        `file would be ${next.data.byteLength} bytes, over the ${limits.maxFileBytes}-byte file limit`,
        "write",
        p,
      );
    }
  }
  const first = changes.keys().next().value as string;
  if (bytes > limits.maxTotalBytes && bytes > totalBytes) {
    throw vfsError(
      "vfs_quota_exceeded",
      "ENOSPC",
      `workspace would hold ${bytes} bytes, over its ${limits.maxTotalBytes}-byte limit`,
      "write",
      first,
      { bytes, limit: limits.maxTotalBytes },
    );
  }
  if (count - 1 > limits.maxEntries && count > entries.size) {
    throw vfsError(
      "vfs_quota_exceeded",
      "ENOSPC",
      `workspace would hold ${count - 1} entries, over its ${limits.maxEntries}-entry limit`,
      "create",
      first,
    );
  }
  return bytes;
}

/** What a persistence adapter stores for `changes`: the records to put, the paths to remove. */
export function recordsOf(changes: ReadonlyMap<string, Entry | null>): { put: VfsEntryRecord[]; remove: string[] } {
  const put: VfsEntryRecord[] = [];
  const remove: string[] = [];
  for (const [p, next] of changes) {
    if (next)
      put.push({
        path: p,
        type: next.type,
        mode: next.mode,
        mtime: next.mtime,
        ...(next.data ? { data: next.data } : {}),
      });
    else remove.push(p);
  }
  return { put, remove };
}

/** Undo in memory the changes that could not be stored (`before`: each path's entry before
 *  them), unless a later change already replaced one. Returns the change in total bytes. */
export function undoChanges(
  entries: Map<string, Entry>,
  before: ReadonlyMap<string, Entry | undefined>,
  changes: ReadonlyMap<string, Entry | null>,
): number {
  let delta = 0;
  for (const [p, prev] of before) {
    const cur = entries.get(p);
    const mine = changes.get(p);
    if (mine ? cur !== mine : cur !== undefined) continue;
    delta -= cur?.data?.byteLength ?? 0;
    if (prev) {
      entries.set(p, prev);
      delta += prev.data?.byteLength ?? 0;
    } else entries.delete(p);
  }
  return delta;
}
