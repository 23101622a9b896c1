// A tools project in the playground: a folder picked with <input webkitdirectory>, read
// into memory with the CLI's skip rules and bounds (src/toolset/project.ts), its sizes checked
// before any byte is read. A zip goes through src/toolset/project-archive.ts.
import { projectTooLarge } from "../runner/project-bounds.ts";
import { commonTop, picked, type PickedProject } from "../toolset/project-archive.ts";
import type { ProjectLimits } from "../contract/project.ts";
import { DEFAULT_PROJECT_LIMITS, skipFiles } from "../toolset/project.ts";
import type { UploadItem } from "./workspace-upload.ts";

export { projectFromZip } from "../toolset/project-archive.ts";

/** From a folder picker's files (webkitRelativePath "proj/tools.py"): the picked folder is the root. */
export async function projectFromItems(
  items: readonly UploadItem[],
  limits: ProjectLimits = DEFAULT_PROJECT_LIMITS,
): Promise<PickedProject> {
  const top = commonTop(items.map((i) => i.rel));
  const rel = (i: UploadItem): string => (top ? i.rel.slice(top.length + 1) : i.rel);
  // What would be skipped is decided from the names alone, before reading anything.
  const byPath = new Map(items.map((i) => [rel(i), i]));
  const { files: kept, skipped } = skipFiles(Object.fromEntries([...byPath.keys()].map((p) => [p, new Uint8Array(0)])));
  const paths = Object.keys(kept);
  const bytes = paths.reduce((n, p) => n + byPath.get(p)!.file.size, 0);
  if (paths.length > limits.maxFiles || bytes > limits.maxBytes)
    throw projectTooLarge({ files: paths.length, bytes }, limits, top || null);
  const files: Record<string, Uint8Array> = {};
  for (const p of paths) files[p] = new Uint8Array(await byPath.get(p)!.file.arrayBuffer());
  return picked(top || "project", files, skipped);
}
