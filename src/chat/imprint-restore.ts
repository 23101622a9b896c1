// How a restored imprint's prefix reaches the model, once per session (in its first run, after the
// gate passed at creation):
//   1. its saved model state, when the binding can restore one (Node, llama.cpp: the state file
//      beside the record, checked against model, runtime, context size and tokens first);
//   2. else the engine's own prompt cache across conversations (Engine.warmPrefix: the prefix is
//      evaluated once per loaded model; later sessions find it warm);
//   3. else nothing: the prefix is sent as the system message and evaluated with the first prompt.
// The receipt says which (imprint_restore, imprint_prefix: session-start.ts), and why a saved state was not used.
import type { ErrorCode } from "../contract/errors.ts";
import type { Engine } from "../engines/engine.ts";
import type { PrefixStartReceipt } from "../receipts/types.ts";

/** What restoring a saved state did: loaded (its token count), or why not (a fallback, never a refusal). */
export type StateRestore = { loaded: true; tokens: number } | { loaded: false; code: ErrorCode; reason: string };

/** Loads an imprint's saved state into the engine for a chat starting with `system`. */
export type StateRestorer = (engine: Engine, system: string) => Promise<StateRestore>;

export interface ImprintRestore {
  mode: "state" | "prefix";
  detail: PrefixStartReceipt;
}

export async function restoreImprintPrefix(
  engine: Engine,
  system: string,
  restoreState?: StateRestorer,
): Promise<ImprintRestore> {
  let fallback: PrefixStartReceipt["state_fallback"];
  if (restoreState) {
    const r = await restoreState(engine, system);
    if (r.loaded)
      return {
        mode: "state",
        detail: { prefix_cache: "state_file", prefix_tokens: r.tokens, prefix_tokens_evaluated: 0 },
      };
    fallback = { code: r.code, reason: r.reason };
  }
  const why = fallback ? { state_fallback: fallback } : {};
  if (engine.warmPrefix) {
    const warm = await engine.warmPrefix([{ role: "system", content: system }]);
    return {
      mode: "prefix",
      detail: { prefix_cache: "engine", prefix_tokens: warm.tokens, prefix_tokens_evaluated: warm.evaluated, ...why },
    };
  }
  return { mode: "prefix", detail: { prefix_cache: "none", ...why } };
}
