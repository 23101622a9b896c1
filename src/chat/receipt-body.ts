// A chat run's receipt: the body (what the session was given, fixed when it was assembled, and
// what this run did), each call's entry and each refused call's, appended to the store when the
// session has one. Hashes that cannot be computed (a value canonical JSON refuses) are null.
import { EdgeError, type ErrorJson } from "../contract/errors.ts";
import { schemaSha256, sha256Json, sha256Text, type Sha256 } from "../contract/hash.ts";
import type { JsonObject } from "../contract/types.ts";
import type { ChatUsage, EngineInfo } from "../engines/engine.ts";
import type { ToolExecution, ToolRuntime } from "../runtime/index.ts";
import type { ToolCallReport } from "../toolset/call.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import {
  RECEIPT_VERSION,
  type CallReceipt,
  type CallStatus,
  type ContextReceipt,
  type EngineStats,
  type Receipt,
  type ReceiptBody,
  type RefusedCall,
  type ToolInstructionMode,
} from "../receipts/types.ts";
import { startReceiptFields, type SessionStart } from "./session-start.ts";
import type { ParsedOutput } from "./parse.ts";
import type { RunState } from "./run-state.ts";
import type { ToolSurface } from "./types.ts";

/** What every receipt of a session says about its tools and instructions (fixed at assembly). */
export interface SessionReceiptFields {
  readonly toolset: FrozenToolset | null;
  readonly surface: ToolSurface | null;
  readonly instructionMode: ToolInstructionMode;
  readonly contractSha: Sha256 | null;
  readonly imprintId: string | null;
  /** Store raw prompt, answer and arguments. */
  readonly includeText: boolean;
}

/** What one run adds beyond its RunState: the engine's numbers, the window, how the session started. */
export interface RunReceiptExtras {
  engineStats?: EngineStats;
  context?: ContextReceipt;
  firstUsage?: ChatUsage;
  start?: SessionStart;
}

export async function receiptBody(
  session: SessionReceiptFields,
  run: RunState,
  info: EngineInfo,
  extras: RunReceiptExtras,
): Promise<ReceiptBody> {
  const { toolset, surface } = session;
  const { outcome, answer, result, pending } = run;
  const toolSurface = toolset ? ("tools_file" as const) : (surface?.kind ?? null);
  return {
    receipt_version: RECEIPT_VERSION,
    id: run.id,
    kind: "chat",
    created_at: new Date().toISOString(),
    model_id: info.modelId,
    engine: info.kind,
    ...(info.fingerprint ? { model_fingerprint: info.fingerprint } : {}),
    prompt_sha256: await sha256Text(run.prompt),
    answer_sha256:
      outcome === "return_direct" ? await sha256Json(result) : answer !== undefined ? await sha256Text(answer) : null,
    tools_file_sha256: toolset?.tools_file_sha256 ?? null,
    ...(toolset ? { tools_bundle_sha256: toolset.tools_bundle_sha256 } : {}),
    ...(toolset?.packages.packages.length ? { python_packages: toolset.packages.packages } : {}),
    ...(toolset?.packages.lock_sha256 ? { python_lock_sha256: toolset.packages.lock_sha256 } : {}),
    active_set_sha256: toolset?.active_set_sha256 ?? surface?.active_set_sha256 ?? null,
    schema_generator_version: toolset?.schema_generator_version ?? surface?.schema_generator_version ?? null,
    ...(surface?.tools_manifest_sha256 ? { tools_manifest_sha256: surface.tools_manifest_sha256 } : {}),
    ...(toolSurface ? { tool_surface: toolSurface } : {}),
    ...(surface?.facts_store ? { facts_store: surface.facts_store } : {}),
    tool_instruction_mode: session.instructionMode,
    tool_instruction_sha256: session.contractSha,
    imprint_id: session.imprintId,
    ...startReceiptFields(extras.start, extras.firstUsage),
    outcome,
    code: run.code,
    network_used_by_edge: false,
    calls: run.calls,
    ...(run.refused.length ? { refused_calls: run.refused } : {}),
    ...(run.checks.length ? { call_checks: run.checks } : {}),
    ...(pending ? { extra: { pending_action_id: pending.id, pending_expires_at: pending.expires_at } } : {}),
    ...(session.includeText ? { text: { prompt: run.prompt, ...(answer !== undefined ? { answer } : {}) } } : {}),
    ...(run.finishReason ? { finish_reason: run.finishReason } : {}),
    ...(extras.engineStats ? { engine_stats: extras.engineStats } : {}),
    ...(extras.context ? { context: extras.context } : {}),
  };
}

/** The receipt entry of a call the checks refused (it never ran). */
export async function refusedCall(
  parsed: Exclude<ParsedOutput, { kind: "answer" | "oversized" }>,
  problem: ErrorJson,
  turn: number,
  repair: boolean,
  includeText: boolean,
): Promise<RefusedCall> {
  const call = parsed.kind === "call" ? parsed : null;
  return {
    tool_name: call?.toolName ?? null,
    code: problem.code,
    args_sha256: call ? await safeHash(call.args) : null,
    turn,
    then: repair ? "repair_turn" : "failed_closed",
    ...(includeText && call ? { arguments: call.args } : {}),
  };
}

const STATUS: Record<ToolExecution["status"], CallStatus> = {
  ok: "ok",
  denied: "failed_closed",
  blocked: "failed_closed",
  failed: "failed_closed",
  timeout: "failed_closed",
  aborted: "aborted",
};

export async function callReceipt(
  runtime: ToolRuntime,
  execution: ToolExecution,
  args: JsonObject,
  report: ToolCallReport | undefined,
  includeText: boolean,
): Promise<CallReceipt> {
  const def = runtime.get(execution.name);
  const code = execution.error?.code;
  const status: CallStatus = code === "tool_confirmation_required" ? "pending_confirmation" : STATUS[execution.status];
  return {
    call_id: execution.id,
    tool_name: execution.name,
    execution_level: def?.executionLevel ?? null,
    args_sha256: report?.args_sha256 ?? (await safeHash(args)),
    result_sha256: report?.result_sha256 ?? (execution.status === "ok" ? await safeHash(execution.result) : null),
    tool_schema_sha256:
      (report?.tool_schema_sha256 ?? (def?.meta["schema_sha256"] as Sha256 | undefined)) ||
      (await registeredSchemaSha(runtime, execution.name)),
    tools_file_sha256_verified: report?.tools_file_sha256_verified ?? false,
    runner_secret_verified: report?.runner_secret_verified ?? false,
    network_used_by_edge: false,
    status,
    ...(code ? { code } : {}),
    duration_ms: Math.round(execution.duration_ms),
    ...(def?.meta["reportsRows"] === true &&
    typeof (execution.result as { rows?: unknown } | undefined)?.rows === "number"
      ? { rows: (execution.result as { rows: number }).rows }
      : {}),
    ...(report?.workspace_sha256 ? { workspace_sha256: report.workspace_sha256 } : {}),
    ...(includeText ? { arguments: args } : {}),
  };
}

/** Built-ins and lookups carry no precomputed hash: the schema the model saw, hashed the same way. */
async function registeredSchemaSha(runtime: ToolRuntime, name: string): Promise<Sha256 | null> {
  const schema = runtime.schemas({ allow: [name] })[0];
  return schema ? schemaSha256(schema) : null;
}

async function safeHash(value: unknown): Promise<Sha256 | null> {
  try {
    return await sha256Json(value);
  } catch {
    return null;
  }
}

/** The body chained into the store, or the bare body without one; a store's own failure is storage_failed. */
export async function appendReceipt(
  store: ReceiptStore | undefined,
  body: ReceiptBody,
): Promise<Receipt | ReceiptBody> {
  if (!store) return body;
  try {
    return await store.append(body);
  } catch (err) {
    if (err instanceof EdgeError) throw err;
    throw new EdgeError("storage_failed", { receipt: body, reason: String(err) });
  }
}
