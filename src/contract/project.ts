// What a tools project is at one moment, as data: the files to mount, what was left out and why,
// and the bounds on it. Types only; the runner's sources produce it (src/runner/host.ts ToolSource),
// the toolset freezes it (src/toolset/project.ts) and packages reads its imports.

/** Bounds on what a tools project may mount (tools_project_too_large beyond them). */
export interface ProjectLimits {
  maxFiles: number;
  /** Sum of the files' sizes, the tools file included. */
  maxBytes: number;
  /** Folders entered below the root (a folder walk reads each; empty ones cost time too). */
  maxFolders?: number;
  /** How deep below the root a folder may be (the root is depth 0). */
  maxDepth?: number;
  /** A moment (ms since the epoch) after which reading the project stops (a call's time limit). */
  deadline?: number;
}

/** Why a path of the project folder is not mounted (docs/tools-projects.md). */
export type SkipReason =
  | "hidden"
  | "pycache"
  | "virtualenv"
  | "node_modules"
  | "edge_data"
  | "not_a_file"
  | "name_not_utf8";

/** What a tools project holds at one moment: the files to mount, by "/"-separated path relative
 *  to its root, the tools file (`entry`) among them. */
export interface ProjectSnapshot {
  /** The folder on the host ("/home/me/proj"), or null for files held in memory. */
  root: string | null;
  entry: string;
  files: Record<string, Uint8Array>;
  /** Folders and files left out, the topmost of each (a skipped folder's contents are not listed). */
  skipped: { path: string; reason: SkipReason }[];
}
