// Stages 1–2: pre-execute hooks (with approval for "ask") and the monotonic guard.
// Every hook runs, in registration order, so each can observe and record the call; but the
// Verdict only moves towards deny, so a hook after a deny cannot reopen the gate.
import { EdgeError, type ErrorCode } from "../contract/errors.ts";
import { raceAbort, SignalAborted } from "./abort.ts";
import { fromAbortReason, settledError, type Settled } from "./outcome.ts";
import type { ApprovalDecision, ApprovalHandler, HookView, PreDecision, PreExecuteHook, StageRecord } from "./types.ts";
import { Verdict } from "./verdict.ts";

export interface GateInput {
  view: HookView;
  signal: AbortSignal;
  pre: readonly PreExecuteHook[];
  approval: ApprovalHandler | null;
  trace: StageRecord[];
}

/** Returns null when the call may proceed, else the settled denied/aborted outcome. */
export async function runGate(input: GateInput): Promise<Settled | null> {
  const { view, signal, trace } = input;
  const verdict = new Verdict();

  for (const [index, hook] of input.pre.entries()) {
    let decision: PreDecision;
    try {
      decision = await raceAbort(
        Promise.resolve().then(() => hook({ ...view, verdict: verdict.state, signal })),
        signal,
      );
    } catch (err) {
      if (err instanceof SignalAborted) return fromAbortReason(err.reason, view.tool.name);
      // A gate that cannot decide must not let the call through (fail-closed).
      verdict.deny(describe(err), hookCode(err));
      trace.push({ stage: "pre-execute", hook: index, outcome: "raised", reason: describe(err) });
      continue;
    }
    applyPre(verdict, decision);
    trace.push({ stage: "pre-execute", hook: index, outcome: decisionName(decision), ...reasonOf(decision) });
  }

  if (verdict.state === "ask") {
    const outcome = await approve(input, verdict);
    if (outcome) return outcome;
  }

  // Stage 2. The guard reads the verdict once; nothing before the body can change it after this.
  trace.push({ stage: "guard", outcome: verdict.state });
  const denial = verdict.denial;
  if (denial) return settledError("denied", denial.code, view.tool.name, { reason: denial.reason });
  if (signal.aborted) return fromAbortReason(signal.reason, view.tool.name);
  return null;
}

async function approve(input: GateInput, verdict: Verdict): Promise<Settled | null> {
  const { view, signal, trace, approval } = input;
  if (!approval) {
    // Nobody can say yes, so the answer is no (fail-closed).
    verdict.deny("approval required but no approval handler is set", "tool_denied");
    trace.push({ stage: "approval", outcome: "deny", reason: "no approval handler" });
    return null;
  }
  let decision: ApprovalDecision;
  try {
    decision = await raceAbort(
      Promise.resolve().then(() => approval({ ...view, reasons: verdict.askReasons, signal })),
      signal,
    );
  } catch (err) {
    if (err instanceof SignalAborted) return fromAbortReason(err.reason, view.tool.name);
    verdict.deny(describe(err), hookCode(err));
    trace.push({ stage: "approval", outcome: "raised", reason: describe(err) });
    return null;
  }
  if (decision?.decision === "allow") verdict.grant();
  else if (decision?.decision === "deny") verdict.deny(decision.reason, decision.code ?? "tool_denied");
  else verdict.deny("approval handler returned no decision", "tool_hook_failed");
  trace.push({ stage: "approval", outcome: decisionName(decision), ...reasonOf(decision) });
  return null;
}

function applyPre(verdict: Verdict, decision: PreDecision): void {
  switch (decision?.decision) {
    case "allow":
      return; // allow never calls into the verdict: that is what makes the guard monotonic.
    case "deny":
      return verdict.deny(decision.reason, decision.code ?? "tool_denied");
    case "ask":
      return verdict.ask(decision.reason);
    default:
      return verdict.deny("pre-execute hook returned no decision", "tool_hook_failed");
  }
}

function decisionName(decision: PreDecision | ApprovalDecision | undefined): string {
  const name = (decision as { decision?: unknown } | undefined)?.decision;
  return name === "allow" || name === "deny" || name === "ask" ? name : "invalid";
}

function reasonOf(decision: PreDecision | ApprovalDecision | undefined): { reason?: string } {
  const reason = (decision as { reason?: unknown } | undefined)?.reason;
  return typeof reason === "string" ? { reason } : {};
}

function hookCode(err: unknown): ErrorCode {
  return err instanceof EdgeError ? err.code : "tool_hook_failed";
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
