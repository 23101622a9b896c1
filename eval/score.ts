// Scoring one eval case: what the model's next turn was (a call, an answer, or a broken call) against
// what the case expects (a call of one tool with some arguments, or no call). Three checks, and a
// case passes only when all three hold:
//   call  — a call was made exactly when one was expected (a broken attempt at a call counts as a call)
//   tool  — the expected tool (or, when none was expected, no call)
//   args  — the arguments equal the expected ones as canonical JSON (RFC 8785), after the tool's schema
//           defaults are filled in on both sides: {"amount": 250} and {"amount": 250, "tier": "basic"}
//           ask for the same thing when tier defaults to "basic".
import { withDefaults } from "../src/contract/defaults.ts";
import { canonicalJson } from "../src/contract/hash.ts";
import type { JsonObject } from "../src/contract/types.ts";

export type Category = "obvious" | "arguments" | "choice" | "no_tool" | "commit" | "after_result";
export const CATEGORIES: readonly Category[] = ["obvious", "arguments", "choice", "no_tool", "commit", "after_result"];

export interface Expectation {
  /** The tool the next turn must call, or null: it must answer without a call. */
  tool: string | null;
  arguments?: JsonObject;
  /** An answer due after a result: what it must state, from the result (case-insensitive). */
  mentions?: string[];
}

export type Outcome =
  | { kind: "call"; tool: string; arguments: JsonObject }
  | { kind: "answer"; text: string }
  /** Clearly an attempt at a call, but not a valid one (the loop would ask for a repair). */
  | { kind: "invalid"; reason: string; text: string };

export interface Score {
  call: boolean;
  tool: boolean;
  args: boolean;
  pass: boolean;
}

/** `parameters`: the expected tool's parameters schema (for its defaults). */
export function scoreCase(expect: Expectation, outcome: Outcome, parameters?: JsonObject): Score {
  const called = outcome.kind !== "answer";
  if (expect.tool === null) {
    const ok = !called;
    return { call: ok, tool: ok, args: ok, pass: ok };
  }
  const call = called;
  const tool = outcome.kind === "call" && outcome.tool === expect.tool;
  const args =
    tool &&
    outcome.kind === "call" &&
    canonicalJson(withDefaults(parameters, outcome.arguments)) ===
      canonicalJson(withDefaults(parameters, expect.arguments ?? {}));
  return { call, tool, args, pass: call && tool && args };
}

export interface Tally {
  n: number;
  pass: number;
  call: number;
  tool: number;
  args: number;
}

export const emptyTally = (): Tally => ({ n: 0, pass: 0, call: 0, tool: 0, args: 0 });

export function addScore(t: Tally, s: Score): void {
  t.n++;
  if (s.pass) t.pass++;
  if (s.call) t.call++;
  if (s.tool) t.tool++;
  if (s.args) t.args++;
}

/** Accuracy as a fraction with three decimals (0 for no cases). */
export const rate = (k: number, n: number): number => (n === 0 ? 0 : Math.round((k / n) * 1000) / 1000);

/** Letters and digits only, lower case: to tell an answer that repeats the request. */
const bare = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/**
 * What the person reads when the turn is an answer (apart from the pass, which is call or no call):
 *   prose    — sentences, not a call and not the request repeated: no `tool_name`, not bare JSON
 *              (`null`, `{…}`, `"…"`), no `tool(` of an active tool, not starting with the request
 *              (Qwen2.5-Coder wrote `({"tool_name": …` after a result, an "answer" the pass counts);
 *   grounded — for a case with `mentions`, prose that states each of them.
 */
export function scoreAnswer(
  text: string,
  turn: { prompt: string; toolNames: readonly string[]; mentions?: readonly string[] },
) {
  const t = text.trim();
  const prose =
    t !== "" &&
    !t.includes("tool_name") &&
    !isJson(t) &&
    !turn.toolNames.some((n) => new RegExp(`\\b${n}\\s*\\(`).test(t)) &&
    !bare(t).startsWith(bare(turn.prompt));
  const lower = t.toLowerCase();
  const { mentions } = turn;
  return { prose, ...(mentions ? { grounded: prose && mentions.every((m) => lower.includes(m.toLowerCase())) } : {}) };
}
export type AnswerScore = ReturnType<typeof scoreAnswer>;

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
