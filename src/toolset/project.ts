// A tools project: the tools file and the files beside it, frozen as one. At freeze time
// every file is hashed into a manifest whose own hash, tools_bundle_sha256, goes into the freeze and
// every receipt. Each job re-reads the project and sends the bytes IN the job; the runner mounts
// them read-only at /tools and compares what it mounted with the frozen manifest before importing
// anything (runner-pyodide/edge_runner/isolation.py, _Project), so an edited sibling module or
// data file fails closed with tools_file_changed naming it. Environment-neutral: the CLI reads a
// folder (src/runner/node-project-source.ts), the playground a folder or zip the person picked.
import { EdgeError } from "../contract/errors.ts";
import { sha256Bytes, sha256Json, type Sha256 } from "../contract/hash.ts";
import type { ProjectLimits, ProjectSnapshot, SkipReason } from "../contract/project.ts";
import type { ToolSource } from "../runner/host.ts";
import type { ProjectMount, ToolsManifest } from "../../workers/protocol.ts";
import { DEFAULT_PROJECT_LIMITS, projectTooLarge, skipByName } from "../runner/project-bounds.ts";

export { DEFAULT_PROJECT_LIMITS } from "../runner/project-bounds.ts";

/** Where a project appears inside the runner (read-only; the working directory, first on sys.path). */
const TOOLS_MOUNT = "/tools";
const TOOLS_BUNDLE_VERSION = "edge.tools.bundle.v1";

export interface ProjectFile {
  path: string;
  sha256: Sha256;
  bytes: number;
}

/** The frozen project: what inspect prints and receipts point at. */
export interface ToolsProject {
  /** The folder on the host, or null for files held in memory. */
  root: string | null;
  entry: string;
  /** Sorted by path; the tools file among them. */
  files: ProjectFile[];
  skipped: { path: string; reason: SkipReason }[];
  tools_bundle_sha256: Sha256;
}

/** The manifest tools_bundle_sha256 hashes: bundle version, the tools file's path, path → sha256. */
export function manifestOf(project: Pick<ToolsProject, "entry" | "files">): ToolsManifest {
  const files: Record<string, string> = {};
  for (const f of project.files) files[f.path] = f.sha256;
  return { bundle_version: TOOLS_BUNDLE_VERSION, entry: project.entry, files };
}

/** Hash a snapshot into its frozen form (checking its shape and limits first). */
export async function freezeProject(
  snapshot: ProjectSnapshot,
  limits: ProjectLimits = DEFAULT_PROJECT_LIMITS,
): Promise<ToolsProject> {
  checkProject(snapshot, limits);
  if (!snapshot.files[snapshot.entry])
    throw new EdgeError("tools_root_invalid", { entry: snapshot.entry, root: snapshot.root });
  // Hashed together: each digest is a trip to the platform's crypto threads.
  const files: ProjectFile[] = await Promise.all(
    Object.keys(snapshot.files)
      .sort()
      .map(async (path) => {
        const data = snapshot.files[path]!;
        return { path, sha256: await sha256Bytes(data), bytes: data.byteLength };
      }),
  );
  const frozen = { root: snapshot.root, entry: snapshot.entry, files, skipped: snapshot.skipped };
  return { ...frozen, tools_bundle_sha256: await sha256Json(manifestOf(frozen)) };
}

/** The first path (sorted) whose hash differs between two manifests' files (path → sha256). */
export function firstChangedFile(before: Record<string, string>, after: Record<string, string>): string | undefined {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].sort().find((p) => before[p] !== after[p]);
}

/** What a job carries: this moment's bytes, and the manifest they must match. */
export function projectMount(snapshot: ProjectSnapshot, frozen: ToolsProject): ProjectMount {
  return {
    root: TOOLS_MOUNT,
    files: snapshot.files,
    manifest: manifestOf(frozen),
    expectedSha256: frozen.tools_bundle_sha256,
  };
}

/** The snapshot of a source: its project, or the tools file alone (named by its base name). */
export async function readProjectSnapshot(
  source: ToolSource,
  limits: ProjectLimits = DEFAULT_PROJECT_LIMITS,
): Promise<ProjectSnapshot> {
  if (source.readProject) return source.readProject(limits);
  return {
    root: null,
    entry: entryName(source.name),
    files: { [entryName(source.name)]: await source.read() },
    skipped: [],
  };
}

/** The file name a tools file has in its project when it comes alone ("tools.py" for odd names). */
function entryName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  return base && base !== "." && base !== ".." && !base.includes("\0") ? base : "tools.py";
}

/** A path a project may hold: relative, "/"-separated, no empty, "." or ".." parts. */
export function isProjectPath(path: string): boolean {
  return (
    path.length > 0 &&
    path.length <= 4096 &&
    !path.includes("\0") &&
    !path.includes("\\") &&
    path.split("/").every((p) => p !== "" && p !== "." && p !== "..")
  );
}

/** The files of a picked folder or archive (paths relative to its root) without what is skipped. */
export function skipFiles(all: Record<string, Uint8Array>): {
  files: Record<string, Uint8Array>;
  skipped: ProjectSnapshot["skipped"];
} {
  const venvs = new Set(
    Object.keys(all)
      .filter((p) => p.endsWith("/pyvenv.cfg"))
      .map((p) => p.slice(0, -"/pyvenv.cfg".length)),
  );
  const files: Record<string, Uint8Array> = {};
  const skipped = new Map<string, SkipReason>();
  for (const [path, data] of Object.entries(all)) {
    const parts = path.split("/");
    let reason: SkipReason | undefined;
    let at = 0;
    for (; at < parts.length && !reason; at++) {
      const folder = at < parts.length - 1;
      reason =
        skipByName(parts[at]!, folder) ??
        (folder && venvs.has(parts.slice(0, at + 1).join("/")) ? "virtualenv" : undefined);
    }
    if (reason) skipped.set(parts.slice(0, at).join("/"), reason);
    else files[path] = data;
  }
  return {
    files,
    skipped: [...skipped].sort(([a], [b]) => (a < b ? -1 : 1)).map(([path, reason]) => ({ path, reason })),
  };
}

/** The host's own check of a snapshot (a source should stop early): mountable paths, the limits. */
export function checkProject(snapshot: ProjectSnapshot, limits: ProjectLimits = DEFAULT_PROJECT_LIMITS): void {
  const paths = Object.keys(snapshot.files);
  for (const path of paths)
    if (!isProjectPath(path))
      throw new EdgeError(
        "tools_project_path_unmountable",
        { path },
        `The tools project holds a path Edge cannot mount: ${JSON.stringify(path)}; rename the file.`,
      );
  const bytes = paths.reduce((n, p) => n + snapshot.files[p]!.byteLength, 0);
  if (paths.length > limits.maxFiles || bytes > limits.maxBytes) {
    const largest = paths
      .sort((a, b) => snapshot.files[b]!.byteLength - snapshot.files[a]!.byteLength)
      .slice(0, 3)
      .map((p) => `${p} (${snapshot.files[p]!.byteLength} bytes)`);
    throw projectTooLarge({ files: paths.length, bytes }, limits, snapshot.root, largest);
  }
}

/** A tools project held in memory (the playground's folder or zip, tests): `files` is read on every
 *  job, so an edit to it after the freeze is seen (and refused). */
export function memoryProjectSource(
  entry: string,
  files: () => Record<string, Uint8Array>,
  name = entry,
  skipped: ProjectSnapshot["skipped"] = [],
): ToolSource {
  return {
    name,
    async read() {
      const bytes = files()[entry];
      if (!bytes)
        throw new EdgeError(
          "tools_root_invalid",
          { entry },
          `The tools project has no ${entry}; pick the tools file inside the project.`,
        );
      return bytes;
    },
    readProject: async () => ({ root: null, entry, files: { ...files() }, skipped }),
  };
}
