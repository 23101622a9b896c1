// Stages 3–4: around-dispatch hooks choose the body's AbortSignal, then the body runs, raced
// against that signal so a body that ignores it still ends the call on time.
import { EdgeError } from "../contract/errors.ts";
import { linkSignals, raceAbort, SignalAborted } from "./abort.ts";
import { errorFrom, fromAbortReason, fromBodyError, type Settled } from "./outcome.ts";
import type { AroundDispatchHook, DispatchReplacement, HookView, StageRecord, ToolContext } from "./types.ts";

export interface DispatchInput {
  view: HookView;
  /** The caller's signal. */
  signal: AbortSignal;
  around: readonly AroundDispatchHook[];
  trace: StageRecord[];
  context: Omit<ToolContext, "signal">;
}

export type DispatchResult = { settled: Settled } | { result: unknown };

export async function runDispatch(input: DispatchInput): Promise<DispatchResult> {
  const { view, trace } = input;
  const releases: (() => void)[] = [];
  try {
    let signal = input.signal;
    for (const [index, hook] of input.around.entries()) {
      let replacement: DispatchReplacement | void;
      try {
        replacement = await hook({ ...view, signal });
      } catch (err) {
        trace.push({ stage: "around-dispatch", hook: index, outcome: "raised" });
        return { settled: { status: "failed", error: errorFrom(err, "tool_hook_failed", view.tool.name) } };
      }
      if (replacement === undefined) {
        trace.push({ stage: "around-dispatch", hook: index, outcome: "kept-signal" });
        continue;
      }
      if (!(replacement?.signal instanceof AbortSignal)) {
        trace.push({ stage: "around-dispatch", hook: index, outcome: "invalid" });
        const err = new EdgeError(
          "tool_hook_failed",
          {},
          "An around-dispatch hook returned something other than { signal }. Fix the hook to return { signal }.",
        );
        return { settled: { status: "failed", error: errorFrom(err, "tool_hook_failed", view.tool.name) } };
      }
      if (replacement.release) releases.push(replacement.release);
      // The replacement is linked with the caller's signal: a hook can add reasons to stop
      // (a timeout) but can never detach the body from the caller's cancel.
      const linked = linkSignals([input.signal, replacement.signal]);
      releases.push(linked.release);
      signal = linked.signal;
      trace.push({ stage: "around-dispatch", hook: index, outcome: "replaced-signal" });
    }
    return await runBody(input, signal);
  } finally {
    for (const release of releases.reverse()) {
      try {
        release();
      } catch {
        // Cleanup failure (e.g. a timer already gone) must not change a settled outcome.
      }
    }
  }
}

async function runBody(input: DispatchInput, signal: AbortSignal): Promise<DispatchResult> {
  const { view, trace } = input;
  const tool = view.tool;
  if (signal.aborted) {
    trace.push({ stage: "body", outcome: "not-started" });
    return { settled: fromAbortReason(signal.reason, tool.name) };
  }
  const ctx: ToolContext = { ...input.context, signal };
  // `never`: the registry holds tools of any argument type; the arguments were validated
  // against this tool's own parameters schema before the pipeline started.
  const work = Promise.resolve().then(() => tool.execute(view.call.args as never, ctx));
  try {
    const result = await raceAbort(work, signal);
    trace.push({ stage: "body", outcome: "ok" });
    return { result };
  } catch (err) {
    if (err instanceof SignalAborted) {
      trace.push({ stage: "body", outcome: "abandoned" });
      return { settled: fromAbortReason(err.reason, tool.name) };
    }
    // A body that honours the signal throws its own AbortError; the signal's reason says why.
    if (signal.aborted) {
      trace.push({ stage: "body", outcome: "abandoned" });
      return { settled: fromAbortReason(signal.reason, tool.name) };
    }
    trace.push({ stage: "body", outcome: "raised" });
    return { settled: fromBodyError(err, tool.name) };
  }
}
