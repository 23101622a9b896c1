// A tools project from a zip archive: read with the CLI's skip rules and bounds
// (project.ts), bounded while it inflates (never by the sizes it declares). The tools file is
// tools.py at the top, else the one top-level .py that uses @edge_tool; a single top folder inside
// the archive (a zipped folder) is its root. Environment-neutral: the playground's "Open zip…" and
// the widget's tools-src pointing at a .zip both use it.
import { EdgeError } from "../contract/errors.ts";
import { readZip } from "../platform/zip-read.ts";
import { projectTooLarge } from "../runner/project-bounds.ts";
import type { ProjectLimits, ProjectSnapshot } from "../contract/project.ts";
import { DEFAULT_PROJECT_LIMITS, isProjectPath, skipFiles } from "./project.ts";

export interface PickedProject {
  /** The folder's or archive's name, for people. */
  name: string;
  entry: string;
  files: Record<string, Uint8Array>;
  skipped: ProjectSnapshot["skipped"];
}

/** From a zip archive; a single top folder inside it (a zipped folder) is its root. */
export function projectFromZip(
  name: string,
  bytes: Uint8Array,
  limits: ProjectLimits = DEFAULT_PROJECT_LIMITS,
): PickedProject {
  const tooLarge = (what: string): EdgeError =>
    new EdgeError(
      "tools_project_too_large",
      { limits },
      `The archive ${name} expands beyond a tools project's limits (${what}); move tools.py and what it needs into an archive of their own.`,
    );
  // Entries beyond the file limit may still be skipped ones (.git): the count is checked after skipping.
  const { files: raw } = readZip(
    bytes,
    { bytes: limits.maxBytes, entries: limits.maxFiles * 20, fileBytes: limits.maxBytes },
    checkedPath,
    tooLarge,
  );
  const all = Object.fromEntries(raw.map((f) => [f.path, f.data]));
  const top = commonTop(Object.keys(all));
  const rooted = top ? Object.fromEntries(Object.entries(all).map(([p, d]) => [p.slice(top.length + 1), d])) : all;
  const { files, skipped } = skipFiles(rooted);
  const count = Object.keys(files).length;
  if (count > limits.maxFiles) throw projectTooLarge({ files: count, bytes: 0 }, limits, null);
  return picked(top || name.replace(/\.zip$/i, ""), files, skipped);
}

function checkedPath(name: string): string {
  const path = name.replace(/\/+$/, "");
  if (!isProjectPath(path))
    throw new EdgeError(
      "zip_invalid",
      { entry: name },
      `The archive holds an entry named ${JSON.stringify(name)}, which cannot be a file of a project; rename it.`,
    );
  return path;
}

/** The one folder every path starts with ("proj" for proj/a, proj/b), or "" when there is none. */
export function commonTop(paths: readonly string[]): string {
  const firsts = new Set(paths.map((p) => (p.includes("/") ? p.slice(0, p.indexOf("/")) : "")));
  const [only] = firsts;
  return firsts.size === 1 && only ? only : "";
}

export function picked(
  name: string,
  files: Record<string, Uint8Array>,
  skipped: ProjectSnapshot["skipped"],
): PickedProject {
  return { name, entry: entryOf(files), files, skipped };
}

/** tools.py at the top, else the one top-level .py file that mentions @edge_tool. */
function entryOf(files: Record<string, Uint8Array>): string {
  if (files["tools.py"]) return "tools.py";
  const dec = new TextDecoder();
  const candidates = Object.keys(files).filter(
    (p) => !p.includes("/") && p.endsWith(".py") && dec.decode(files[p]).includes("edge_tool"),
  );
  if (candidates.length === 1) return candidates[0]!;
  throw new EdgeError(
    "tools_root_invalid",
    { candidates },
    candidates.length
      ? `The project has several top-level files using @edge_tool (${candidates.join(", ")}); name the tools file tools.py.`
      : "The project has no tools.py at its top (nor another top-level .py using @edge_tool); pick the folder that holds tools.py.",
  );
}
