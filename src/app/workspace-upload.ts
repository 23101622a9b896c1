// Getting the person's files into the workspace: files and folders from a picker or a drop,
// checked whole BEFORE any byte is read (names, the workspace's limits, the browser's quota), then
// written as one VFS change. A 200 MB file is refused from its size alone; nothing is half-written.
import { EdgeError } from "../contract/errors.ts";
import { importPath } from "../builtins/workspace/import-path.ts";
import { WORKSPACE_DIR, type EdgeVfs } from "../builtins/vfs/core.ts";
import { bytes as fmtBytes } from "./dom.ts";

/** One file to upload and its path relative to the upload folder ("a.csv", "folder/b.txt"). */
export interface UploadItem {
  rel: string;
  file: File;
}

/** From an <input type=file> (with or without webkitdirectory). */
export function itemsFromInput(files: FileList | null): UploadItem[] {
  return [...(files ?? [])].map((file) => ({ rel: file.webkitRelativePath || file.name, file }));
}

/** From a drop: folders are walked (webkitGetAsEntry); plain files where entries are missing. */
export async function itemsFromDrop(data: DataTransfer): Promise<UploadItem[]> {
  const entries = [...data.items].map((i) => (i.kind === "file" ? i.webkitGetAsEntry?.() : null));
  if (!entries.some((e) => e)) return [...data.files].map((file) => ({ rel: file.name, file }));
  const out: UploadItem[] = [];
  for (const entry of entries) if (entry) await walk(entry, "", out);
  return out;
}

async function walk(entry: FileSystemEntry, prefix: string, out: UploadItem[]): Promise<void> {
  const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ rel, file });
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries returns at most ~100 entries per call: read until it returns none.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) break;
    for (const child of batch) await walk(child, rel, out);
  }
}

/** What the browser says this site may still store (null where it cannot tell). */
export async function browserStorageEstimate(): Promise<{ usage: number; quota: number } | null> {
  try {
    const e = await navigator.storage?.estimate?.();
    return e && typeof e.usage === "number" && typeof e.quota === "number" ? { usage: e.usage, quota: e.quota } : null;
  } catch {
    return null;
  }
}

/** Refuse what cannot fit before reading it: workspace limits, then the browser's quota. */
async function checkFits(vfs: EdgeVfs, paths: readonly string[], sizes: readonly number[]): Promise<void> {
  const { bytes, entries, limits } = vfs.usage();
  let adding = 0;
  let replaced = 0;
  let newEntries = 0;
  sizes.forEach((size, i) => {
    const path = paths[i]!;
    if (size > limits.maxFileBytes) {
      throw EdgeError.withTableFix(
        "vfs_quota_exceeded",
        { path, bytes: size, limit: limits.maxFileBytes },
        `${path} is ${fmtBytes(size)}, over the workspace's ${fmtBytes(limits.maxFileBytes)} limit for one file; nothing was written.`,
      );
    }
    adding += size;
    const old = vfs.readBytesIfFile(path);
    if (old) replaced += old.byteLength;
    else newEntries++;
  });
  const after = bytes - replaced + adding;
  if (after > limits.maxTotalBytes) {
    throw new EdgeError(
      "vfs_quota_exceeded",
      { bytes: after, limit: limits.maxTotalBytes },
      `The workspace would hold ${fmtBytes(after)}, over its ${fmtBytes(limits.maxTotalBytes)} limit; nothing was written. Delete files first.`,
    );
  }
  if (entries + newEntries > limits.maxEntries) {
    throw EdgeError.withTableFix(
      "vfs_quota_exceeded",
      { entries: entries + newEntries, limit: limits.maxEntries },
      `The workspace would hold more than ${limits.maxEntries} files and folders; nothing was written.`,
    );
  }
  const estimate = await browserStorageEstimate();
  if (estimate && adding > estimate.quota - estimate.usage) {
    throw EdgeError.withTableFix(
      "storage_quota_exceeded",
      { ...estimate, adding },
      `The browser lets this site store ${fmtBytes(estimate.quota - estimate.usage)} more, but the upload is ${fmtBytes(adding)}; nothing was written.`,
    );
  }
}

/** Check everything, then read and write the files as one change. Returns the written paths. */
export async function uploadItems(vfs: EdgeVfs, items: readonly UploadItem[], dir = WORKSPACE_DIR): Promise<string[]> {
  if (!items.length) return [];
  const paths = items.map((i) => importPath(i.rel, dir));
  await checkFits(
    vfs,
    paths,
    items.map((i) => i.file.size),
  );
  const data = await Promise.all(items.map(async (i) => new Uint8Array(await i.file.arrayBuffer())));
  await vfs.writeBatch(paths.map((path, i) => ({ path, data: data[i]! })));
  return paths;
}
