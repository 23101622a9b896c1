// How a session's fixed conversation start — its system message — reaches the engine, once, in
// its first run (loop.ts): a restored imprint's prefix (imprint-restore.ts: its saved state, the
// warm cache, or text); else the tool contract through the saved starts the engine's caller
// attached (Engine.startStates: `edge chat --model` keeps a state per model file, runtime, context
// size and contract); else nothing, and the first prompt evaluates it. Receipts say
// which: imprint_restore and imprint_prefix, or contract_prefix.
import type { ChatUsage, Engine, StartPrimed } from "../engines/engine.ts";
import type { PrefixStartReceipt, ReceiptBody } from "../receipts/types.ts";
import { restoreImprintPrefix, type ImprintRestore } from "./imprint-restore.ts";
import type { ImprintBinding } from "./types.ts";

export type SessionStart = { imprint: ImprintRestore } | { contract: PrefixStartReceipt } | { plain: true };

export async function startSession(
  engine: Engine,
  system: string,
  imprint: ImprintBinding | undefined,
): Promise<SessionStart> {
  if (imprint) return { imprint: await restoreImprintPrefix(engine, system, imprint.restoreState) };
  if (engine.startStates) return { contract: contractPrefix(await engine.startStates.prime(system)) };
  return { plain: true };
}

function contractPrefix(p: StartPrimed): PrefixStartReceipt {
  return {
    prefix_cache: p.via,
    ...(p.via !== "none" ? { prefix_tokens: p.tokens, prefix_tokens_evaluated: p.evaluated } : {}),
    ...(p.fallback ? { state_fallback: p.fallback } : {}),
    ...(p.saveFailed ? { state_save_failed: p.saveFailed } : {}),
  };
}

/** The receipt fields of one run: how its session's start reached the engine, with the run's first generation's counts. */
export function startReceiptFields(
  start: SessionStart | undefined,
  first: ChatUsage | undefined,
): Pick<ReceiptBody, "imprint_restore" | "imprint_prefix" | "contract_prefix"> {
  if (!start || "plain" in start) return {};
  if ("contract" in start) return { contract_prefix: withFirstUsage(start.contract, first) };
  return { imprint_restore: start.imprint.mode, imprint_prefix: withFirstUsage(start.imprint.detail, first) };
}

function withFirstUsage(detail: PrefixStartReceipt, first: ChatUsage | undefined): PrefixStartReceipt {
  return {
    ...detail,
    ...(first?.promptTokens !== undefined ? { prompt_tokens: first.promptTokens } : {}),
    ...(first?.promptTokensEvaluated !== undefined ? { prompt_tokens_evaluated: first.promptTokensEvaluated } : {}),
  };
}
