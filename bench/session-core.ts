// Shared by both halves of bench/session.bench.ts (Node, and the Chromium page
// e2e/pages/session-bench.ts): what one session does, turn by turn, through LlamaCppEngine with the
// tool contract of public/examples/tools.py as the system message (exactly what the chat loop
// sends), and how an entry's numbers and goals are computed from its samples.
//
// A session, as a person meets it: the model loads; the first turn (the contract's prefill, then a
// free answer); the second turn (only the new tokens); a new conversation in the same tab (the
// contract is still in llama.cpp's prompt cache); decode samples free and guided (the tool-call
// grammar of the active tools: JSON schema → GBNF over the whole vocabulary); then a reload, the
// model loaded again from the device, and the first turn of the returning visitor.
import type { ChatMessage, Engine, ResponseFormat } from "../src/engines/engine.ts";
import { percentile } from "./loop-core.ts";

export const QUESTIONS = ["Quote the fee for 250 on the pro tier.", "And for 1,000 on basic?", "Where is order 1234?", "What can you do?"] as const;

export interface SessionPlan {
  /** The tool contract: the system message of every conversation. */
  system: string;
  /** The guided format the loop uses for a required call (toolCallResponseFormat of the active tools). */
  guided: ResponseFormat;
  /** Tokens per decode sample. */
  tokens: number;
  /** Decode samples per kind (free, guided), interleaved. */
  samples: number;
  /** Set (with the reason) when the returning visitor's first turn is not run: only the reload and
   *  the model's load are measured (bench:session --quick in Chromium, where that turn repeats the
   *  first turn's full prefill: docs/engines.md, "A returning visitor"). */
  skipReturningTurn?: string;
}

/** One generation's timings, from the engine's usage. */
export interface Turn {
  ttftMs: number;
  promptTokens: number;
  evaluated: number;
  completionTokens: number;
  /** Decode tokens/s after the first token (undefined with fewer than 2 tokens). */
  decodeTokS?: number;
  text: string;
}

export interface SessionSamples {
  threads: number;
  loadMs: number;
  first: Turn;
  second: Turn;
  newConversation: Turn;
  free: Turn[];
  guided: Turn[];
}

export async function turn(engine: Engine, messages: ChatMessage[], maxTokens: number, responseFormat?: ResponseFormat): Promise<Turn> {
  const t = performance.now();
  let first: number | undefined;
  const r = await engine.chat({ messages, maxTokens, temperature: 0, ...(responseFormat ? { responseFormat } : {}), onToken: () => (first ??= performance.now()) });
  const u = r.usage ?? {};
  return {
    ttftMs: u.timeToFirstTokenMs ?? (first ?? performance.now()) - t,
    promptTokens: u.promptTokens ?? 0,
    evaluated: u.promptTokensEvaluated ?? 0,
    completionTokens: u.completionTokens ?? 0,
    ...(u.decodeTokensPerS !== undefined ? { decodeTokS: u.decodeTokensPerS } : {}),
    text: r.text,
  };
}

/** Everything of a session before the reload, on an engine that was just loaded. */
export async function sessionTurns(engine: Engine, plan: SessionPlan, loadMs: number): Promise<SessionSamples> {
  const sys: ChatMessage = { role: "system", content: plan.system };
  const q1: ChatMessage[] = [sys, { role: "user", content: QUESTIONS[0] }];
  const first = await turn(engine, q1, plan.tokens);
  // The reply as the model wrote it, so turn 2 extends what the cache holds.
  const second = await turn(engine, [...q1, { role: "assistant", content: first.text }, { role: "user", content: QUESTIONS[1] }], plan.tokens);
  const newConversation = await turn(engine, [sys, { role: "user", content: QUESTIONS[2] }], plan.tokens);
  const free: Turn[] = [];
  const guided: Turn[] = [];
  for (let i = 0; i < plan.samples; i++) {
    // New conversations that share the contract: each evaluates only its question; alternate the
    // order so machine noise hits both kinds alike.
    const ask = (k: string) => [sys, { role: "user" as const, content: `${QUESTIONS[3]} (${k} ${i})` }];
    const f = () => turn(engine, ask("free"), plan.tokens).then((s) => free.push(s));
    const g = () => turn(engine, ask("guided"), plan.tokens, plan.guided).then((s) => guided.push(s));
    if (i % 2) await g().then(f);
    else await f().then(g);
  }
  return { threads: engine.info().threads ?? 0, loadMs, first, second, newConversation, free, guided };
}

/** A returning first turn that was not run, and why. */
export interface NotMeasured {
  notMeasured: string;
}

/** The returning visitor's first turn, on a freshly loaded engine (or why it was not run). */
export async function returningTurn(engine: Engine, plan: SessionPlan): Promise<Turn | NotMeasured> {
  if (plan.skipReturningTurn) return { notMeasured: plan.skipReturningTurn };
  return turn(engine, [{ role: "system", content: plan.system }, { role: "user", content: QUESTIONS[0] }], plan.tokens);
}

export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

const median = (xs: number[]): number => (xs.length ? percentile(xs, 50) : NaN);
const decodeOf = (turns: Turn[]): number => median(turns.flatMap((t) => (t.decodeTokS !== undefined && t.completionTokens >= 4 ? [t.decodeTokS] : [])));

export const GOALS = { browser_decode_vs_native: 0.7, returning_ttft_ms: 2000, guided_vs_free: 0.9 } as const;

export interface NativeBaseline {
  threads: number;
  decodeTokS: number;
  firstTurnTtftMs: number;
}

export interface EntryContext {
  env: "node" | "chromium";
  modelShape: string;
  model: Record<string, unknown>;
  runtime: string;
  native: NativeBaseline;
  returning: Turn | NotMeasured;
  /** Why a returning first turn re-evaluates the contract in this environment. */
  returningPath: string;
  extra?: Record<string, unknown>;
}

const goal = (met: boolean, reason: string): { met: boolean; reason?: string } => (met ? { met } : { met, reason });

function returningFields(c: EntryContext): Record<string, unknown> {
  const r = c.returning;
  if ("notMeasured" in r) return { returning_ttft_ms: null, returning_not_measured: r.notMeasured, returning_prefix: c.returningPath };
  return { returning_ttft_ms: Math.round(r.ttftMs), returning_evaluated: r.evaluated, returning_prefix: c.returningPath };
}

function returningGoal(c: EntryContext): { met: boolean | null; reason?: string } {
  const r = c.returning;
  if ("notMeasured" in r) return { met: null, reason: `not measured: ${r.notMeasured}` };
  return goal(r.ttftMs <= GOALS.returning_ttft_ms, `the returning first turn took ${Math.round(r.ttftMs)} ms: ${c.returningPath}, ${r.evaluated} of ${r.promptTokens} prompt tokens evaluated (goal ≤ ${GOALS.returning_ttft_ms} ms)`);
}

/** One entry of the JSON array: the numbers, the ratios against native, and each goal. */
export function sessionEntry(s: SessionSamples, c: EntryContext): Record<string, unknown> {
  const free = decodeOf(s.free);
  const guided = decodeOf(s.guided);
  const vsNative = free / c.native.decodeTokS;
  const guidedVsFree = guided / free;
  const decodeGoal = c.env === "chromium" ? GOALS.browser_decode_vs_native : undefined;
  return {
    env: c.env,
    model_shape: c.modelShape,
    ...c.model,
    runtime: c.runtime,
    threads: s.threads,
    load_ms: Math.round(s.loadMs),
    contract_prompt_tokens: s.first.promptTokens,
    first_turn_ttft_ms: Math.round(s.first.ttftMs),
    first_turn_prefill_tok_s: round((s.first.evaluated / s.first.ttftMs) * 1000),
    second_turn_ttft_ms: Math.round(s.second.ttftMs),
    second_turn_evaluated: s.second.evaluated,
    new_conversation_ttft_ms: Math.round(s.newConversation.ttftMs),
    new_conversation_evaluated: s.newConversation.evaluated,
    ...returningFields(c),
    decode_tok_s_free: round(free),
    decode_tok_s_guided: round(guided),
    decode_samples: { free: s.free.map((t) => round(t.decodeTokS ?? NaN)), guided: s.guided.map((t) => round(t.decodeTokS ?? NaN)) },
    native_threads: c.native.threads,
    native_decode_tok_s: round(c.native.decodeTokS),
    native_first_turn_ttft_ms: Math.round(c.native.firstTurnTtftMs),
    decode_vs_native: round(vsNative),
    guided_vs_free: round(guidedVsFree),
    ...c.extra,
    goals: {
      ...(decodeGoal !== undefined
        ? { decode_vs_native: goal(vsNative >= decodeGoal, `decode ${round(free)} tok/s is ${round(vsNative)}× native llama.cpp's ${round(c.native.decodeTokS)} tok/s at ${c.native.threads} thread(s) (goal ≥ ${decodeGoal}×)`) }
        : {}),
      returning_ttft: returningGoal(c),
      guided_vs_free: goal(guidedVsFree >= GOALS.guided_vs_free, `guided decode ${round(guided)} tok/s is ${round(guidedVsFree)}× free decode ${round(free)} tok/s (goal ≥ ${GOALS.guided_vs_free}×)`),
    },
  };
}
