// The two weighed signals of a checked turn (check-calibration.ts), read from the model's
// next-token probabilities (Engine.scoreChoices). Each is undefined when the engine cannot tell.
import { EdgeError } from "../contract/errors.ts";
import type { ChatMessage, ChoiceScores, Engine } from "../engines/engine.ts";

/** How a reply that is a call starts (docs/contract.md §4 step 3: one JSON object, or one ```json fence). */
export const CALL_START: readonly string[] = ['{"', "{", ' {"', " {", "```", " ```"];
/** The check's two answers, as the model may spell them. */
export const YES: readonly string[] = ["yes", "Yes", " yes", " Yes"];
export const NO: readonly string[] = ["no", "No", " no", " No"];

const round = (x: number): number => Math.round(x * 1000) / 1000;

async function scores(
  engine: Engine,
  messages: ChatMessage[],
  choices: readonly (readonly string[])[],
  signal: AbortSignal | undefined,
): Promise<ChoiceScores | undefined> {
  if (!engine.scoreChoices) return undefined;
  try {
    return await engine.scoreChoices({ messages, choices, ...(signal ? { signal } : {}) });
  } catch (e) {
    // A vocabulary without a one-token spelling of a choice: the turn generates instead.
    if (e instanceof EdgeError && e.code === "response_format_unsupported") return undefined;
    throw e;
  }
}

/**
 * The log-probability that the model's free reply to `messages` starts a call. A start the engine
 * did not see among its top tokens (the browser's 200) is below its floor: the floor itself when
 * that is at or below `threshold` (the answer is known, and a receipt records the bound, a finite
 * number), undefined when it is above.
 */
export async function callStartScore(
  engine: Engine,
  messages: ChatMessage[],
  threshold: number,
  signal: AbortSignal | undefined,
): Promise<number | undefined> {
  const s = await scores(engine, messages, [CALL_START], signal);
  if (!s) return undefined;
  const p = s.logProbs[0]!;
  if (p === -Infinity) return s.floor <= threshold ? round(s.floor) : undefined;
  return Number.isNaN(p) ? undefined : round(p);
}

/**
 * How much the person's request raises the model's log-odds of "yes" to the check, against the
 * same check quoting an empty request (""): what the proposed call draws from the model whatever
 * is asked is taken out. `asking(request)` is the check's conversation quoting `request`.
 */
export async function checkScore(
  engine: Engine,
  prompt: string,
  asking: (request: string) => ChatMessage[],
  signal: AbortSignal | undefined,
): Promise<number | undefined> {
  const logOdds = async (request: string): Promise<number | undefined> => {
    const s = await scores(engine, asking(request), [YES, NO], signal);
    return s ? s.logProbs[0]! - s.logProbs[1]! : undefined;
  };
  const withRequest = await logOdds(prompt);
  if (withRequest === undefined || !Number.isFinite(withRequest)) return undefined;
  const empty = await logOdds("");
  if (empty === undefined || !Number.isFinite(empty)) return undefined;
  return round(withRequest - empty);
}
