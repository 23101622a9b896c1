// The tool loop (SPEC §4). A session freezes its tools once; each prompt then runs:
// contract → model text → parse → checks (name, ajv arguments, call budget) → ToolRuntime
// pipeline (fresh runner per Python call) → result back to the model or straight to the caller
// (return_direct) → one chained receipt. Every failure ends the run fail-closed with its code.
import { EdgeError, ERRORS, toErrorJson, type ErrorCode, type ErrorJson } from "../contract/errors.ts";
import { didYouMean } from "../contract/suggest.ts";
import { randomHex, schemaSha256, sha256Json, sha256Text, type Sha256 } from "../contract/hash.ts";
import { ACTIVE_TOOL_LIMIT, type ExecutionLevel, type JsonObject, type Selection, type ToolSchema } from "../contract/types.ts";
import type { ChatMessage, ChatResult, ChatUsage, Engine, EngineInfo } from "../engines/engine.ts";
import { answerBudget } from "../engines/token-budget.ts";
import { toolTurnPolicy, type ToolChoice, type TurnFormat } from "../engines/tool-turn.ts";
import type { RunnerHost, ToolSource } from "../runner/host.ts";
import { createToolRuntime, isPythonTool, type ApprovalHandler, type ToolExecution, type ToolRuntime } from "../runtime/index.ts";
import { argsProblem } from "../contract/ajv.ts";
import type { ToolCallReport } from "../toolset/call.ts";
import { freezeToolset, type FrozenToolset } from "../toolset/freeze.ts";
import { manifestOf } from "../toolset/project.ts";
import type { WorkspaceSource } from "../toolset/workspace.ts";
import { renderRepair, renderToolContract, renderToolResult, toolInstructionSha256 } from "./contract.ts";
import { fitToWindow, tokenCounter } from "./context.ts";
import { imprintReceiptFields, restoreImprintPrefix, type ImprintRestore, type StateRestorer } from "./imprint-restore.ts";
import { createStatsAccumulator } from "./engine-stats.ts";
import type { EngineStats } from "../receipts/types.ts";
import { parseModelOutput, type ParsedOutput } from "./parse.ts";
import { pythonToolDefinitions } from "./python-tools.ts";
import { newRun, type RunState } from "./run-state.ts";
import { splitThink, withoutThinkBlock } from "./think.ts";
import { RECEIPT_VERSION, type CallReceipt, type CallStatus, type ContextReceipt, type Receipt, type ReceiptBody, type RefusedCall, type RunOutcome, type ToolInstructionMode } from "../receipts/types.ts";
import type { ReceiptStore } from "../receipts/store.ts";

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
  /** A Python tool's project: tools_bundle_sha256 and its manifest (path → sha256), so confirming
   *  can name a file that changed. */
  tools_bundle?: { sha256: Sha256; files: Record<string, string> };
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
  /** Loads the imprint's saved model state, when it has one this environment can load (Node). */
  readonly restoreState?: StateRestorer;
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
  /** Which tool calls guided decoding allows: auto (default), required, none — part of the
   *  engine's tool-turn policy (src/engines/tool-turn.ts), the same one learn's evaluation uses. */
  toolChoice?: ToolChoice;
  /** Replaces the policy's response format (tests steer a generating engine with it); asked for
   *  each model turn of a prompt (`turn.index` 0 is the first). */
  responseFormat?: TurnFormat;
  /** Extra tools (built-ins) or hooks: the session registers its Python tools into this runtime. */
  runtime?: ToolRuntime;
  /** Mounted read-only at /workspace for Python tools that declare read_local (a snapshot per call). */
  workspace?: WorkspaceSource;
  /** max_tokens of every generation (default: 1024, at most a quarter of the context window). */
  maxTokens?: number;
}

export type ChatEvent =
  /** A generation finished: its text without a leading think block (and that block's content). */
  | { type: "model_output"; text: string; turn: number; reasoning?: string }
  | { type: "repair"; code: ErrorCode; message: string }
  | { type: "tool_call"; call_id: string; tool_name: string; arguments: JsonObject }
  | { type: "tool_result"; call: CallReceipt; result?: unknown; stderr?: string; error?: ErrorJson };

export interface ChatTurnOptions {
  signal?: AbortSignal;
  /** Streamed model text, as it is generated (tool-call JSON included; a leading think block is
   *  held back, never streamed). */
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
  /** The answer was cut off at max_tokens or the context window (finish_reason "length"): it is
   *  incomplete and must be shown as such. */
  truncated?: true;
  /** Why the run's last generation stopped. */
  finish_reason?: "stop" | "length";
  /** Time to first token and tokens per second, when the engine reports them. */
  engine_stats?: EngineStats;
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
    for (const def of pythonToolDefinitions(toolset, { host, timeoutMs: options.timeoutMs, workspace: options.workspace, onReport: (r) => reports.set(r.call_id, r) })) {
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
        ...(toolset ? { tools_bundle: { sha256: toolset.tools_bundle_sha256, files: manifestOf(toolset.project).files } } : {}),
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
  const toolContract = schemas.length ? renderToolContract(schemas, maxCalls) : null;
  const contract = !options.imprint ? toolContract : combined ? `${toolContract}\n\n${options.imprint.prefix}` : options.imprint.prefix;
  const contractSha = contract ? await toolInstructionSha256(contract) : null;
  const instructionMode: ToolInstructionMode = options.imprint ? (combined ? "imprint_with_contract" : "imprint") : contract ? "contract" : "none";
  const toolSurface = toolset ? ("tools_file" as const) : (surface?.kind ?? null);
  const system: ChatMessage | null = contract ? { role: "system", content: contract } : null;
  // Earlier turns, each kept or dropped whole; turns before firstTurn no longer fit the window.
  let history: ChatMessage[][] = [];
  let firstTurn = 0;
  let restored: ImprintRestore | undefined;

  async function chat(prompt: string, turn: ChatTurnOptions = {}): Promise<ChatRun> {
    if (typeof prompt !== "string" || prompt.trim() === "") throw new EdgeError("invalid_argument", {}, "The prompt is empty.");
    const runId = `run_${randomHex(12)}`;
    const info = options.engine.info();
    const run = newRun(runId, prompt);
    const counter = tokenCounter(options.engine);
    const maxTokens = answerBudget(info.contextWindow, options.maxTokens);
    // Sampling and guided decoding for turns that may call tools (the same as learn's evaluation).
    const policy = schemas.length ? toolTurnPolicy(info, options.toolChoice) : {};
    const turnFormat = schemas.length ? (options.responseFormat ?? policy.responseFormat) : undefined;
    const stats = createStatsAccumulator();
    let sentFirstTurn = firstTurn;
    let promptTokens: number | undefined;
    let firstUsage: ChatUsage | undefined;

    try {
      // A restored imprint's prefix reaches the engine once, in the first run (a failure there
      // fails that run closed, with its receipt): from its saved state, the warm cache, or as text.
      if (options.imprint && contract && !restored) restored = await restoreImprintPrefix(options.engine, contract, options.imprint.restoreState);
      for (let modelTurn = 0; ; modelTurn++) {
        const responseFormat = turnFormat?.(schemas, { index: modelTurn });
        // Fit before every generation: a tool result may have grown this turn past the window.
        const fit = await fitToWindow({ system, turns: history, firstTurn, current: run.current, window: info.contextWindow, reserve: maxTokens, count: counter.count, modelId: info.modelId, trained: info.trainedContextWindow });
        sentFirstTurn = fit.firstTurn;
        promptTokens = fit.promptTokens;
        const generated = await options.engine.chat({
          messages: fit.messages,
          signal: turn.signal,
          onToken: withoutThinkBlock(turn.onToken),
          maxTokens,
          ...(responseFormat ? { responseFormat } : {}),
          ...(policy.temperature !== undefined ? { temperature: policy.temperature } : {}),
        });
        stats.add(generated.usage);
        if (modelTurn === 0) firstUsage = generated.usage;
        if (await step(run, generated, modelTurn, turn)) break;
      }
    } catch (err) {
      if (err instanceof EdgeError && err.code === "context_window_exceeded" && typeof err.details["droppedTurns"] === "number") {
        sentFirstTurn = err.details["droppedTurns"];
        promptTokens = err.details["promptTokens"] as number;
      }
      run.fail(toErrorJson(err));
    }

    // The conversation continues from exactly what the model saw and said — raw replies (think
    // blocks included), tool turns included, and for return_direct nothing after the call, since
    // the model never saw that result: each prompt then extends the previous one byte for byte and
    // web-llm reuses its KV cache. Failed or pending runs leave the history as it was.
    if (run.outcome === "answered" || run.outcome === "return_direct") {
      history = [...history, [...run.current, { role: "assistant", content: run.lastRaw }]];
      firstTurn = sentFirstTurn;
    }
    const context: ContextReceipt | undefined = info.contextWindow
      ? { window: info.contextWindow, ...(info.trainedContextWindow !== undefined ? { trained_window: info.trainedContextWindow } : {}), max_tokens: maxTokens, ...(promptTokens !== undefined ? { prompt_tokens: promptTokens } : {}), turns_dropped: sentFirstTurn, counted_by: counter.method }
      : undefined;
    return finishRun(run, info, { engineStats: stats.result(), context, firstUsage });
  }

  /** One generation's output: answer, repair, call (then continue) or failure. True when the run ends. */
  async function step(run: RunState, generated: ChatResult, modelTurn: number, turn: ChatTurnOptions): Promise<boolean> {
    const raw = generated.text;
    run.lastRaw = raw;
    run.finishReason = generated.finishReason;
    const { visible, reasoning } = splitThink(raw);
    turn.onEvent?.({ type: "model_output", text: visible, turn: modelTurn, ...(reasoning ? { reasoning } : {}) });
    const parsed = parseModelOutput(visible);
    if (parsed.kind === "answer") {
      if (parsed.text === "") return run.fail({ code: "model_output_empty", message: ERRORS.model_output_empty });
      run.outcome = "answered";
      run.answer = parsed.text;
      return true;
    }
    if (parsed.kind === "oversized") return run.fail({ code: "invalid_tool_call", message: `The model's output is ${parsed.chars} characters, beyond the limit; it was not used.` });
    if (generated.finishReason === "length") {
      // A call cut off at max_tokens would be cut off again on a repair turn.
      return run.fail({ code: "invalid_tool_call", message: "The model's reply was cut off at its token limit (max_tokens) before the tool call was complete; nothing ran." });
    }
    const problem = callProblem(parsed, runtime, schemas);
    if (problem) {
      const repair = !run.repaired && schemas.length > 0;
      run.refused.push(await refusedCall(parsed, problem, modelTurn, repair, options.includeText === true));
      if (!repair) return run.fail(problem);
      run.repaired = true;
      turn.onEvent?.({ type: "repair", code: problem.code, message: problem.message });
      run.current.push({ role: "assistant", content: raw }, { role: "user", content: renderRepair(problem.code, problem.message, schemas.map((s) => s.name)) });
      return false;
    }
    if (parsed.kind !== "call") return true; // unreachable: narrowed by callProblem
    if (run.calls.length >= maxCalls) {
      return run.fail({ code: "tool_call_limit_exceeded", message: `The model asked for call ${run.calls.length + 1}; at most ${maxCalls} tool calls run per prompt.`, tool: parsed.toolName });
    }
    return executeCall(run, parsed, raw, turn);
  }

  async function executeCall(run: RunState, parsed: Extract<ParsedOutput, { kind: "call" }>, raw: string, turn: ChatTurnOptions): Promise<boolean> {
    const callId = `call_${randomHex(12)}`;
    turn.onEvent?.({ type: "tool_call", call_id: callId, tool_name: parsed.toolName, arguments: parsed.args });
    const execution = await runtime.execute({ id: callId, name: parsed.toolName, args: parsed.args }, { signal: turn.signal, meta: { runId: run.id } });
    const receipt = await callReceipt(runtime, execution, parsed.args, reports.get(callId), options.includeText === true);
    run.calls.push(receipt);
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
      run.pending = tickets.get(callId);
      return run.fail(execution.error ?? { code: "runner_crashed", message: ERRORS.runner_crashed });
    }
    if (runtime.get(parsed.toolName)!.returnDirect) {
      run.outcome = "return_direct";
      run.result = execution.result;
      run.answer = JSON.stringify(execution.result);
      return true;
    }
    run.current.push({ role: "assistant", content: raw }, { role: "tool", content: renderToolResult(parsed.toolName, execution.content ?? execution.result) });
    return false;
  }

  async function finishRun(run: RunState, info: EngineInfo, extras: { engineStats?: EngineStats; context?: ContextReceipt; firstUsage?: ChatUsage }): Promise<ChatRun> {
    const { outcome, answer, result, error, pending } = run;
    const truncated = outcome === "answered" && run.finishReason === "length";
    const body: ReceiptBody = {
      receipt_version: RECEIPT_VERSION,
      id: run.id,
      kind: "chat",
      created_at: new Date().toISOString(),
      model_id: info.modelId,
      engine: info.kind,
      ...(info.fingerprint ? { model_fingerprint: info.fingerprint } : {}),
      prompt_sha256: await sha256Text(run.prompt),
      answer_sha256: outcome === "return_direct" ? await sha256Json(result) : answer !== undefined ? await sha256Text(answer) : null,
      tools_file_sha256: toolset?.tools_file_sha256 ?? null,
      ...(toolset ? { tools_bundle_sha256: toolset.tools_bundle_sha256 } : {}),
      ...(toolset?.packages.packages.length ? { python_packages: toolset.packages.packages } : {}),
      active_set_sha256: toolset?.active_set_sha256 ?? surface?.active_set_sha256 ?? null,
      schema_generator_version: toolset?.schema_generator_version ?? surface?.schema_generator_version ?? null,
      ...(surface?.tools_manifest_sha256 ? { tools_manifest_sha256: surface.tools_manifest_sha256 } : {}),
      ...(toolSurface ? { tool_surface: toolSurface } : {}),
      ...(surface?.facts_store ? { facts_store: surface.facts_store } : {}),
      tool_instruction_mode: instructionMode,
      tool_instruction_sha256: contractSha,
      imprint_id: options.imprint?.id ?? null,
      ...imprintReceiptFields(restored, extras.firstUsage),
      outcome,
      code: run.code,
      network_used_by_edge: false,
      calls: run.calls,
      ...(run.refused.length ? { refused_calls: run.refused } : {}),
      ...(pending ? { extra: { pending_action_id: pending.id, pending_expires_at: pending.expires_at } } : {}),
      ...(options.includeText ? { text: { prompt: run.prompt, ...(answer !== undefined ? { answer } : {}) } } : {}),
      ...(run.finishReason ? { finish_reason: run.finishReason } : {}),
      ...(extras.engineStats ? { engine_stats: extras.engineStats } : {}),
      ...(extras.context ? { context: extras.context } : {}),
    };
    const receipt = options.store ? await appendReceipt(options.store, body) : body;
    return {
      ok: outcome === "answered" || outcome === "return_direct",
      outcome,
      run_id: run.id,
      ...(answer !== undefined ? { answer } : {}),
      ...(outcome === "return_direct" ? { result } : {}),
      ...(truncated ? { truncated: true } : {}),
      ...(run.finishReason ? { finish_reason: run.finishReason } : {}),
      ...(extras.engineStats ? { engine_stats: extras.engineStats } : {}),
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
      firstTurn = 0;
    },
  };
}

/** The checks before any execution (SPEC §4 step 4): shape, name, arguments. */
function callProblem(parsed: Exclude<ParsedOutput, { kind: "answer" | "oversized" }>, runtime: ToolRuntime, schemas: readonly ToolSchema[]): ErrorJson | null {
  if (parsed.kind === "invalid") return { code: "invalid_tool_call", message: `${ERRORS.invalid_tool_call} Problem: ${parsed.reason}.` };
  const schema = schemas.find((s) => s.name === parsed.toolName);
  if (!runtime.get(parsed.toolName) || !schema) {
    const names = schemas.map((s) => s.name);
    return { code: "unknown_tool", message: `No tool named "${parsed.toolName}" is available.${didYouMean(parsed.toolName, names)} The tools are: ${names.join(", ") || "none"}.`, tool: parsed.toolName };
  }
  const bad = argsProblem(schema.parameters, parsed.args);
  return bad ? { code: "invalid_tool_args", message: `Arguments for "${schema.name}" do not match its schema: ${bad.detail}.`, tool: schema.name } : null;
}

/** The receipt entry of a call the checks refused (it never ran). */
async function refusedCall(parsed: Exclude<ParsedOutput, { kind: "answer" | "oversized" }>, problem: ErrorJson, turn: number, repair: boolean, includeText: boolean): Promise<RefusedCall> {
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
    tool_schema_sha256: (report?.tool_schema_sha256 ?? (def?.meta["schema_sha256"] as Sha256 | undefined)) || (await registeredSchemaSha(runtime, execution.name)),
    tools_file_sha256_verified: report?.tools_file_sha256_verified ?? false,
    runner_secret_verified: report?.runner_secret_verified ?? false,
    network_used_by_edge: false,
    status,
    ...(code ? { code } : {}),
    duration_ms: Math.round(execution.duration_ms),
    ...(def?.meta["reportsRows"] === true && typeof (execution.result as { rows?: unknown } | undefined)?.rows === "number"
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
