// The tool loop (SPEC §4). A session freezes its tools once; each prompt then runs:
// contract → model text → parse → checks (name, ajv arguments, call budget) → ToolRuntime
// pipeline (fresh runner per Python call) → result back to the model or straight to the caller
// (return_direct) → one chained receipt. Every failure ends the run fail-closed with its code.
import { EdgeError, ERRORS, toErrorJson, type ErrorCode, type ErrorJson } from "../contract/errors.ts";
import { randomHex, sha256Json, sha256Text, type Sha256 } from "../contract/hash.ts";
import { ACTIVE_TOOL_LIMIT, type ExecutionLevel, type JsonObject, type Selection, type ToolSchema } from "../contract/types.ts";
import type { ChatMessage, Engine, EngineInfo, ResponseFormat } from "../engines/engine.ts";
import type { RunnerHost, ToolSource } from "../runner/host.ts";
import { createToolRuntime, isPythonTool, type ApprovalHandler, type ToolExecution, type ToolRuntime } from "../runtime/index.ts";
import { argsProblem } from "../contract/ajv.ts";
import type { ToolCallReport } from "../toolset/call.ts";
import { freezeToolset, type FrozenToolset } from "../toolset/freeze.ts";
import { renderRepair, renderToolContract, renderToolResult, toolInstructionSha256 } from "./contract.ts";
import { parseModelOutput } from "./parse.ts";
import { pythonToolDefinitions } from "./python-tools.ts";
import {
  RECEIPT_VERSION,
  type CallReceipt,
  type CallStatus,
  type Receipt,
  type ReceiptBody,
  type ReceiptStore,
  type RunOutcome,
  type ToolInstructionMode,
} from "./receipt-types.ts";

export const DEFAULT_MAX_CALLS = 4;

/** A non-Python tool source (tools manifest, facts store): it registers its tools and names its hashes. */
export interface ToolSurface {
  readonly kind: "tools_manifest" | "facts_store";
  /** Registers the surface's tools into the session's runtime. */
  register(runtime: ToolRuntime): void;
  readonly active_set_sha256: Sha256;
  readonly schema_generator_version: string;
  readonly tools_manifest_sha256?: Sha256;
  /** The store of a facts_store surface (receipts name it). */
  readonly facts_store?: string;
}

/** What the session hands the confirmation flow when a commit tool asks. */
export interface PendingRequest {
  run_id: string;
  call_id: string;
  tool_name: string;
  arguments: JsonObject;
  execution_level: ExecutionLevel;
  tool_schema_sha256: Sha256 | null;
  tools_file_sha256: Sha256 | null;
  active_set_sha256: Sha256 | null;
}

/** A created pending action as the page sees it; the token is shown once and never stored. */
export interface PendingTicket {
  id: string;
  expires_at: string;
  confirmation_token: string;
  [extra: string]: unknown;
}

export interface ConfirmationBroker {
  request(request: PendingRequest): Promise<PendingTicket>;
}

/** A restored imprint: the gate runs before any generation, then the prefix starts the conversation. */
export interface ImprintBinding {
  readonly id: string;
  readonly prefix: string;
  /** false when the prefix carries no tool contract (an imprint learned without tools): with a
   *  facts surface the session then injects the contract before the prefix. Default true. */
  readonly toolContract?: boolean;
  /** Throws the imprint_* EdgeError when the imprint does not fit this session (SPEC §7). */
  check(context: { schemas: readonly ToolSchema[]; toolset: FrozenToolset | null; engine: EngineInfo; surface?: ToolSurface | null }): Promise<void> | void;
}

export interface ChatSessionOptions {
  /** The tools file (re-read for every call). Mutually exclusive with the other tool sources. */
  tools?: ToolSource;
  /** An already frozen toolset (e.g. the playground froze it to show inspect). */
  toolset?: FrozenToolset;
  /** Built-in local facts lookups from a tools manifest, or the plain facts-store lookup. */
  toolsManifest?: ToolSurface;
  factsStore?: ToolSurface;
  selection?: Selection;
  /** Runs Python tools; needed with `tools`/`toolset`. */
  host?: RunnerHost;
  engine: Engine;
  store?: ReceiptStore;
  maxCalls?: number;
  /** Store raw prompt, answer and arguments in receipts (off by default). */
  includeText?: boolean;
  /** Per-call hard limit for Python tools. */
  timeoutMs?: number;
  /** Decides "ask" verdicts (commit tools). Without one (and no `confirmations`), asking is a
   *  deny (fail-closed). */
  approval?: ApprovalHandler;
  /** The confirmation flow: an "ask" creates a pending action and ends the turn pending. */
  confirmations?: ConfirmationBroker;
  /** Restore a Neural Imprint: its prefix replaces the contract after its gate passed. */
  imprint?: ImprintBinding;
  /** A grammar for guided decoding, built from the active tools by the caller's engine layer;
   *  asked for each model turn of a prompt (`turn.index` 0 is the first), so a policy may differ
   *  between the first turn and the ones after a tool result (src/engines/tool-choice.ts). */
  responseFormat?: (schemas: readonly ToolSchema[], turn: { index: number }) => ResponseFormat | undefined;
  /** Extra tools (built-ins) or hooks: the session registers its Python tools into this runtime. */
  runtime?: ToolRuntime;
  maxTokens?: number;
}

export type ChatEvent =
  | { type: "model_output"; text: string; turn: number }
  | { type: "repair"; code: ErrorCode; message: string }
  | { type: "tool_call"; call_id: string; tool_name: string; arguments: JsonObject }
  | { type: "tool_result"; call: CallReceipt; result?: unknown; stderr?: string; error?: ErrorJson };

export interface ChatTurnOptions {
  signal?: AbortSignal;
  /** Streamed model text, as it is generated (tool-call JSON included). */
  onToken?: (delta: string) => void;
  onEvent?: (event: ChatEvent) => void;
}

export interface ChatRun {
  ok: boolean;
  outcome: RunOutcome;
  run_id: string;
  /** The model's final answer (answered), or the canonical JSON of a return_direct result. */
  answer?: string;
  /** The validated result of a return_direct tool. */
  result?: unknown;
  error?: ErrorJson;
  /** Set when the run ended pending_confirmation through the confirmation flow. */
  pending_action?: PendingTicket;
  receipt: Receipt | ReceiptBody;
}

export interface ChatSession {
  readonly toolset: FrozenToolset | null;
  readonly contract: string | null;
  readonly runtime: ToolRuntime;
  chat(prompt: string, options?: ChatTurnOptions): Promise<ChatRun>;
  /** Forget the conversation (the frozen tools stay). */
  reset(): void;
}

export async function createChatSession(options: ChatSessionOptions): Promise<ChatSession> {
  const sources = [options.tools, options.toolset, options.toolsManifest, options.factsStore].filter((s) => s !== undefined);
  if (sources.length > 1) throw new EdgeError("conflicting_tool_options");
  if (options.selection && !options.tools && !options.toolset) {
    throw new EdgeError("conflicting_tool_options", {}, "--tool / --tool-tag select among the tools of a tools file; pass the tools file too.");
  }
  const maxCalls = options.maxCalls ?? DEFAULT_MAX_CALLS;
  if (!Number.isInteger(maxCalls) || maxCalls < 0) throw new EdgeError("invalid_argument", {}, "maxCalls must be a non-negative integer.");

  const host = options.host;
  if ((options.tools || options.toolset) && !host) throw new EdgeError("invalid_argument", {}, "A runner host is needed to run Python tools.");
  // Freeze once per session.
  const toolset = options.toolset ?? (options.tools && host ? await freezeToolset(options.tools, host, options.selection) : null);
  const runtime = options.runtime ?? createToolRuntime();
  const reports = new Map<string, ToolCallReport>();
  if (toolset && host) {
    for (const def of pythonToolDefinitions(toolset, { host, timeoutMs: options.timeoutMs, onReport: (r) => reports.set(r.call_id, r) })) {
      runtime.register(def);
    }
  }
  // Commit tools never run from chat: the pre-execute stage asks, and only an approval handler
  // (the confirmation flow) can answer; with none, the monotonic guard makes it a deny.
  runtime.onPreExecute(({ tool }) =>
    tool.executionLevel === "commit" ? { decision: "ask", reason: "commit tools need explicit confirmation" } : { decision: "allow" },
  );
  const surface = options.toolsManifest ?? options.factsStore;
  surface?.register(runtime);
  // Pending tickets created during a run, by call id (the approval handler cannot return data).
  const tickets = new Map<string, PendingTicket>();
  if (options.confirmations) {
    const broker = options.confirmations;
    const fallback = options.approval;
    runtime.setApprovalHandler(async (request) => {
      const { call, tool, meta } = request;
      // Pending actions re-run a Python tool in a fresh runner; other tools that ask (built-in
      // writes) go to the page's own approval handler, or are denied.
      if (!isPythonTool(tool)) return fallback ? fallback(request) : { decision: "deny", reason: "no approval for this tool", code: "tool_denied" };
      const ticket = await broker.request({
        run_id: String(meta["runId"]),
        call_id: call.id,
        tool_name: call.name,
        arguments: call.args as JsonObject,
        execution_level: tool.executionLevel,
        tool_schema_sha256: (tool.meta["schema_sha256"] as Sha256 | undefined) ?? null,
        tools_file_sha256: toolset?.tools_file_sha256 ?? null,
        active_set_sha256: toolset?.active_set_sha256 ?? surface?.active_set_sha256 ?? null,
      });
      tickets.set(call.id, ticket);
      return { decision: "deny", reason: `pending action ${ticket.id} awaits confirmation`, code: "tool_confirmation_required" };
    });
  } else if (options.approval) runtime.setApprovalHandler(options.approval);

  const schemas = runtime.schemas();
  // The 8-tool rule covers everything the model sees: Python tools, built-ins and lookups together.
  if (schemas.length > ACTIVE_TOOL_LIMIT) {
    throw new EdgeError("active_tool_limit_exceeded", { count: schemas.length }, `${schemas.length} tools would be active but at most ${ACTIVE_TOOL_LIMIT} are allowed; narrow the Python tools with --tool/--tool-tag or register fewer built-ins.`);
  }
  // The imprint gate runs before any generation; on success its prefix is the fixed start and
  // the contract is not injected again.
  if (options.imprint) await options.imprint.check({ schemas, toolset, engine: options.engine.info(), surface: surface ?? null });
  // A profile-only imprint joined with a facts surface: the lookups' contract, then the prefix.
  const combined = options.imprint?.toolContract === false && schemas.length > 0;
  const contract = options.imprint
    ? combined
      ? `${renderToolContract(schemas, maxCalls)}\n\n${options.imprint.prefix}`
      : options.imprint.prefix
    : schemas.length
      ? renderToolContract(schemas, maxCalls)
      : null;
  const contractSha = contract ? await toolInstructionSha256(contract) : null;
  const instructionMode: ToolInstructionMode = options.imprint ? (combined ? "imprint_with_contract" : "imprint") : contract ? "contract" : "none";
  const toolSurface = toolset ? ("tools_file" as const) : (surface?.kind ?? null);
  let history: ChatMessage[] = [];

  async function chat(prompt: string, turn: ChatTurnOptions = {}): Promise<ChatRun> {
    if (typeof prompt !== "string" || prompt.trim() === "") throw new EdgeError("invalid_argument", {}, "The prompt is empty.");
    const runId = `run_${randomHex(12)}`;
    const info = options.engine.info();
    const calls: CallReceipt[] = [];
    const messages: ChatMessage[] = [...(contract ? [{ role: "system" as const, content: contract }] : []), ...history, { role: "user", content: prompt }];
    let repaired = false;
    let outcome: RunOutcome = "failed_closed";
    let code: ErrorCode | null = null;
    let answer: string | undefined;
    let result: unknown;
    let error: ErrorJson | undefined;
    let pending: PendingTicket | undefined;
    let lastText = "";

    const fail = (e: ErrorJson): void => {
      outcome = e.code === "tool_confirmation_required" ? "pending_confirmation" : "failed_closed";
      code = e.code;
      error = e;
    };

    try {
      for (let modelTurn = 0; ; modelTurn++) {
        const responseFormat = schemas.length ? options.responseFormat?.(schemas, { index: modelTurn }) : undefined;
        const generated = await options.engine.chat({
          messages,
          signal: turn.signal,
          onToken: turn.onToken,
          ...(responseFormat ? { responseFormat } : {}),
          ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
        });
        const text = generated.text;
        lastText = text;
        turn.onEvent?.({ type: "model_output", text, turn: modelTurn });
        const parsed = parseModelOutput(text);
        if (parsed.kind === "answer") {
          outcome = "answered";
          answer = parsed.text;
          break;
        }
        if (parsed.kind === "oversized") {
          fail({ code: "invalid_tool_call", message: `The model's output is ${parsed.chars} characters, beyond the limit; it was not used.` });
          break;
        }
        // Checks before any execution: shape, name, arguments, budget.
        let problem: ErrorJson | null = null;
        if (parsed.kind === "invalid") problem = { code: "invalid_tool_call", message: `${ERRORS.invalid_tool_call} Problem: ${parsed.reason}.` };
        else if (!runtime.get(parsed.toolName) || !schemas.some((s) => s.name === parsed.toolName)) {
          problem = { code: "unknown_tool", message: `No tool named "${parsed.toolName}" is available; the tools are: ${schemas.map((s) => s.name).join(", ") || "none"}.`, tool: parsed.toolName };
        } else {
          const schema = schemas.find((s) => s.name === parsed.toolName)!;
          const bad = argsProblem(schema.parameters, parsed.args);
          if (bad) problem = { code: "invalid_tool_args", message: `Arguments for "${schema.name}" do not match its schema: ${bad.detail}.`, tool: schema.name };
        }
        if (problem) {
          if (repaired || schemas.length === 0) {
            fail(problem);
            break;
          }
          repaired = true;
          turn.onEvent?.({ type: "repair", code: problem.code, message: problem.message });
          messages.push({ role: "assistant", content: text }, { role: "user", content: renderRepair(problem.code, problem.message, schemas.map((s) => s.name)) });
          continue;
        }
        if (parsed.kind !== "call") break; // unreachable: narrowed above
        if (calls.length >= maxCalls) {
          fail({ code: "tool_call_limit_exceeded", message: `The model asked for call ${calls.length + 1}; at most ${maxCalls} tool calls run per prompt.`, tool: parsed.toolName });
          break;
        }

        const callId = `call_${randomHex(12)}`;
        turn.onEvent?.({ type: "tool_call", call_id: callId, tool_name: parsed.toolName, arguments: parsed.args });
        const execution = await runtime.execute({ id: callId, name: parsed.toolName, args: parsed.args }, { signal: turn.signal, meta: { runId } });
        const receipt = await callReceipt(runtime, execution, parsed.args, reports.get(callId), options.includeText === true);
        calls.push(receipt);
        const report = reports.get(callId);
        reports.delete(callId);
        turn.onEvent?.({
          type: "tool_result",
          call: receipt,
          ...(execution.status === "ok" ? { result: execution.result } : {}),
          ...(report?.stderr ? { stderr: report.stderr } : {}),
          ...(execution.error ? { error: execution.error } : {}),
        });
        if (execution.status !== "ok") {
          pending = tickets.get(callId);
          fail(execution.error ?? { code: "runner_crashed", message: ERRORS.runner_crashed });
          break;
        }
        const def = runtime.get(parsed.toolName)!;
        if (def.returnDirect) {
          outcome = "return_direct";
          result = execution.result;
          answer = JSON.stringify(execution.result);
          break;
        }
        messages.push({ role: "assistant", content: text }, { role: "tool", content: renderToolResult(parsed.toolName, execution.content ?? execution.result) });
      }
    } catch (err) {
      fail(toErrorJson(err));
    }

    // The conversation continues from exactly what the model saw and said (tool turns included):
    // a follow-up can refer to a result, and web-llm reuses its KV cache for a prompt that extends
    // the previous one. Failed or pending runs leave the history as it was.
    const turnMessages = messages.slice(contract ? 1 : 0);
    if (outcome === "answered") history = [...turnMessages, { role: "assistant", content: lastText }];
    else if (outcome === "return_direct") {
      const toolName = calls.at(-1)?.tool_name ?? "";
      history = [...turnMessages, { role: "assistant", content: lastText }, { role: "tool", content: renderToolResult(toolName, result) }];
    }
    const body: ReceiptBody = {
      receipt_version: RECEIPT_VERSION,
      id: runId,
      kind: "chat",
      created_at: new Date().toISOString(),
      model_id: info.modelId,
      engine: info.kind,
      ...(info.fingerprint ? { model_fingerprint: info.fingerprint } : {}),
      prompt_sha256: await sha256Text(prompt),
      answer_sha256: outcome === "return_direct" ? await sha256Json(result) : answer !== undefined ? await sha256Text(answer) : null,
      tools_file_sha256: toolset?.tools_file_sha256 ?? null,
      active_set_sha256: toolset?.active_set_sha256 ?? surface?.active_set_sha256 ?? null,
      schema_generator_version: toolset?.schema_generator_version ?? surface?.schema_generator_version ?? null,
      ...(surface?.tools_manifest_sha256 ? { tools_manifest_sha256: surface.tools_manifest_sha256 } : {}),
      ...(toolSurface ? { tool_surface: toolSurface } : {}),
      ...(surface?.facts_store ? { facts_store: surface.facts_store } : {}),
      tool_instruction_mode: instructionMode,
      tool_instruction_sha256: contractSha,
      imprint_id: options.imprint?.id ?? null,
      outcome,
      code,
      network_used_by_edge: false,
      calls,
      ...(pending ? { extra: { pending_action_id: pending.id, pending_expires_at: pending.expires_at } } : {}),
      ...(options.includeText ? { text: { prompt, ...(answer !== undefined ? { answer } : {}) } } : {}),
    };
    const receipt = options.store ? await appendReceipt(options.store, body) : body;
    return {
      ok: outcome === "answered" || outcome === "return_direct",
      outcome,
      run_id: runId,
      ...(answer !== undefined ? { answer } : {}),
      ...(outcome === "return_direct" ? { result } : {}),
      ...(error ? { error } : {}),
      ...(pending ? { pending_action: pending } : {}),
      receipt,
    };
  }

  return {
    toolset,
    contract,
    runtime,
    chat,
    reset() {
      history = [];
    },
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

async function callReceipt(
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
    tool_schema_sha256: (report?.tool_schema_sha256 ?? (def?.meta["schema_sha256"] as Sha256 | undefined)) || null,
    tools_file_sha256_verified: report?.tools_file_sha256_verified ?? false,
    runner_secret_verified: report?.runner_secret_verified ?? false,
    network_used_by_edge: false,
    status,
    ...(code ? { code } : {}),
    duration_ms: Math.round(execution.duration_ms),
    ...(def?.meta["reportsRows"] === true && typeof (execution.result as { rows?: unknown } | undefined)?.rows === "number"
      ? { rows: (execution.result as { rows: number }).rows }
      : {}),
    ...(includeText ? { arguments: args } : {}),
  };
}

async function safeHash(value: unknown): Promise<Sha256 | null> {
  try {
    return await sha256Json(value);
  } catch {
    return null;
  }
}

async function appendReceipt(store: ReceiptStore, body: ReceiptBody): Promise<Receipt> {
  try {
    return await store.append(body);
  } catch (err) {
    if (err instanceof EdgeError) throw err;
    throw new EdgeError("storage_failed", { receipt: body, reason: String(err) });
  }
}

/** One prompt in a fresh session: freeze, run, done. */
export async function chat(options: ChatSessionOptions & { prompt: string } & ChatTurnOptions): Promise<ChatRun> {
  const session = await createChatSession(options);
  return session.chat(options.prompt, options);
}
