// The chat session (docs/contract.md §4): assembled once — its one tool source resolved (a tools file frozen
// here), the runtime with the Python tools, the commit-tool gate and the confirmation flow, the
// 8-tool rule, the imprint gate and the contract — then each prompt runs the tool loop (loop.ts)
// and ends in one chained receipt (receipt-body.ts). The public types are in types.ts.
import { EdgeError } from "../contract/errors.ts";
import type { Sha256 } from "../contract/hash.ts";
import { ACTIVE_TOOL_LIMIT, type JsonObject } from "../contract/types.ts";
import { createToolRuntime, isPythonTool, type ApprovalHandler } from "../runtime/index.ts";
import type { ToolCallReport } from "../toolset/call.ts";
import { freezeToolset, type FrozenToolset } from "../toolset/freeze.ts";
import { manifestOf } from "../toolset/project.ts";
import type { ToolInstructionMode } from "../receipts/types.ts";
import type { WarmOptions } from "../engines/engine.ts";
import { renderToolContract, toolInstructionSha256 } from "./contract.ts";
import { createLoop } from "./loop.ts";
import { pythonToolDefinitions } from "./python-tools.ts";
import {
  DEFAULT_MAX_CALLS,
  type ChatSession,
  type ChatSessionOptions,
  type ConfirmationBroker,
  type PendingTicket,
  type ToolSurface,
} from "./types.ts";

export async function createChatSession(options: ChatSessionOptions): Promise<ChatSession> {
  refuseRetiredToolOptions(options);
  const maxCalls = options.maxCalls ?? DEFAULT_MAX_CALLS;
  if (!Number.isInteger(maxCalls) || maxCalls < 0)
    throw new EdgeError(
      "invalid_option",
      {},
      "maxCalls must be a non-negative integer. Pass 0 or a larger whole number.",
    );

  const { host, tools } = options;
  if ((tools?.kind === "file" || tools?.kind === "toolset") && !host)
    throw new EdgeError(
      "invalid_option",
      { option: "host" },
      "A runner host is needed to run Python tools; pass host (from createNodeRunnerHost() or createBrowserRunnerHost()).",
    );
  // Freeze once per session.
  const toolset =
    tools?.kind === "toolset"
      ? tools.toolset
      : tools?.kind === "file" && host
        ? await freezeToolset(tools.source, host, tools.selection)
        : null;
  const surface = tools?.kind === "surface" ? tools.surface : null;
  const runtime = options.runtime ?? createToolRuntime();
  const reports = new Map<string, ToolCallReport>();
  if (toolset && host) {
    for (const def of pythonToolDefinitions(toolset, {
      host,
      timeoutMs: options.timeoutMs,
      workspace: options.workspace,
      onReport: (r) => reports.set(r.call_id, r),
    })) {
      runtime.register(def);
    }
  }
  // Commit tools never run from chat: the pre-execute stage asks, and only an approval handler
  // (the confirmation flow) can answer; with none, the monotonic guard makes it a deny.
  runtime.onPreExecute(({ tool }) =>
    tool.executionLevel === "commit"
      ? { decision: "ask", reason: "commit tools need explicit confirmation" }
      : { decision: "allow" },
  );
  surface?.register(runtime);
  // Pending tickets created during a run, by call id (the approval handler cannot return data).
  const tickets = new Map<string, PendingTicket>();
  if (options.confirmations)
    runtime.setApprovalHandler(confirmationHandler(options.confirmations, options.approval, toolset, surface, tickets));
  else if (options.approval) runtime.setApprovalHandler(options.approval);

  const schemas = runtime.schemas();
  // The 8-tool rule covers everything the model sees: Python tools, built-ins and lookups together.
  if (schemas.length > ACTIVE_TOOL_LIMIT) {
    throw new EdgeError(
      "active_tool_limit_exceeded",
      { count: schemas.length },
      `${schemas.length} tools would be active but at most ${ACTIVE_TOOL_LIMIT} are allowed; narrow the Python tools with --tool/--tool-tag or register fewer built-ins.`,
    );
  }
  // The imprint gate runs before any generation; on success its prefix is the fixed start and
  // the contract is not injected again.
  const { imprint } = options;
  if (imprint) await imprint.check({ schemas, toolset, engine: options.engine.info(), surface });
  // A profile-only imprint joined with a facts surface: the lookups' contract, then the prefix.
  const combined = imprint?.toolContract === false && schemas.length > 0;
  const toolContract = schemas.length ? renderToolContract(schemas, maxCalls) : null;
  const contract = !imprint ? toolContract : combined ? `${toolContract}\n\n${imprint.prefix}` : imprint.prefix;
  const instructionMode: ToolInstructionMode = imprint
    ? combined
      ? "imprint_with_contract"
      : "imprint"
    : contract
      ? "contract"
      : "none";
  const loop = createLoop({
    engine: options.engine,
    runtime,
    schemas,
    maxCalls,
    contract,
    imprint,
    store: options.store,
    toolChoice: options.toolChoice,
    responseFormat: options.responseFormat,
    maxTokens: options.maxTokens,
    reports,
    tickets,
    receipt: {
      toolset,
      surface,
      instructionMode,
      contractSha: contract ? await toolInstructionSha256(contract) : null,
      imprintId: imprint?.id ?? null,
      includeText: options.includeText === true,
    },
  });
  const { engine } = options;
  const warm = (o?: WarmOptions) =>
    contract && engine.warmPrefix
      ? engine.warmPrefix([{ role: "system", content: contract }], o)
      : Promise.resolve(null);
  return { toolset, contract, runtime, chat: loop.chat, warm, reset: loop.reset };
}

/** The confirmation flow as the runtime's approval handler: a Python tool that asks becomes a
 *  pending action (its ticket kept by call id) and the call ends tool_confirmation_required. */
function confirmationHandler(
  broker: ConfirmationBroker,
  fallback: ApprovalHandler | undefined,
  toolset: FrozenToolset | null,
  surface: ToolSurface | null,
  tickets: Map<string, PendingTicket>,
): ApprovalHandler {
  return async (request) => {
    const { call, tool, meta } = request;
    // Pending actions re-run a Python tool in a fresh runner; other tools that ask (built-in
    // writes) go to the page's own approval handler, or are denied.
    if (!isPythonTool(tool))
      return fallback
        ? fallback(request)
        : { decision: "deny", reason: "no approval for this tool", code: "tool_denied" };
    const ticket = await broker.request({
      run_id: String(meta["runId"]),
      call_id: call.id,
      tool_name: call.name,
      arguments: call.args as JsonObject,
      execution_level: tool.executionLevel,
      tool_schema_sha256: (tool.meta["schema_sha256"] as Sha256 | undefined) ?? null,
      tools_file_sha256: toolset?.tools_file_sha256 ?? null,
      ...(toolset
        ? { tools_bundle: { sha256: toolset.tools_bundle_sha256, files: manifestOf(toolset.project).files } }
        : {}),
      active_set_sha256: toolset?.active_set_sha256 ?? surface?.active_set_sha256 ?? null,
    });
    tickets.set(call.id, ticket);
    return {
      decision: "deny",
      reason: `pending action ${ticket.id} awaits confirmation`,
      code: "tool_confirmation_required",
    };
  };
}

/** The keys that held a tool source (or a selection) before `tools` was one source. */
const RETIRED_TOOL_KEYS = ["toolset", "toolsManifest", "factsStore", "selection"] as const;
const TOOL_KINDS = new Set<string>(["file", "toolset", "surface"]);

/** Plain-JS callers: the types allow one tool source, and a selection only with a tools file.
 *  Options that give a second source, or a selection, the old way are refused, not ignored. */
function refuseRetiredToolOptions(options: ChatSessionOptions): void {
  const retired = RETIRED_TOOL_KEYS.filter((key) => key in options);
  const unknownKind = options.tools !== undefined && !TOOL_KINDS.has(options.tools.kind);
  if (retired.length || unknownKind) {
    throw new EdgeError(
      "conflicting_tool_options",
      { keys: [...retired, ...(unknownKind ? ["tools"] : [])] },
      'Give one tool source as tools: { kind: "file", source, selection? }, { kind: "toolset", toolset } or { kind: "surface", surface }; --tool / --tool-tag select among the tools of a tools file.',
    );
  }
}
