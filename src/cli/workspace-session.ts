// `edge chat --workspace DIR [--builtins a,b] [--allow-writes]`: the built-in tools over a folder,
// and that folder mounted read-only at /workspace for read_local Python tools. Without
// --allow-writes a built-in write that would change files is refused (builtin_writes_not_allowed:
// there is no one to show a diff to); read-only work (read_file, a bash script that changes
// nothing) runs.
import { EdgeError } from "../contract/errors.ts";
import type { ApprovalHandler, ToolRuntime } from "../runtime/index.ts";
import type { WorkspaceSource } from "../toolset/workspace.ts";
import { BUILTIN_TOOL_NAMES, builtinsForSession, type BuiltinToolName } from "../builtins/index.ts";
import { openDirVfs, type SkippedEntry } from "../builtins/vfs/vfs-dir.ts";
import { vfsWorkspaceSource } from "../builtins/workspace/source.ts";
import { UsageError } from "./io.ts";

export interface CliWorkspace {
  runtime?: ToolRuntime;
  approval?: ApprovalHandler;
  workspace?: WorkspaceSource;
  /** For the JSON output: the folder and the links that were not loaded. */
  info?: { dir: string; skipped: SkippedEntry[]; builtins: BuiltinToolName[] };
}

export async function cliWorkspace(dir: string | undefined, builtins: string | undefined, allowWrites: boolean): Promise<CliWorkspace> {
  if (dir === undefined) {
    if (builtins !== undefined || allowWrites) throw new UsageError("--builtins and --allow-writes work on a folder: pass --workspace DIR too.");
    return {};
  }
  const names = (builtins ?? "").split(",").map((n) => n.trim()).filter(Boolean);
  for (const n of names) {
    if (!(BUILTIN_TOOL_NAMES as readonly string[]).includes(n)) {
      throw new EdgeError("unknown_tool", { tool: n }, `No built-in tool named "${n}"; the built-ins are: ${BUILTIN_TOOL_NAMES.join(", ")}.`);
    }
  }
  const { vfs, root, skipped } = await openDirVfs(dir);
  const out: CliWorkspace = { workspace: vfsWorkspaceSource(vfs), info: { dir: root, skipped, builtins: names as BuiltinToolName[] } };
  if (!names.length) return out;
  const session = await builtinsForSession({ vfs, tools: names as BuiltinToolName[], allowWrites: () => allowWrites });
  return { ...out, ...session };
}
