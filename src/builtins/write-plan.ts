// Workspace writes the person approves by their diff. Before a built-in write runs, the host asks
// the planner what it WOULD change: write_file and edit_file are computed from their arguments,
// bash is dry-run on a fork of the VFS (a copy sharing the file bytes). The plan — every file
// before and after — is what the approval card shows; once approved, the tool's body applies
// exactly that plan as one VFS change (a bash script is not run a second time, so what was
// approved is what happens), after checking that nothing it touches changed meanwhile
// (write_preview_stale). A bash script that changes nothing needs no approval at all.
import { EdgeError } from "../contract/errors.ts";
import type { JsonObject } from "../contract/types.ts";
import type { ToolContext } from "../runtime/index.ts";
import type { VfsBatchItem } from "./vfs/change-sets.ts";
import type { EdgeVfs } from "./vfs/core.ts";

/** One path the plan changes. `before`/`after`: null absent, DIR a directory, else the file's bytes. */
export interface FileChange {
  path: string;
  type: "file" | "directory";
  before: Uint8Array | null;
  after: Uint8Array | null;
}

export interface WritePlan {
  tool: string;
  callId: string;
  changes: FileChange[];
  /** The result the body returns when it applies the plan (bash: exit code and output). */
  result: JsonObject;
}

/** How a built-in write tool works out its plan on a VFS (the real one, or a fork for bash). */
export type PlanFn = (vfs: EdgeVfs, args: JsonObject, ctx: ToolContext) => Promise<JsonObject>;

export interface WritePlanner {
  /** The plan of one call (computed once per call id, kept until the body takes it). */
  plan(tool: string, callId: string, args: JsonObject, signal: AbortSignal): Promise<WritePlan>;
  /** The approved plan of this call, if one was made (removed: a plan applies once). */
  take(callId: string): WritePlan | undefined;
  /** Apply a plan as one change, if every path is still as the plan saw it. */
  apply(plan: WritePlan): Promise<void>;
}

export function createWritePlanner(vfs: EdgeVfs, tools: Readonly<Record<string, PlanFn>>): WritePlanner {
  const plans = new Map<string, Promise<WritePlan>>();
  const settled = new Map<string, WritePlan>();
  return {
    plan(tool, callId, args, signal) {
      let p = plans.get(callId);
      if (!p) {
        const fn = tools[tool];
        if (!fn)
          return Promise.reject(
            EdgeError.withTableFix("unknown_tool", { tool }, `${tool} is not a built-in write tool.`),
          );
        p = (async () => {
          const fork = vfs.fork();
          const result = await fn(fork, args, { signal, callId, toolName: tool, meta: {} });
          const plan: WritePlan = { tool, callId, changes: changesBetween(vfs, fork), result };
          settled.set(callId, plan);
          return plan;
        })();
        plans.set(callId, p);
        p.catch(() => plans.delete(callId));
      }
      return p;
    },
    take(callId) {
      const plan = settled.get(callId);
      settled.delete(callId);
      plans.delete(callId);
      return plan;
    },
    async apply(plan) {
      for (const c of plan.changes) {
        if (!sameState(stateOf(vfs, c.path), c.before))
          throw new EdgeError("write_preview_stale", { path: c.path, tool: plan.tool });
      }
      await vfs.writeBatch(
        plan.changes.map(
          (c): VfsBatchItem =>
            c.after === null
              ? { path: c.path, data: null }
              : c.after === DIR
                ? { path: c.path, mkdir: true }
                : { path: c.path, data: c.after },
        ),
      );
    },
  };
}

/** A directory in a FileChange's before/after (compared by identity, never by bytes). */
export const DIR: Uint8Array = new Uint8Array(0);

function stateOf(vfs: EdgeVfs, path: string): Uint8Array | null {
  return vfs.isDirectory(path) ? DIR : vfs.readBytesIfFile(path);
}

/** Every path whose content or existence differs between `base` and `next`, sorted by path. */
function changesBetween(base: EdgeVfs, next: EdgeVfs): FileChange[] {
  const paths = new Set([...base.getAllPaths(), ...next.getAllPaths()]);
  paths.delete("/");
  const out: FileChange[] = [];
  for (const path of [...paths].sort()) {
    const before = stateOf(base, path);
    const after = stateOf(next, path);
    if (!sameState(before, after))
      out.push({ path, type: before === DIR || after === DIR ? "directory" : "file", before, after });
  }
  return out;
}

function sameState(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === b) return true;
  if (!a || !b || a === DIR || b === DIR || a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}
