// Stages 5–6: post-execute hooks (accept / replace / block) and the tool's finalizeContent.
// Post hooks see a frozen snapshot of the current result; the only way to change it is to
// return "replace". A block stops the chain: later hooks (e.g. spill) never see that result.
import { EdgeError } from "../contract/errors.ts";
import { raceAbort, SignalAborted } from "./abort.ts";
import { errorFrom, fromAbortReason, fromBodyError, settledError, type Settled } from "./outcome.ts";
import { snapshot } from "./snapshot.ts";
import type { HookView, PostDecision, PostExecuteHook, StageRecord, ToolContext } from "./types.ts";

export interface ResultInput {
  view: HookView;
  signal: AbortSignal;
  post: readonly PostExecuteHook[];
  trace: StageRecord[];
  context: Omit<ToolContext, "signal">;
}

export async function runResultStages(input: ResultInput, bodyResult: unknown): Promise<Settled> {
  const { view, signal, trace } = input;
  const tool = view.tool;
  let result = bodyResult;

  for (const [index, hook] of input.post.entries()) {
    let decision: PostDecision;
    try {
      decision = await raceAbort(
        Promise.resolve().then(() => hook({ ...view, result: snapshot(result), signal })),
        signal,
      );
    } catch (err) {
      if (err instanceof SignalAborted) return fromAbortReason(err.reason, tool.name);
      trace.push({ stage: "post-execute", hook: index, outcome: "raised" });
      return { status: "failed", error: errorFrom(err, "tool_hook_failed", tool.name) };
    }
    switch (decision?.action) {
      case "accept":
        trace.push({ stage: "post-execute", hook: index, outcome: "accept" });
        break;
      case "replace":
        result = decision.result;
        trace.push({ stage: "post-execute", hook: index, outcome: "replace" });
        break;
      case "block":
        trace.push({ stage: "post-execute", hook: index, outcome: "block", reason: decision.reason });
        return settledError("blocked", decision.code ?? "tool_blocked", tool.name, { reason: decision.reason });
      default: {
        trace.push({ stage: "post-execute", hook: index, outcome: "invalid" });
        const err = new EdgeError(
          "tool_hook_failed",
          {},
          "A post-execute hook returned no accept/replace/block decision.",
        );
        return { status: "failed", error: errorFrom(err, "tool_hook_failed", tool.name) };
      }
    }
  }

  if (!tool.finalizeContent) {
    trace.push({ stage: "finalize", outcome: "identity" });
    return signal.aborted ? fromAbortReason(signal.reason, tool.name) : { status: "ok", result, content: result };
  }
  const ctx: ToolContext = { ...input.context, signal };
  const finalize = tool.finalizeContent.bind(tool);
  try {
    const content = await raceAbort(
      Promise.resolve().then(() => finalize(result as never, ctx)),
      signal,
    );
    trace.push({ stage: "finalize", outcome: "ok" });
    return { status: "ok", result, content };
  } catch (err) {
    if (err instanceof SignalAborted) return fromAbortReason(err.reason, tool.name);
    trace.push({ stage: "finalize", outcome: "raised" });
    return fromBodyError(err, tool.name);
  }
}
