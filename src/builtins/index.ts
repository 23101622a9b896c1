// The built-in tools (docs/contract.md §10) as ToolRuntime plugins on one workspace VFS: files (read_file,
// write_file, edit_file, read_image), goals (create_goal, get_goal, update_goal), web_search
// (off unless the host configures a provider) and bash (just-bash). They are registered through
// `runtime.register` like any tool and count toward the 8 active tools.
//
// Writes: write_file, edit_file and bash change the workspace and are execution level
// "commit", so in a chat the session's pre-execute stage asks and the confirmation flow applies.
// `allowWrites: true` is the host page saying yes in advance: it installs an approval handler
// that grants exactly those built-in writes (anything else that asks is still denied). A
// pre-execute "allow" could not do this — the pipeline's guard never lets an allow lift an ask.
// If the host also gives the session its own `approval`/`confirmations`, compose with
// `allowBuiltinWrites(next)` instead.
import { ERRORS } from "../contract/error-table.ts";
import { EdgeError, toErrorJson } from "../contract/errors.ts";
import { randomHex } from "../contract/hash.ts";
import { ACTIVE_TOOL_LIMIT, type JsonObject } from "../contract/types.ts";
import {
  createToolRuntime,
  defineTool,
  spillPolicy,
  type AnyToolDefinition,
  type ApprovalHandler,
  type Disposer,
  type ToolRuntime,
} from "../runtime/index.ts";
import { bashTool, type ExecutionLimits } from "./bash.ts";
import { editFileTool, readFileTool, readImageTool, writeFileTool } from "./fs-tools.ts";
import { goalTools } from "./goals.ts";
import { checkBuiltinNames, DEFAULT_BUILTINS, type BuiltinToolName } from "./names.ts";
import { BUILTIN_KIND } from "./shared.ts";
import { WORKSPACE_DIR, type EdgeVfs } from "./vfs/core.ts";
import { webSearchTool, type WebSearchProvider } from "./web.ts";
import { createWritePlanner, type PlanFn, type WritePlan, type WritePlanner } from "./write-plan.ts";

const DEFAULT_SPILL_INLINE_BYTES = 16 * 1024;

export interface BuiltinsOptions {
  vfs: EdgeVfs;
  /** Which built-ins to register (an allow-list, like --tool). */
  tools?: readonly BuiltinToolName[];
  /** The host allows workspace writes without asking (see the header). Default false. */
  allowWrites?: boolean;
  /** Goals are stored per session. Default: a random id per registerBuiltins call. */
  sessionId?: string;
  /** web_search's provider; without one web_search answers web_search_unavailable. */
  webSearch?: WebSearchProvider;
  bashLimits?: ExecutionLimits;
  imageMaxBytes?: number;
  /** Results above this many bytes go to /.edge/spill/ with a head/tail preview; false = off. */
  spill?: { inlineLimitBytes?: number; previewChars?: number } | false;
  /** Writes apply the plan the person approved (see write-plan.ts and writeApproval). */
  planner?: WritePlanner;
}

export function builtinToolDefinitions(options: BuiltinsOptions): AnyToolDefinition[] {
  const names = checkBuiltinNames(
    options.tools ?? [...DEFAULT_BUILTINS, ...(options.webSearch ? (["web_search"] as const) : [])],
  );
  const vfs = options.vfs;
  const sessionId = options.sessionId ?? `session_${randomHex(8)}`;
  const goals = names.some((n) => n.endsWith("_goal")) ? goalTools(vfs, sessionId) : [];
  const make: Record<BuiltinToolName, () => AnyToolDefinition> = {
    read_file: () => readFileTool(vfs),
    write_file: () => writeFileTool(vfs),
    edit_file: () => editFileTool(vfs),
    read_image: () => readImageTool(vfs, options.imageMaxBytes),
    create_goal: () => goals[0]!,
    get_goal: () => goals[1]!,
    update_goal: () => goals[2]!,
    web_search: () => webSearchTool(options.webSearch),
    bash: () => bashTool(vfs, options.bashLimits ? { limits: options.bashLimits } : {}),
  };
  const defs = [...new Set(names)].map((n) => make[n]());
  const planner = options.planner;
  return planner ? defs.map((d) => (d.meta["writes"] === true ? appliesPlans(d, planner) : d)) : defs;
}

/** A write tool whose body applies the approved plan of its call when there is one (else runs). */
function appliesPlans(def: AnyToolDefinition, planner: WritePlanner): AnyToolDefinition {
  return defineTool<JsonObject>({
    name: def.name,
    description: def.description,
    parameters: def.parameters as JsonObject,
    executionLevel: def.executionLevel,
    outputSchema: def.outputSchema as JsonObject | null,
    ...(def.timeoutMs !== undefined ? { timeoutMs: def.timeoutMs } : {}),
    meta: { ...def.meta },
    async execute(args, ctx) {
      const plan = planner.take(ctx.callId);
      // The arguments were checked against the tool's schema before they got here (as the pipeline's dispatch does).
      if (!plan) return def.execute(args as never, ctx);
      await planner.apply(plan);
      return plan.result;
    },
  });
}

/**
 * The planner for a workspace: it dry-runs a built-in write on a fork of `vfs` with the same
 * tool options (bash limits), so the plan is what the real call would do.
 */
export function createBuiltinWritePlanner(options: Omit<BuiltinsOptions, "planner" | "tools">): WritePlanner {
  const planFn =
    (tool: BuiltinToolName): PlanFn =>
    async (fork, args, ctx) => {
      const [def] = builtinToolDefinitions({ ...options, vfs: fork, tools: [tool], spill: false });
      return (await def!.execute(args as never, ctx)) as JsonObject;
    };
  return createWritePlanner(options.vfs, {
    write_file: planFn("write_file"),
    edit_file: planFn("edit_file"),
    bash: planFn("bash"),
  });
}

/**
 * A fresh runtime holding the chosen built-ins over `vfs`, and the approval handler for their
 * writes (pass both to createChatSession: `runtime`, `approval`). The one way the playground, the
 * widget and the CLI set up built-ins for a session.
 */
export async function builtinsForSession(
  options: Omit<BuiltinsOptions, "planner" | "allowWrites"> & Omit<WriteApprovalOptions, "planner">,
): Promise<{ runtime: ToolRuntime; approval: ApprovalHandler }> {
  const { allowWrites, ask, next, ...builtins } = options;
  const planner = createBuiltinWritePlanner(builtins);
  const runtime = createToolRuntime();
  await registerBuiltins(runtime, { ...builtins, planner });
  return {
    runtime,
    approval: writeApproval({
      planner,
      ...(allowWrites ? { allowWrites } : {}),
      ...(ask ? { ask } : {}),
      ...(next ? { next } : {}),
    }),
  };
}

export interface WriteApprovalOptions {
  planner: WritePlanner;
  /** The person ticked "allow writes for this session": no card, every built-in write runs. */
  allowWrites?: () => boolean;
  /** Show the plan (its diff) and resolve true to apply it, false to refuse. Without it (a CLI
   *  run has no one to ask) a write that changes files is builtin_writes_not_allowed. */
  ask?(plan: WritePlan, signal: AbortSignal): Promise<boolean>;
  /** Anything else that asks (not a built-in write); default: denied. */
  next?: ApprovalHandler;
}

/**
 * The approval handler for built-in writes: the plan is made first; a plan that changes nothing
 * (a read-only bash script) runs without asking; otherwise the person sees the diff and decides.
 * A plan that cannot be made (edit_not_found, bash_limit_exceeded …) fails the call with its code.
 */
export function writeApproval(options: WriteApprovalOptions): ApprovalHandler {
  return async (request) => {
    const { tool, call, signal } = request;
    if (tool.meta["kind"] !== BUILTIN_KIND || tool.meta["writes"] !== true) {
      return options.next
        ? options.next(request)
        : { decision: "deny", reason: "only built-in workspace writes are approved here", code: "tool_denied" };
    }
    if (options.allowWrites?.()) return { decision: "allow" };
    let plan: WritePlan;
    try {
      plan = await options.planner.plan(call.name, call.id, call.args as JsonObject, signal);
    } catch (err) {
      const e = toErrorJson(err);
      return { decision: "deny", reason: e.message, code: e.code };
    }
    if (plan.changes.length === 0) return { decision: "allow" };
    if (!options.ask) {
      options.planner.take(call.id);
      return { decision: "deny", reason: ERRORS.builtin_writes_not_allowed, code: "builtin_writes_not_allowed" };
    }
    const yes = await options.ask(plan, signal).catch(() => false);
    if (yes && !signal.aborted) return { decision: "allow" };
    options.planner.take(call.id);
    return {
      decision: "deny",
      reason: ERRORS.builtin_write_rejected,
      code: signal.aborted ? "aborted" : "builtin_write_rejected",
    };
  };
}

/**
 * Register the built-ins (and their spill policy, and the allowWrites approval) into a runtime.
 * Returns a disposer that removes all of it. The active-tool limit counts what the runtime
 * already holds.
 */
export async function registerBuiltins(runtime: ToolRuntime, options: BuiltinsOptions): Promise<Disposer> {
  const defs = builtinToolDefinitions(options);
  const total = runtime.list().length + defs.length;
  if (total > ACTIVE_TOOL_LIMIT) {
    throw new EdgeError(
      "active_tool_limit_exceeded",
      { count: total },
      `${total} tools would be active but at most ${ACTIVE_TOOL_LIMIT} are allowed; pass fewer built-ins with tools: [...].`,
    );
  }
  if (!(await options.vfs.exists(WORKSPACE_DIR))) await options.vfs.mkdir(WORKSPACE_DIR, { recursive: true });
  const disposers: Disposer[] = [];
  try {
    for (const d of defs) disposers.push(runtime.register(d));
  } catch (err) {
    for (const d of disposers) d();
    throw err;
  }
  if (options.spill !== false)
    disposers.push(runtime.onPostExecute(builtinSpillPolicy(options.vfs, options.spill ?? {})));
  if (options.allowWrites) disposers.push(runtime.setApprovalHandler(allowBuiltinWrites()));
  return () => {
    for (const d of disposers.reverse()) d();
  };
}

/** Spill for built-in tools: the full output goes to /.edge/spill/ in the workspace. */
function builtinSpillPolicy(vfs: EdgeVfs, options: { inlineLimitBytes?: number; previewChars?: number } = {}) {
  return spillPolicy({
    inlineLimitBytes: options.inlineLimitBytes ?? DEFAULT_SPILL_INLINE_BYTES,
    ...(options.previewChars !== undefined ? { previewChars: options.previewChars } : {}),
    appliesTo: (def) => def.meta["kind"] === BUILTIN_KIND && def.meta["spill"] !== false,
    write: async (path, text) => {
      await vfs.writeBytes(path, new TextEncoder().encode(text), { parents: true });
    },
  });
}

/** Approves the built-in workspace writes; everything else goes to `next` (or is denied). */
function allowBuiltinWrites(next?: ApprovalHandler): ApprovalHandler {
  return (request) => {
    if (request.tool.meta["kind"] === BUILTIN_KIND && request.tool.meta["writes"] === true)
      return { decision: "allow" };
    if (next) return next(request);
    return {
      decision: "deny",
      reason: "only built-in workspace writes are allowed without confirmation",
      code: "tool_denied",
    };
  };
}

export type { BuiltinToolName } from "./names.ts";
export { EdgeVfs } from "./vfs/core.ts";
export { goalsPath } from "./goals.ts";
export type { WebSearchProvider } from "./web.ts";
export type { WritePlan, WritePlanner } from "./write-plan.ts";
