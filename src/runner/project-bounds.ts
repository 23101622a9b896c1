// The bounds and skip rules of a tools project (issue 25), shared by every place that reads one: the
// CLI's folder walk and the playground's folder or zip; the freeze checks every snapshot again.
import { EdgeError } from "../contract/errors.ts";
import type { ProjectLimits, SkipReason } from "../contract/project.ts";

/** 1,000 files and 16 MiB: copied into every job's runner, and hashed there before each import. */
export const DEFAULT_PROJECT_LIMITS: ProjectLimits = { maxFiles: 1000, maxBytes: 16 * 1024 * 1024 };

/** tools_project_too_large, with what was over and (when known) the largest files. */
export function projectTooLarge(what: { files: number; bytes: number }, limits: ProjectLimits, root: string | null, largest: string[] = []): EdgeError {
  const over = what.files > limits.maxFiles ? `more than ${limits.maxFiles} files` : `${what.bytes} bytes or more`;
  const biggest = largest.length ? ` The largest: ${largest.join(", ")}.` : "";
  return new EdgeError(
    "tools_project_too_large",
    { ...what, limits, root },
    `The tools project${root ? ` ${root}` : ""} holds ${over}; a runner mounts at most ${limits.maxFiles} files and ${limits.maxBytes} bytes.${biggest} Move tools.py and what it needs into a folder of their own, or name a smaller folder with --tools-root DIR (--tools-root pointing at the tools file itself mounts it alone).`,
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
