// The workspace of `edge chat` and `edge tools call`: the built-in tools over it, and it mounted
// read-only at /workspace for read_local Python tools. Two sources of the same thing: a folder
// (`--workspace DIR`, loaded into the VFS and written back per file) or, without --workspace, the
// stored workspace (`edge workspace import|ls|export`, $EDGE_DATA_DIR/vfs/default.json) — the CLI's
// counterpart of the playground's Workspace tab. A stored workspace that was never created is not
// mounted (a read_local tool finds no /workspace rather than an empty one that looks real), unless
// built-ins are asked for: they work on it and may create it. Without --allow-writes a built-in
// write that would change files is refused (builtin_writes_not_allowed: there is no one to show a
// diff to); read-only work (read_file, a bash script that changes nothing) runs.
import { existsSync } from "node:fs";
import type { ApprovalHandler, ToolRuntime } from "../runtime/index.ts";
import type { WorkspaceSource } from "../toolset/workspace.ts";
import { checkBuiltinNames, type BuiltinToolName } from "../builtins/names.ts";
import type { EdgeVfs } from "../builtins/vfs/core.ts";
import { openDirVfs, type SkippedEntry } from "../builtins/vfs/store-dir.ts";
import { nodeVfsFile, openNodeVfs } from "../builtins/vfs/store-node.ts";
import { vfsWorkspaceSource } from "../builtins/workspace/source.ts";
import { UsageError } from "./io.ts";

export interface CliWorkspaceInfo {
  /** "folder": --workspace DIR; "stored": the stored workspace (edge workspace …). */
  source: "folder" | "stored";
  /** The folder, or the stored workspace's snapshot file. */
  dir: string;
  /** Links in the folder that were not loaded. */
  skipped: SkippedEntry[];
  builtins: BuiltinToolName[];
}

export interface CliWorkspace {
  runtime?: ToolRuntime;
  approval?: ApprovalHandler;
  workspace?: WorkspaceSource;
  /** For the JSON output: where the files come from, and the links that were not loaded. */
  info?: CliWorkspaceInfo;
}

export async function cliWorkspace(
  dir: string | undefined,
  builtins: string | undefined,
  allowWrites: boolean,
): Promise<CliWorkspace> {
  const names = checkBuiltinNames(
    (builtins ?? "")
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean),
  );
  if (allowWrites && !names.length)
    throw new UsageError(
      "--allow-writes lets built-in tools write: name them with --builtins (e.g. --builtins write_file,bash).",
    );
  let vfs: EdgeVfs;
  let info: CliWorkspaceInfo;
  if (dir !== undefined) {
    const opened = await openDirVfs(dir);
    vfs = opened.vfs;
    info = { source: "folder", dir: opened.root, skipped: opened.skipped, builtins: names };
  } else {
    const stored = nodeVfsFile();
    if (!existsSync(stored) && !names.length) return {};
    vfs = await openNodeVfs();
    info = { source: "stored", dir: stored, skipped: [], builtins: names };
  }
  const out: CliWorkspace = { workspace: vfsWorkspaceSource(vfs), info };
  if (!names.length) return out;
  // The built-ins (and just-bash) are loaded only when some are asked for.
  const { builtinsForSession } = await import("../builtins/index.ts");
  return { ...out, ...(await builtinsForSession({ vfs, tools: names, allowWrites: () => allowWrites })) };
}
