// The tool loop of one prompt (docs/contract.md §4): fit the conversation to the window → model text → parse
// → checks (name, ajv arguments, call budget) → ToolRuntime pipeline → the result back to the
// model or straight to the caller (return_direct) → one receipt. Every failure ends the run
// fail-closed with its code. The session (session.ts) assembles what the loop runs with.
import { ERRORS } from "../contract/error-table.ts";
import { EdgeError, toErrorJson, type ErrorJson } from "../contract/errors.ts";
import { didYouMean } from "../contract/suggest.ts";
import { randomHex } from "../contract/hash.ts";
import type { ToolSchema } from "../contract/types.ts";
import { argsProblem } from "../contract/ajv.ts";
import type { ChatMessage, ChatRequest, ChatUsage, Engine, EngineInfo, ResponseFormat } from "../engines/engine.ts";
import { textAnswerResponseFormat } from "../engines/grammar.ts";
import { answerBudget } from "../engines/token-budget.ts";
import { toolTurnPolicy, type ToolChoice, type TurnFormat } from "../engines/tool-turn.ts";
import type { ToolRuntime } from "../runtime/index.ts";
import type { ToolCallReport } from "../toolset/call.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import type { ContextReceipt } from "../receipts/types.ts";
import { renderRepair, renderToolResult } from "./contract.ts";
import { fitToWindow, tokenCounter } from "./context.ts";
import { ANSWER_REQUEST_TOKENS, checkedTurn, checksCalls, type CheckedTurn, type TurnKind } from "./model-turn.ts";
import { createStatsAccumulator } from "./engine-stats.ts";
import { parseModelOutput, type ParsedOutput } from "./parse.ts";
import {
  appendReceipt,
  callReceipt,
  receiptBody,
  refusedCall,
  type RunReceiptExtras,
  type SessionReceiptFields,
} from "./receipt-body.ts";
import { newRun, type RunState } from "./run-state.ts";
import { startSession, type SessionStart } from "./session-start.ts";
import { splitThink, withoutThinkBlock } from "./think.ts";
import type { ChatRun, ChatSession, ChatTurnOptions, ImprintBinding, PendingTicket } from "./types.ts";

/** What the loop runs with, fixed when the session was assembled. */
export interface LoopSetup {
  readonly engine: Engine;
  readonly runtime: ToolRuntime;
  /** Every tool the model sees (Python tools, built-ins, lookups). */
  readonly schemas: readonly ToolSchema[];
  readonly maxCalls: number;
  /** The system message: the tool contract, an imprint's prefix, or both; null for none. */
  readonly contract: string | null;
  readonly imprint: ImprintBinding | undefined;
  readonly store: ReceiptStore | undefined;
  readonly toolChoice: ToolChoice | undefined;
  readonly responseFormat: TurnFormat | undefined;
  readonly maxTokens: number | undefined;
  /** Python calls' reports by call id, as the Python tools record them. */
  readonly reports: Map<string, ToolCallReport>;
  /** Pending tickets created during a run, by call id (the approval handler cannot return data). */
  readonly tickets: ReadonlyMap<string, PendingTicket>;
  readonly receipt: SessionReceiptFields;
}

/** The conversation so far: earlier turns, each kept or dropped whole (turns before firstTurn no
 *  longer fit the window), and how its start (an imprint's prefix, the contract) reached the engine. */
interface Conversation {
  history: ChatMessage[][];
  firstTurn: number;
  start?: SessionStart;
}

type Call = Extract<ParsedOutput, { kind: "call" }>;

export function createLoop(setup: LoopSetup): Pick<ChatSession, "chat" | "reset"> {
  const conversation: Conversation = { history: [], firstTurn: 0 };
  return {
    chat: (prompt, turn = {}) => runPrompt(setup, conversation, prompt, turn),
    reset() {
      conversation.history = [];
      conversation.firstTurn = 0;
    },
  };
}

async function runPrompt(
  setup: LoopSetup,
  conversation: Conversation,
  prompt: string,
  turn: ChatTurnOptions,
): Promise<ChatRun> {
  if (typeof prompt !== "string" || prompt.trim() === "") throw new EdgeError("empty_prompt");
  const { engine, schemas, contract, imprint } = setup;
  const runId = `run_${randomHex(12)}`;
  const info = engine.info();
  const run = newRun(runId, prompt);
  const counter = tokenCounter(engine);
  const maxTokens = answerBudget(info.contextWindow, setup.maxTokens);
  // Sampling and guided decoding for turns that may call tools (the same as learn's evaluation).
  const policy = schemas.length ? toolTurnPolicy(info, setup.toolChoice) : {};
  const turnFormat = schemas.length ? (setup.responseFormat ?? policy.responseFormat) : undefined;
  // Guided turns are checked turns (model-turn.ts) where that was measured, unless the caller set its own format.
  const checked = turnFormat !== undefined && !setup.responseFormat && checksCalls(engine);
  // A checked turn's answer is asked for in one more line: room for it is kept beside the answer
  // budget, or a window filled to the budget would refuse the answer.
  const reserve = maxTokens + (checked ? ANSWER_REQUEST_TOKENS : 0);
  const system: ChatMessage | null = contract ? { role: "system", content: contract } : null;
  const stats = createStatsAccumulator();
  let sentFirstTurn = conversation.firstTurn;
  let promptTokens: number | undefined;
  let firstUsage: ChatUsage | undefined;

  try {
    // The start reaches the engine once, in the first run (a failure there fails that run closed,
    // with its receipt): a restored imprint's prefix from its saved state, the warm cache or as
    // text; the contract from a saved start when the engine keeps them (session-start.ts).
    if (contract && !conversation.start) conversation.start = await startSession(engine, contract, imprint);
    for (let modelTurn = 0; ; modelTurn++) {
      // Fit before every generation: a tool result may have grown this turn past the window.
      const fit = await fitToWindow({
        system,
        turns: conversation.history,
        firstTurn: conversation.firstTurn,
        current: run.current,
        window: info.contextWindow,
        reserve,
        count: counter.count,
        modelId: info.modelId,
        trained: info.trainedContextWindow,
      });
      sentFirstTurn = fit.firstTurn;
      promptTokens = fit.promptTokens;
      const generation = {
        messages: fit.messages,
        signal: turn.signal,
        maxTokens,
        ...(policy.temperature !== undefined ? { temperature: policy.temperature } : {}),
      };
      const generated = checked
        ? await checkedTurn({
            ...generation,
            engine,
            prompt,
            schemas,
            kind: checkedTurnKind(setup, run, modelTurn),
            ranCalls: run.ran,
            onToken: turn.onToken,
          })
        : await singleTurn(
            engine,
            { ...generation, onToken: withoutThinkBlock(turn.onToken) },
            turnFormatNow(turnFormat, setup, run, modelTurn),
          );
      for (const usage of generated.usages) stats.add(usage);
      if (modelTurn === 0) firstUsage = generated.usages[0];
      if (generated.check) run.checks.push({ turn: modelTurn, ...generated.check });
      if (await step(setup, run, generated, modelTurn, turn)) break;
    }
  } catch (err) {
    if (
      err instanceof EdgeError &&
      err.code === "context_window_exceeded" &&
      typeof err.details["droppedTurns"] === "number"
    ) {
      sentFirstTurn = err.details["droppedTurns"];
      promptTokens = err.details["promptTokens"] as number;
    }
    run.fail(toErrorJson(err));
  }

  // The conversation continues from exactly what the model saw and said — raw replies (think
  // blocks included), tool turns and the line that asked for a checked turn's answer included (its
  // declined proposal and its check aside: model-turn.ts), and for return_direct nothing after the call, since
  // the model never saw that result: each prompt then extends the previous one byte for byte and
  // web-llm reuses its KV cache. Failed or pending runs leave the history as it was.
  if (run.outcome === "answered" || run.outcome === "return_direct") {
    conversation.history = [...conversation.history, [...run.current, { role: "assistant", content: run.lastRaw }]];
    conversation.firstTurn = sentFirstTurn;
  }
  const context: ContextReceipt | undefined = info.contextWindow
    ? {
        window: info.contextWindow,
        ...(info.trainedContextWindow !== undefined ? { trained_window: info.trainedContextWindow } : {}),
        max_tokens: maxTokens,
        ...(promptTokens !== undefined ? { prompt_tokens: promptTokens } : {}),
        turns_dropped: sentFirstTurn,
        counted_by: counter.method,
      }
    : undefined;
  return finishRun(setup, run, info, { engineStats: stats.result(), context, firstUsage, start: conversation.start });
}

/**
 * The guided format of the next model turn. Once the prompt's call budget is spent no call can run,
 * so a guided turn may only answer: offered a call as well, a real model that keeps calling
 * (SmolLM2-135M repeats the same call after each result) always spends its last turn on a call that
 * is refused, and a run whose calls all ran never gets its answer. Unguided engines (the scripted
 * demo, --tool-choice none) get no format either way; step() refuses their extra call.
 */
function turnFormatNow(
  turnFormat: TurnFormat | undefined,
  setup: LoopSetup,
  run: RunState,
  modelTurn: number,
): ResponseFormat | undefined {
  if (!turnFormat) return undefined;
  return run.calls.length >= setup.maxCalls
    ? textAnswerResponseFormat()
    : turnFormat(setup.schemas, { index: modelTurn });
}

/** A checked turn's kind: an answer once the budget is spent (as turnFormatNow), a bare call for
 *  "required" on the first turn, else propose → check. */
function checkedTurnKind(setup: LoopSetup, run: RunState, modelTurn: number): TurnKind {
  if (run.calls.length >= setup.maxCalls) return "answer";
  return setup.toolChoice === "required" && modelTurn === 0 ? "call" : "checked";
}

/** One plain generation (engines without checked turns), in the checked turn's shape. */
async function singleTurn(
  engine: Engine,
  request: Omit<ChatRequest, "responseFormat">,
  responseFormat: ResponseFormat | undefined,
): Promise<CheckedTurn> {
  const result = await engine.chat({ ...request, ...(responseFormat ? { responseFormat } : {}) });
  return { result, answerOnly: false, usages: [result.usage] };
}

/** One generation's output: answer, repair, call (then continue) or failure. True when the run ends. */
async function step(
  setup: LoopSetup,
  run: RunState,
  turnOutput: CheckedTurn,
  modelTurn: number,
  turn: ChatTurnOptions,
): Promise<boolean> {
  const { runtime, schemas, maxCalls } = setup;
  const generated = turnOutput.result;
  const raw = generated.text;
  run.lastRaw = raw;
  run.finishReason = generated.finishReason;
  const { visible, reasoning } = splitThink(raw);
  turn.onEvent?.({ type: "model_output", text: visible, turn: modelTurn, ...(reasoning ? { reasoning } : {}) });
  // An answer-only generation is the answer, whatever it holds (its grammar cannot open a call).
  const parsed: ParsedOutput = turnOutput.answerOnly
    ? { kind: "answer", text: visible.trim() }
    : parseModelOutput(visible);
  if (parsed.kind === "answer") {
    if (parsed.text === "") return run.fail({ code: "model_output_empty", message: ERRORS.model_output_empty });
    // The line the answer was asked for with stays in the conversation, before the answer.
    if (turnOutput.asked) run.current.push(turnOutput.asked);
    run.outcome = "answered";
    run.answer = parsed.text;
    return true;
  }
  if (parsed.kind === "oversized")
    return run.fail({
      code: "invalid_tool_call",
      message: `The model's output is ${parsed.chars} characters, beyond the limit; it was not used.`,
    });
  if (run.calls.length >= maxCalls) {
    // No call can run any more, so an attempt at one (well-formed or not) gets no repair turn: a
    // repaired call could not run either. A guided web-llm model was offered only an answer here
    // (turnFormatNow), but its text is parsed and may still hold a call (a checked turn's is not).
    return run.fail({
      code: "tool_call_limit_exceeded",
      message: `The model asked for call ${run.calls.length + 1}; at most ${maxCalls} tool calls run per prompt.`,
      ...(parsed.kind === "call" ? { tool: parsed.toolName } : {}),
    });
  }
  if (generated.finishReason === "length") {
    // A call cut off at max_tokens would be cut off again on a repair turn.
    return run.fail({
      code: "invalid_tool_call",
      message:
        "The model's reply was cut off at its token limit (max_tokens) before the tool call was complete; nothing ran.",
    });
  }
  const problem = callProblem(parsed, runtime, schemas);
  if (problem) {
    const repair = !run.repaired && schemas.length > 0;
    run.refused.push(await refusedCall(parsed, problem, modelTurn, repair, setup.receipt.includeText));
    if (!repair) return run.fail(problem);
    run.repaired = true;
    turn.onEvent?.({ type: "repair", code: problem.code, message: problem.message });
    run.current.push(
      { role: "assistant", content: raw },
      {
        role: "user",
        content: renderRepair(
          problem.code,
          problem.message,
          schemas.map((s) => s.name),
        ),
      },
    );
    return false;
  }
  if (parsed.kind !== "call") return true; // unreachable: narrowed by callProblem
  return executeCall(setup, run, parsed, raw, turn);
}

/** Runs a checked call through the runtime's pipeline; true when the run ends (failure, return_direct). */
async function executeCall(
  setup: LoopSetup,
  run: RunState,
  parsed: Call,
  raw: string,
  turn: ChatTurnOptions,
): Promise<boolean> {
  const { runtime, reports } = setup;
  const callId = `call_${randomHex(12)}`;
  turn.onEvent?.({ type: "tool_call", call_id: callId, tool_name: parsed.toolName, arguments: parsed.args });
  const execution = await runtime.execute(
    { id: callId, name: parsed.toolName, args: parsed.args },
    { signal: turn.signal, meta: { runId: run.id } },
  );
  const receipt = await callReceipt(runtime, execution, parsed.args, reports.get(callId), setup.receipt.includeText);
  run.calls.push(receipt);
  run.ran.push({ tool_name: parsed.toolName, arguments: parsed.args });
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
    run.pending = setup.tickets.get(callId);
    return run.fail(execution.error ?? { code: "runner_crashed", message: ERRORS.runner_crashed });
  }
  if (runtime.get(parsed.toolName)!.returnDirect) {
    run.outcome = "return_direct";
    run.result = execution.result;
    run.answer = JSON.stringify(execution.result);
    return true;
  }
  run.current.push(
    { role: "assistant", content: raw },
    { role: "tool", content: renderToolResult(parsed.toolName, execution.content ?? execution.result) },
  );
  return false;
}

/** The checks before any execution (docs/contract.md §4 step 4): shape, name, arguments. */
function callProblem(
  parsed: Exclude<ParsedOutput, { kind: "answer" | "oversized" }>,
  runtime: ToolRuntime,
  schemas: readonly ToolSchema[],
): ErrorJson | null {
  if (parsed.kind === "invalid")
    return { code: "invalid_tool_call", message: `${ERRORS.invalid_tool_call} Problem: ${parsed.reason}.` };
  const schema = schemas.find((s) => s.name === parsed.toolName);
  if (!runtime.get(parsed.toolName) || !schema) {
    const names = schemas.map((s) => s.name);
    return {
      code: "unknown_tool",
      message: `No tool named "${parsed.toolName}" is available.${didYouMean(parsed.toolName, names)} The tools are: ${names.join(", ") || "none"}.`,
      tool: parsed.toolName,
    };
  }
  const bad = argsProblem(schema.parameters, parsed.args);
  return bad
    ? {
        code: "invalid_tool_args",
        message: `Arguments for "${schema.name}" do not match its schema: ${bad.detail}.`,
        tool: schema.name,
      }
    : null;
}

/** The run's receipt (appended when the session has a store) and what the caller gets. */
async function finishRun(
  setup: LoopSetup,
  run: RunState,
  info: EngineInfo,
  extras: RunReceiptExtras,
): Promise<ChatRun> {
  const { outcome, answer, result, error, pending } = run;
  const truncated = outcome === "answered" && run.finishReason === "length";
  const receipt = await appendReceipt(setup.store, await receiptBody(setup.receipt, run, info, extras));
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
