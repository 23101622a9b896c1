// One call through the seven stages: gate (pre-execute + approval, guard) → dispatch
// (around-dispatch, body) → result (post-execute, finalize) → emit. Never throws for anything
// a tool or hook does; every path ends in one coded ToolExecution that observers then see.
import { argsProblem } from "../contract/ajv.ts";
import { errorJson } from "../contract/errors.ts";
import { errorFrom, settledError, type Settled } from "./outcome.ts";
import { snapshot } from "./snapshot.ts";
import { runDispatch } from "./stage-dispatch.ts";
import { runGate } from "./stage-gate.ts";
import { runResultStages } from "./stage-result.ts";
import type {
  AnyToolDefinition,
  ApprovalHandler,
  AroundDispatchHook,
  ExecuteContext,
  HookView,
  PostExecuteHook,
  PreExecuteHook,
  ResultObserver,
  StageRecord,
  ToolCall,
  ToolContext,
  ToolExecution,
} from "./types.ts";

/** The hooks in force for one call, captured when it starts. */
export interface PipelineHooks {
  pre: readonly PreExecuteHook[];
  approval: ApprovalHandler | null;
  around: readonly AroundDispatchHook[];
  post: readonly PostExecuteHook[];
  observers: readonly ResultObserver[];
  reportError: (error: unknown, where: "observer") => void;
}

// A signal that never fires, for callers that pass none.
const NEVER = new AbortController().signal;

export async function runPipeline(
  tool: AnyToolDefinition | undefined,
  call: ToolCall,
  ctx: ExecuteContext,
  hooks: PipelineHooks,
): Promise<ToolExecution> {
  const started = performance.now();
  const trace: StageRecord[] = [];
  let settled: Settled;
  try {
    settled = await stages(tool, call, ctx, hooks, trace);
  } catch (err) {
    // Only a bug in the runtime itself lands here; still a coded, fail-closed outcome.
    settled = { status: "failed", error: errorFrom(err, "tool_hook_failed", call.name) };
  }
  trace.push({ stage: "emit", outcome: String(hooks.observers.length) });
  const execution: ToolExecution = {
    id: call.id,
    name: call.name,
    status: settled.status,
    ...(settled.status === "ok" ? { result: settled.result, content: settled.content } : {}),
    ...(settled.error ? { error: settled.error } : {}),
    duration_ms: performance.now() - started,
    stages: trace,
  };
  emit(execution, hooks);
  return execution;
}

async function stages(
  tool: AnyToolDefinition | undefined,
  call: ToolCall,
  ctx: ExecuteContext,
  hooks: PipelineHooks,
  trace: StageRecord[],
): Promise<Settled> {
  if (!tool) return { status: "failed", error: errorJson("unknown_tool", { tool: call.name }) };
  // Built-ins are called through the runtime directly, so it checks arguments itself too
  // (the chat loop checks first to give the model its repair turn).
  const bad = argsProblem(tool.parameters, call.args);
  if (bad) return settledError("failed", "invalid_tool_args", tool.name, { reason: bad.detail });

  const signal = ctx.signal ?? NEVER;
  const meta = ctx.meta ?? {};
  // One frozen copy of the call for every stage, the body included: arguments are hashed for
  // receipts, so nobody may mutate them in place.
  const view: HookView = {
    call: snapshot(call),
    tool,
    meta,
    ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
  };
  const context: Omit<ToolContext, "signal"> = {
    callId: call.id,
    toolName: tool.name,
    meta,
    ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
  };
  if (signal.aborted) return settledError("aborted", "aborted", tool.name);

  const gate = await runGate({ view, signal, pre: hooks.pre, approval: hooks.approval, trace });
  if (gate) return gate;

  const dispatched = await runDispatch({ view, signal, around: hooks.around, trace, context });
  if ("settled" in dispatched) return dispatched.settled;

  return runResultStages({ view, signal, post: hooks.post, trace, context }, dispatched.result);
}

/** Stage 7: observers get their own deep-frozen copy; their errors are reported, never applied. */
function emit(execution: ToolExecution, hooks: PipelineHooks): void {
  for (const observer of hooks.observers) {
    try {
      const returned: unknown = observer(snapshot(execution));
      if (returned instanceof Promise) returned.catch((err: unknown) => hooks.reportError(err, "observer"));
    } catch (err) {
      hooks.reportError(err, "observer");
    }
  }
}
