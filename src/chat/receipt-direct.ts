// The receipt of a tool call that no model asked for: "try a tool" in the playground, `edge tools
// call`, and the confirmation of a pending commit action. Same fields as a chat receipt; no prompt, no engine.
import { randomHex } from "../contract/hash.ts";
import type { ExecutionLevel } from "../contract/types.ts";
import type { ToolCallReport } from "../toolset/call.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";
import {
  RECEIPT_VERSION,
  type CallReceipt,
  type CallStatus,
  type ReceiptBody,
  type ReceiptOrigin,
} from "../receipts/types.ts";

function callReceiptOf(report: ToolCallReport, executionLevel: ExecutionLevel | null, pending = false): CallReceipt {
  return {
    call_id: report.call_id,
    tool_name: report.tool_name,
    execution_level: executionLevel,
    args_sha256: report.args_sha256,
    result_sha256: report.result_sha256 ?? null,
    tool_schema_sha256: report.tool_schema_sha256,
    tools_file_sha256_verified: report.tools_file_sha256_verified,
    runner_secret_verified: report.runner_secret_verified,
    network_used_by_edge: false,
    status: statusOf(report, pending),
    ...(report.error ? { code: report.error.code } : {}),
    duration_ms: Math.round(report.duration_ms),
    ...(report.workspace_sha256 ? { workspace_sha256: report.workspace_sha256 } : {}),
  };
}

/** As chat's receipts: a call stopped by its caller (cancelled, disconnected) is "aborted". */
function statusOf(report: ToolCallReport, pending: boolean): CallStatus {
  if (pending) return "pending_confirmation";
  if (report.ok) return "ok";
  return report.error?.code === "aborted" ? "aborted" : "failed_closed";
}

export interface DirectReceiptOptions {
  kind: "tool_call" | "confirm";
  executionLevel: ExecutionLevel | null;
  createdAt?: string;
  extra?: Record<string, unknown>;
  /** Default: a fresh `try_…` / `confirm_…` id. */
  id?: string;
  /** A commit tool's direct call that became a pending action instead of running. */
  pending?: { id: string; expires_at: string };
  /** Who asked, when a protocol client did (an MCP client: surface "mcp" and its name/version). */
  origin?: ReceiptOrigin;
}

export function directCallReceiptBody(
  toolset: FrozenToolset,
  report: ToolCallReport,
  options: DirectReceiptOptions,
): ReceiptBody {
  const pending = options.pending;
  // The same extra fields a chat run that ended pending carries.
  const extra = pending
    ? { ...options.extra, pending_action_id: pending.id, pending_expires_at: pending.expires_at }
    : options.extra;
  return {
    receipt_version: RECEIPT_VERSION,
    id: options.id ?? `${options.kind === "confirm" ? "confirm" : "try"}_${randomHex(12)}`,
    kind: options.kind,
    created_at: options.createdAt ?? new Date().toISOString(),
    model_id: null,
    engine: null,
    prompt_sha256: null,
    answer_sha256: report.result_sha256 ?? null,
    tools_file_sha256: toolset.tools_file_sha256,
    tools_bundle_sha256: toolset.tools_bundle_sha256,
    ...(toolset.packages.packages.length ? { python_packages: toolset.packages.packages } : {}),
    ...(toolset.packages.lock_sha256 ? { python_lock_sha256: toolset.packages.lock_sha256 } : {}),
    active_set_sha256: toolset.active_set_sha256,
    schema_generator_version: toolset.schema_generator_version,
    tool_instruction_mode: "none",
    tool_instruction_sha256: null,
    imprint_id: null,
    outcome: pending ? "pending_confirmation" : report.ok ? "return_direct" : "failed_closed",
    code: report.error?.code ?? null,
    network_used_by_edge: false,
    calls: [callReceiptOf(report, options.executionLevel, pending !== undefined)],
    ...(extra ? { extra } : {}),
    ...(options.origin
      ? {
          surface: options.origin.surface,
          client: { name: options.origin.client.name, version: options.origin.client.version },
        }
      : {}),
  };
}
