// The arithmetic of Engine.scoreChoices, the same in every llama.cpp backend: a choice's score is
// the log of the summed probability of its spellings, each one token of the model's vocabulary.
import { EdgeError } from "../../contract/errors.ts";

/** log(Σ exp(x)) without overflow; -Infinity for no terms. */
export function logSumExp(xs: readonly number[]): number {
  const max = Math.max(...xs);
  if (!Number.isFinite(max)) return max === Infinity ? Infinity : -Infinity;
  return max + Math.log(xs.reduce((sum, x) => sum + Math.exp(x - max), 0));
}

/** Each choice's spellings that are one token (`tokenize` gives a spelling's tokens), deduplicated;
 *  a choice with none cannot be scored, and the engine refuses the request. */
export function choiceTokens<T>(
  choices: readonly (readonly string[])[],
  tokenize: (spelling: string) => readonly T[],
): { tokens: T[][]; unscorable: string[] } {
  const tokens = choices.map((spellings) => [
    ...new Set(spellings.map(tokenize).flatMap((ts) => (ts.length === 1 ? [ts[0]!] : []))),
  ]);
  const unscorable = choices.filter((_, i) => tokens[i]!.length === 0).map((c) => c.join("/"));
  return { tokens, unscorable };
}

/** A choice the model's vocabulary cannot spell in one token. */
export const unscorableError = (choices: readonly string[]): EdgeError =>
  EdgeError.withTableFix(
    "response_format_unsupported",
    { reason: "choices", choices },
    `This model has no one-token spelling of ${choices.join(", ")}, so those answers cannot be weighed.`,
  );
