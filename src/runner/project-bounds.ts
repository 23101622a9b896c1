// The bounds and skip rules of a tools project, shared by every place that reads one: the
// CLI's folder walk and the playground's folder or zip; the freeze checks every snapshot again.
import { EdgeError } from "../contract/errors.ts";
import type { ProjectLimits, SkipReason } from "../contract/project.ts";

/** 1,000 files and 16 MiB: copied into every job's runner, and hashed there before each import.
 *  1,000 folders, 32 deep: a walk of the folder reads each one, even empty (docs/tools-projects.md). */
export const DEFAULT_PROJECT_LIMITS: ProjectLimits = {
  maxFiles: 1000,
  maxBytes: 16 * 1024 * 1024,
  maxFolders: 1000,
  maxDepth: 32,
};

/** What a walk had found when it stopped: files and bytes, and the folders, depth or time it was over. */
export interface ProjectSize {
  files: number;
  bytes: number;
  folders?: number;
  depth?: number;
  /** The walk ran past its deadline after this many milliseconds. */
  elapsed_ms?: number;
}

function overWhat(what: ProjectSize, limits: ProjectLimits): string {
  if (what.elapsed_ms !== undefined)
    return `more than can be read within the call's time limit (${what.elapsed_ms} ms spent)`;
  if (limits.maxFolders !== undefined && (what.folders ?? 0) > limits.maxFolders)
    return `more than ${limits.maxFolders} folders`;
  if (limits.maxDepth !== undefined && (what.depth ?? 0) > limits.maxDepth)
    return `folders more than ${limits.maxDepth} deep`;
  return what.files > limits.maxFiles ? `more than ${limits.maxFiles} files` : `${what.bytes} bytes or more`;
}

/** tools_project_too_large, with what was over and (when known) the largest files. */
export function projectTooLarge(
  what: ProjectSize,
  limits: ProjectLimits,
  root: string | null,
  largest: string[] = [],
): EdgeError {
  const biggest = largest.length ? ` The largest: ${largest.join(", ")}.` : "";
  const folders =
    limits.maxFolders !== undefined
      ? `, ${limits.maxFolders} folders, ${limits.maxDepth ?? "any number of"} levels deep`
      : "";
  const { deadline: _deadline, ...bounds } = limits;
  return new EdgeError(
    "tools_project_too_large",
    { ...what, limits: bounds, root },
    `The tools project${root ? ` ${root}` : ""} holds ${overWhat(what, limits)}; a runner mounts at most ${limits.maxFiles} files and ${limits.maxBytes} bytes${folders}.${biggest} Move tools.py and what it needs into a folder of their own, or name a smaller folder with --tools-root DIR (--tools-root pointing at the tools file itself mounts it alone).`,
  );
}

/** Why a file or folder of this name is left out of a tools project (a folder holding pyvenv.cfg,
 *  a virtualenv, is found by its content: see skipFiles). The same rules in the CLI and the browser. */
export function skipByName(name: string, isFolder: boolean): SkipReason | undefined {
  if (name.startsWith(".")) return "hidden";
  if (!isFolder) return undefined;
  if (name === "__pycache__") return "pycache";
  if (name === "node_modules") return "node_modules";
  return undefined;
}
