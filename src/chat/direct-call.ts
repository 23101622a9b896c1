// A tool call that no model asked for — `edge tools call`, an MCP client's tools/call — through the
// same steps as chat's: a read or prepare tool runs in a fresh runner (callTool: name, arguments,
// hash-checked source, result checks); a commit tool never runs here: its arguments are checked and
// it becomes a pending action, confirmed later with its token (docs/contract.md §6). Either way one receipt
// (kind tool_call) is chained.
import { errorJson, toErrorJson, type ErrorJson } from "../contract/errors.ts";
import { randomHex, sha256Json } from "../contract/hash.ts";
import type { ExecutionLevel, JsonObject } from "../contract/types.ts";
import type { RunnerHost } from "../runner/host.ts";
import { callTool, checkToolArgs, findActiveTool, type CallToolOptions, type ToolCallReport } from "../toolset/call.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";
import { manifestOf } from "../toolset/project.ts";
import { directCallReceiptBody } from "./receipt-direct.ts";
import type { Receipt, ReceiptOrigin } from "../receipts/types.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import type { ConfirmationBroker, PendingTicket } from "./types.ts";

export interface DirectCallOptions {
  /** Where a commit tool's pending action goes. */
  broker: ConfirmationBroker;
  receipts: ReceiptStore;
  /** timeoutMs, signal, workspace of the runner call (callId is set here). */
  call?: Omit<CallToolOptions, "callId">;
  /** Default: a fresh `try_…` id. */
  receiptId?: string;
  /** Hash-covered extras of the receipt, e.g. {via: "cli_tools_call"}. */
  extra?: Record<string, unknown>;
  origin?: ReceiptOrigin;
}

export interface DirectCallOutcome {
  /** null: the tool is not in the active set (the report says unknown_tool). */
  level: ExecutionLevel | null;
  report: ToolCallReport;
  /** A commit tool's pending action (the token appears here once). */
  pending?: PendingTicket;
  receipt?: Receipt;
  /** The receipt could not be written (the call itself is in `report`). */
  receiptError?: ErrorJson;
}

export async function directCall(
  toolset: FrozenToolset,
  host: RunnerHost,
  name: string,
  args: unknown,
  options: DirectCallOptions,
): Promise<DirectCallOutcome> {
  const level = toolset.active.find((t) => t.schema.name === name)?.schema.execution_level ?? null;
  const receiptId = options.receiptId ?? `try_${randomHex(12)}`;
  const { report, pending } =
    level === "commit"
      ? await requestConfirmation(toolset, name, args, options.broker, receiptId)
      : { report: await callTool(toolset, host, name, args, options.call ?? {}), pending: undefined };
  const body = directCallReceiptBody(toolset, report, {
    kind: "tool_call",
    id: receiptId,
    executionLevel: level,
    ...(options.extra ? { extra: options.extra } : {}),
    ...(pending ? { pending } : {}),
    ...(options.origin ? { origin: options.origin } : {}),
  });
  try {
    return { level, report, ...(pending ? { pending } : {}), receipt: await options.receipts.append(body) };
  } catch (err) {
    return { level, report, ...(pending ? { pending } : {}), receiptError: toErrorJson(err) };
  }
}

/** A commit tool's direct call: check the arguments, then store a pending action instead of running it. */
async function requestConfirmation(
  toolset: FrozenToolset,
  name: string,
  args: unknown,
  broker: ConfirmationBroker,
  runId: string,
): Promise<{ report: ToolCallReport; pending?: PendingTicket }> {
  const tool = findActiveTool(toolset, name);
  const callId = `call_${randomHex(12)}`;
  const base = {
    tool_name: name,
    call_id: callId,
    tool_schema_sha256: tool.schema_sha256,
    tools_file_sha256_verified: false,
    runner_secret_verified: false,
    duration_ms: 0,
    stderr: "",
  };
  let valid: JsonObject;
  try {
    valid = checkToolArgs(tool, args);
  } catch (err) {
    return { report: { ...base, ok: false, args_sha256: null, error: toErrorJson(err) } };
  }
  const pending = await broker.request({
    run_id: runId,
    call_id: callId,
    tool_name: name,
    arguments: valid,
    execution_level: "commit",
    tool_schema_sha256: tool.schema_sha256,
    tools_file_sha256: toolset.tools_file_sha256,
    tools_bundle: { sha256: toolset.tools_bundle_sha256, files: manifestOf(toolset.project).files },
    active_set_sha256: toolset.active_set_sha256,
  });
  const error = errorJson("tool_confirmation_required", {
    message: `${name} is a commit tool: it runs only after you confirm pending action ${pending.id}.`,
    tool: name,
  });
  return { report: { ...base, ok: false, args_sha256: await sha256Json(valid), error }, pending };
}
