// Shared by both halves of bench/session.bench.ts (Node, and the Chromium page
// e2e/pages/session-bench.ts): what one session does, turn by turn, through LlamaCppEngine with the
// tool contract of public/examples/tools.py as the system message (exactly what the chat loop
// sends), and how an entry's numbers and goals are computed from its samples.
//
// A session, as a person meets it: the model loads; the first turn asked at once (cold: the
// contract's prefill, then a free answer); the second turn (only the new tokens); a new conversation
// in the same tab (the contract is still in llama.cpp's prompt cache); decode samples free and guided
// (the tool-call grammar of the active tools: JSON schema → GBNF over the whole vocabulary). Then
// two reloads, each loading the model again from the device: the returning visitor's first turn
// asked at once, and the first turn asked after the conversation start was warmed
// (Engine.warmPrefix with the system message alone: what the app does in the background as soon as
// a model is loaded and the tools are frozen).
import type { ChatMessage, Engine, ResponseFormat } from "../src/engines/engine.ts";
import { percentile } from "./loop-core.ts";

export const QUESTIONS = [
  "Quote the fee for 250 on the pro tier.",
  "And for 1,000 on basic?",
  "Where is order 1234?",
  "What can you do?",
] as const;

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

async function turn(
  engine: Engine,
  messages: ChatMessage[],
  maxTokens: number,
  responseFormat?: ResponseFormat,
): Promise<Turn> {
  const t = performance.now();
  let first: number | undefined;
  const r = await engine.chat({
    messages,
    maxTokens,
    temperature: 0,
    ...(responseFormat ? { responseFormat } : {}),
    onToken: () => (first ??= performance.now()),
  });
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
  const second = await turn(
    engine,
    [...q1, { role: "assistant", content: first.text }, { role: "user", content: QUESTIONS[1] }],
    plan.tokens,
  );
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

/** The first turn after the conversation start was warmed. */
export interface WarmStart {
  /** How long Engine.warmPrefix([system]) took (the app runs it in the background after a load). */
  warmPrefixMs: number;
  /** Tokens of the start it left in the prompt cache, and how many it evaluated for that. */
  tokens: number;
  evaluated: number;
  /** The first question, asked once the warm completed. */
  turn: Turn;
}

/** After a reload: the model loaded again from the device, then the first question — asked at once
 *  ("cold": the returning visitor's first turn) or once the conversation start was warmed ("warm"). */
export interface Reloaded {
  loadMs: number;
  returning?: Turn | NotMeasured;
  warm?: WarmStart | NotMeasured;
}

/** The first turn on a freshly loaded engine, asked at once or after a warm (see Reloaded). */
export async function afterReload(
  engine: Engine,
  plan: SessionPlan,
  start: "cold" | "warm",
  loadMs: number,
): Promise<Reloaded> {
  const sys: ChatMessage = { role: "system", content: plan.system };
  const q1: ChatMessage[] = [sys, { role: "user", content: QUESTIONS[0] }];
  if (start === "cold")
    return {
      loadMs,
      returning: plan.skipReturningTurn ? { notMeasured: plan.skipReturningTurn } : await turn(engine, q1, plan.tokens),
    };
  if (!engine.warmPrefix)
    return { loadMs, warm: { notMeasured: "this engine has no prompt cache to warm (Engine.warmPrefix)" } };
  const t = performance.now();
  const w = await engine.warmPrefix([sys]);
  const warmPrefixMs = performance.now() - t;
  return {
    loadMs,
    warm: { warmPrefixMs, tokens: w.tokens, evaluated: w.evaluated, turn: await turn(engine, q1, plan.tokens) },
  };
}

export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

const decodeOf = (turns: Turn[]): number =>
  median(turns.flatMap((t) => (t.decodeTokS !== undefined && t.completionTokens >= 4 ? [t.decodeTokS] : [])));

/** warm_/cold_first_turn_ttft_ms: the first-turn goals, for the example tools on the planned CPU default
 *  (DEFAULT_CPU_MODEL); every other subject reports its numbers beside them. */
const GOALS = {
  browser_decode_vs_native: 0.7,
  returning_ttft_ms: 2000,
  guided_vs_free: 0.9,
  warm_first_turn_ttft_ms: 2000,
  cold_first_turn_ttft_ms: 15_000,
} as const;
/** The model "Auto" is to load on a device without WebGPU: the first-turn goals are its. */
export const DEFAULT_CPU_MODEL = "smollm2-135m-instruct-q4_1";

/** node-llama-cpp's bare API on the same model and prompt at the same thread count (no Edge code). */
export interface NativeBaseline {
  threads: number;
  /** The first turn's prompt (contract + question) in tokens, all evaluated. */
  promptTokens: number;
  firstTurnTtftMs: number;
  decodeTokS: number;
  /** Decode under the same tool-call grammar the engines get (llama.cpp's grammar sampler). */
  decodeTokSGuided: number;
  /** 1-minute load average when it was measured. */
  loadAvg1m: number;
}

export type Env = "node" | "chromium" | "firefox" | "webkit";

export interface EntryContext {
  env: Env;
  /** What ran: a real model's id, a real shape, a random twin (bench/session.bench.ts). */
  subject: string;
  /** "real": trained weights; "random": a real-shape model or a random twin — speed, never quality. */
  weights: "real" | "random";
  model: Record<string, unknown>;
  runtime: string;
  native: NativeBaseline;
  /** The two reloads: the first turn asked at once, and after a warm. */
  returning: Reloaded;
  warm: Reloaded;
  /** Why a returning first turn re-evaluates the contract in this environment. */
  returningPath: string;
  /** 1-minute load average before and after the entry's session. */
  loadAvg1m: { start: number; end: number };
  extra?: Record<string, unknown>;
}

/** A goal, met or missed, with the value measured and the bound (`null`: not measured, and why). */
export interface Goal {
  met: boolean | null;
  measured: number | null;
  goal: string;
  reason?: string;
  /** Set where the goal is another subject's: this one's numbers are reported beside it. */
  reported_beside?: string;
}

const goal = (met: boolean, measured: number, bound: string, reason: string): Goal => ({
  met,
  measured: round(measured, 3),
  goal: bound,
  ...(met ? {} : { reason }),
});
const notMeasured = (bound: string, why: string): Goal => ({
  met: null,
  measured: null,
  goal: bound,
  reason: `not measured: ${why}`,
});

/** A time the person waits, against its bound (ms). */
function waitGoal(what: string, ms: number, bound: number, why: string): Goal {
  return goal(
    ms <= bound,
    Math.round(ms),
    `≤ ${bound} ms`,
    `${what} took ${Math.round(ms)} ms: ${why} (goal ≤ ${bound} ms)`,
  );
}

const median = (xs: number[]): number => (xs.length ? percentile(xs, 50) : NaN);

function returningFields(c: EntryContext): Record<string, unknown> {
  const r = c.returning.returning;
  if (!r || "notMeasured" in r)
    return {
      returning_ttft_ms: null,
      returning_not_measured: r?.notMeasured ?? "not run",
      returning_prefix: c.returningPath,
    };
  return {
    returning_ttft_ms: Math.round(r.ttftMs),
    returning_evaluated: r.evaluated,
    returning_prefix: c.returningPath,
  };
}

function warmFields(c: EntryContext): Record<string, unknown> {
  const w = c.warm.warm;
  if (!w || "notMeasured" in w)
    return { warm_prefix_ms: null, warm_first_turn_ttft_ms: null, warm_not_measured: w?.notMeasured ?? "not run" };
  return {
    warm_prefix_ms: Math.round(w.warmPrefixMs),
    warm_prefix_tokens: w.tokens,
    warm_prefix_evaluated: w.evaluated,
    warm_first_turn_ttft_ms: Math.round(w.turn.ttftMs),
    warm_first_turn_evaluated: w.turn.evaluated,
    warm_first_turn_prompt_tokens: w.turn.promptTokens,
  };
}

function returningGoal(c: EntryContext): Goal {
  const r = c.returning.returning;
  const bound = `≤ ${GOALS.returning_ttft_ms} ms`;
  if (!r || "notMeasured" in r) return notMeasured(bound, r?.notMeasured ?? "not run");
  return waitGoal(
    "the returning first turn",
    r.ttftMs,
    GOALS.returning_ttft_ms,
    `${c.returningPath}, ${r.evaluated} of ${r.promptTokens} prompt tokens evaluated`,
  );
}

/** The first-turn goals; on a subject other than the default CPU model, reported beside. */
function firstTurnGoals(s: SessionSamples, c: EntryContext): Record<string, Goal> {
  const w = c.warm.warm;
  const cold = waitGoal(
    "the first turn right after the load",
    s.first.ttftMs,
    GOALS.cold_first_turn_ttft_ms,
    `the contract and the question, ${s.first.evaluated} tokens, evaluated at ${round((s.first.evaluated / s.first.ttftMs) * 1000)} tok/s`,
  );
  const warm =
    !w || "notMeasured" in w
      ? notMeasured(`≤ ${GOALS.warm_first_turn_ttft_ms} ms`, w?.notMeasured ?? "not run")
      : waitGoal(
          "the first turn after the warm",
          w.turn.ttftMs,
          GOALS.warm_first_turn_ttft_ms,
          `${w.turn.evaluated} of ${w.turn.promptTokens} prompt tokens evaluated after the ${w.tokens}-token start was warmed`,
        );
  const beside =
    c.subject === DEFAULT_CPU_MODEL
      ? {}
      : { reported_beside: `the goal is set for ${DEFAULT_CPU_MODEL} (the planned CPU default)` };
  return { cold_first_turn_ttft: { ...cold, ...beside }, warm_first_turn_ttft: { ...warm, ...beside } };
}

/** The native anchor's numbers and Edge's ratios against it (speed ratios: 1 = as fast as native). */
function nativeFields(s: SessionSamples, c: EntryContext, free: number, guided: number): Record<string, unknown> {
  const n = c.native;
  const prefill = (s.first.evaluated / s.first.ttftMs) * 1000;
  const nativePrefill = (n.promptTokens / n.firstTurnTtftMs) * 1000;
  return {
    native_threads: n.threads,
    native_prompt_tokens: n.promptTokens,
    native_first_turn_ttft_ms: Math.round(n.firstTurnTtftMs),
    native_prefill_tok_s: round(nativePrefill),
    native_decode_tok_s: round(n.decodeTokS),
    native_decode_tok_s_guided: round(n.decodeTokSGuided),
    native_guided_vs_free: round(n.decodeTokSGuided / n.decodeTokS),
    native_load_avg_1m: n.loadAvg1m,
    first_turn_ttft_vs_native: round(n.firstTurnTtftMs / s.first.ttftMs, 3),
    prefill_vs_native: round(prefill / nativePrefill, 3),
    decode_vs_native: round(free / n.decodeTokS, 3),
    guided_decode_vs_native_guided: round(guided / n.decodeTokSGuided, 3),
  };
}

/** One entry of the JSON array: the numbers, the ratios against native, and each goal. */
export function sessionEntry(s: SessionSamples, c: EntryContext): Record<string, unknown> {
  const free = decodeOf(s.free);
  const guided = decodeOf(s.guided);
  const vsNative = free / c.native.decodeTokS;
  const guidedVsFree = guided / free;
  const decodeGoal = c.env === "node" ? undefined : GOALS.browser_decode_vs_native;
  // Both reloads load the model from the device's store (a browser's) or its file (Node): their mean.
  const storeLoads = [c.returning.loadMs, c.warm.loadMs];
  return {
    env: c.env,
    subject: c.subject,
    weights: c.weights,
    ...(c.weights === "random"
      ? {
          weights_note:
            "random weights: speed only, never quality; what is generated (length, grammar rejections) is not what a trained model generates",
        }
      : {}),
    ...c.model,
    runtime: c.runtime,
    threads: s.threads,
    load_avg_1m: c.loadAvg1m,
    first_load_ms: Math.round(s.loadMs),
    model_load_ms: Math.round(storeLoads.reduce((a, b) => a + b, 0) / storeLoads.length),
    model_load_ms_samples: storeLoads.map(Math.round),
    contract_prompt_tokens: s.first.promptTokens,
    cold_first_turn_ttft_ms: Math.round(s.first.ttftMs),
    cold_first_turn_prefill_tok_s: round((s.first.evaluated / s.first.ttftMs) * 1000),
    ...warmFields(c),
    second_turn_ttft_ms: Math.round(s.second.ttftMs),
    second_turn_evaluated: s.second.evaluated,
    new_conversation_ttft_ms: Math.round(s.newConversation.ttftMs),
    new_conversation_evaluated: s.newConversation.evaluated,
    ...returningFields(c),
    decode_tok_s_free: round(free),
    decode_tok_s_guided: round(guided),
    decode_samples: {
      free: s.free.map((t) => round(t.decodeTokS ?? NaN)),
      guided: s.guided.map((t) => round(t.decodeTokS ?? NaN)),
    },
    decode_sample_tokens: {
      free: s.free.map((t) => t.completionTokens),
      guided: s.guided.map((t) => t.completionTokens),
    },
    guided_vs_free: round(guidedVsFree),
    ...nativeFields(s, c, free, guided),
    ...c.extra,
    goals: {
      ...firstTurnGoals(s, c),
      ...(decodeGoal !== undefined
        ? {
            decode_vs_native: goal(
              vsNative >= decodeGoal,
              vsNative,
              `≥ ${decodeGoal}× native`,
              `decode ${round(free)} tok/s is ${round(vsNative, 3)}× native llama.cpp's ${round(c.native.decodeTokS)} tok/s at ${c.native.threads} thread(s)`,
            ),
          }
        : {}),
      returning_ttft: returningGoal(c),
      guided_vs_free: goal(
        guidedVsFree >= GOALS.guided_vs_free,
        guidedVsFree,
        `≥ ${GOALS.guided_vs_free}× free`,
        `guided decode ${round(guided)} tok/s is ${round(guidedVsFree)}× free decode ${round(free)} tok/s`,
      ),
    },
  };
}

/** What a thread count changes, per environment and subject measured at more than one: the numbers
 *  a person waits for at each count, and which count is better for each (lower times, faster decode;
 *  within 5 % is a tie). */
export function threadComparisons(entries: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const keys = new Set(entries.filter((e) => e.goals).map((e) => `${e.env}\u0000${e.subject}`));
  for (const key of keys) {
    const [env, subject] = key.split("\u0000");
    const mine = entries
      .filter((e) => e.goals && e.env === env && e.subject === subject)
      .sort((a, b) => (a.threads as number) - (b.threads as number));
    if (mine.length < 2) continue;
    const metrics = {
      cold_first_turn_ttft_ms: "lower",
      warm_prefix_ms: "lower",
      warm_first_turn_ttft_ms: "lower",
      returning_ttft_ms: "lower",
      model_load_ms: "lower",
      decode_tok_s_free: "higher",
      decode_tok_s_guided: "higher",
    } as const;
    const better: Record<string, number | "tie" | null> = {};
    for (const [m, dir] of Object.entries(metrics)) {
      const vals = mine.flatMap((e) =>
        typeof e[m] === "number" ? [{ threads: e.threads as number, v: e[m] as number }] : [],
      );
      if (vals.length < 2) {
        better[m] = null;
        continue;
      }
      const best = vals.reduce((a, b) => ((dir === "lower" ? b.v < a.v : b.v > a.v) ? b : a));
      const worst = vals.reduce((a, b) => ((dir === "lower" ? b.v > a.v : b.v < a.v) ? b : a));
      better[m] =
        Math.abs(best.v - worst.v) <= 0.05 * Math.max(Math.abs(best.v), Math.abs(worst.v)) ? "tie" : best.threads;
    }
    const wins = new Map<number, number>();
    for (const b of Object.values(better)) if (typeof b === "number") wins.set(b, (wins.get(b) ?? 0) + 1);
    const ranked = [...wins].sort((x, y) => y[1] - x[1]);
    out.push({
      comparison: "threads",
      env,
      subject,
      weights: mine[0]!.weights,
      by_threads: Object.fromEntries(
        mine.map((e) => [
          e.threads,
          Object.fromEntries([...Object.keys(metrics), "load_avg_1m"].map((m) => [m, e[m] ?? null])),
        ]),
      ),
      better,
      better_overall: !ranked.length || (ranked.length > 1 && ranked[0]![1] === ranked[1]![1]) ? "tie" : ranked[0]![0],
      verdict: Object.entries(better)
        .map(([m, b]) => `${m}: ${b === "tie" ? "a tie (within 5 %)" : b === null ? "not measured" : `${b} thread(s)`}`)
        .join("; "),
    });
  }
  return out;
}

/** One line per entry with the first-turn numbers and their goals, met or missed. */
export function firstTurnSummary(entries: readonly Record<string, unknown>[]): Record<string, unknown> {
  const rows = entries
    .filter((e) => e.goals)
    .map((e) => {
      const g = e.goals as Record<string, Goal>;
      const mark = (x: Goal | undefined) => (x?.met === true ? "met" : x?.met === false ? "missed" : "not measured");
      return {
        env: e.env,
        subject: e.subject,
        weights: e.weights,
        threads: e.threads,
        cold_first_turn_ttft_ms: e.cold_first_turn_ttft_ms,
        warm_prefix_ms: e.warm_prefix_ms,
        warm_first_turn_ttft_ms: e.warm_first_turn_ttft_ms,
        returning_ttft_ms: e.returning_ttft_ms,
        model_load_ms: e.model_load_ms,
        native_first_turn_ttft_ms: e.native_first_turn_ttft_ms,
        cold_goal: mark(g.cold_first_turn_ttft) + (g.cold_first_turn_ttft?.reported_beside ? " (reported beside)" : ""),
        warm_goal: mark(g.warm_first_turn_ttft) + (g.warm_first_turn_ttft?.reported_beside ? " (reported beside)" : ""),
        load_avg_1m: e.load_avg_1m,
      };
    });
  return {
    summary: "first_turn",
    default_cpu_model: DEFAULT_CPU_MODEL,
    goal_bounds: {
      warm_first_turn_ttft_ms: `≤ ${GOALS.warm_first_turn_ttft_ms}`,
      cold_first_turn_ttft_ms: `≤ ${GOALS.cold_first_turn_ttft_ms}`,
    },
    rows,
  };
}

/** Ratios within which a random-weight model is taken to measure what the real one does, at least;
 *  more when the run's own noise is larger (below). */
const SAME_WITHIN = 0.15;
/** Beyond this spread of the native anchors (machine load changed during the run) a comparison
 *  cannot tell a distortion from noise: it says so instead of answering. */
const UNDECIDABLE_NOISE = 0.5;

/** How much the same native measurement moved within the run (relative spread of its repeats): a
 *  difference below it is noise, not a distortion. */
export interface RunNoise {
  prefill: number;
  decode: number;
}

/** The relative spread (max/min − 1) of repeated measurements of one quantity. */
export const spread = (xs: readonly number[]): number => (xs.length > 1 ? Math.max(...xs) / Math.min(...xs) - 1 : 0);

interface RatioComparison {
  real: number;
  random: number;
  random_over_real: number;
  within: number;
  /** null: the run's noise is beyond UNDECIDABLE_NOISE. */
  same: boolean | null;
}

function compareRatio(
  real: Record<string, unknown>,
  random: Record<string, unknown>,
  key: string,
  within: number,
): RatioComparison {
  const a = real[key] as number;
  const b = random[key] as number;
  const q = round(b / a);
  return {
    real: a,
    random: b,
    random_over_real: q,
    within: round(within),
    same: within > UNDECIDABLE_NOISE ? null : Math.abs(q - 1) <= within,
  };
}

function weightsVerdict(vsNative: Record<string, RatioComparison>, guided: RatioComparison, kind: string): string {
  const rows = Object.entries(vsNative);
  const off = rows.filter(([, r]) => r.same === false);
  const open = rows.filter(([, r]) => r.same === null);
  const parts: string[] = [];
  if (off.length)
    parts.push(
      `${off.map(([k, r]) => `${k} on the random subject is ${r.random_over_real}× the real model's (beyond ±${Math.round(r.within * 100)} %)`).join("; ")}${kind.startsWith("nothing") ? "" : ` — what differs besides the weights may explain it: ${kind}`}`,
    );
  if (open.length)
    parts.push(
      `${open.map(([k]) => k).join(" and ")}: cannot tell (the native anchors moved ${open.map(([, r]) => `${Math.round(r.within * 100)} %`).join("/")} in this run)`,
    );
  if (!off.length && !open.length)
    parts.push("the random subject gives the real model's ratios against native, within the run's noise");
  parts.push(
    guided.same
      ? "guided/free the same too"
      : `guided/free differs (${guided.random_over_real}×): what random weights generate under a grammar is not what a trained model does`,
  );
  return parts.join("; ");
}

/**
 * Does a random-weight model measure the same ratios as the real model it stands for — Edge against
 * native (prefill, decode: the wasm/native gap in Chromium) and guided against free? `real` and
 * `random` are entries of the same environment and thread count in the same run; `kind` says what
 * differs besides the weights (a twin: nothing; a real shape: quant types and chat template);
 * `noise` is how much the native anchors themselves moved in this run.
 */
export function compareWeights(
  real: Record<string, unknown>,
  random: Record<string, unknown>,
  kind: string,
  noise: RunNoise,
): Record<string, unknown> {
  const vsNative = {
    prefill_vs_native: compareRatio(real, random, "prefill_vs_native", Math.max(SAME_WITHIN, noise.prefill)),
    decode_vs_native: compareRatio(real, random, "decode_vs_native", Math.max(SAME_WITHIN, noise.decode)),
  };
  const guided = compareRatio(real, random, "guided_vs_free", SAME_WITHIN);
  const ratios = Object.values(vsNative);
  return {
    comparison: "random_vs_real_weights",
    env: real.env,
    threads: real.threads,
    real: real.subject,
    random: random.subject,
    differs_besides_weights: kind,
    ...vsNative,
    guided_vs_free: guided,
    native_anchor_spread: { prefill: round(noise.prefill), decode: round(noise.decode) },
    load_avg_1m: { real: real.load_avg_1m, random: random.load_avg_1m },
    distorts_vs_native: ratios.some((r) => r.same === false)
      ? true
      : ratios.some((r) => r.same === null)
        ? null
        : false,
    distorts_guided_vs_free: !guided.same,
    verdict: weightsVerdict(vsNative, guided, kind),
  };
}

/** How much a subject's native anchors moved in this run (each environment measures its own, just
 *  before its entry, at the same thread count). */
function anchorNoise(entries: readonly Record<string, unknown>[], subject: string, threads: unknown): RunNoise {
  const mine = entries.filter((e) => e.subject === subject && e.threads === threads && e.goals);
  return {
    prefill: spread(mine.map((e) => e.native_prefill_tok_s as number)),
    decode: spread(mine.map((e) => e.native_decode_tok_s as number)),
  };
}

/** A subject as the comparisons need it: its name, and the real model a random one stands for. */
export interface ComparedSubject {
  name: string;
  standsFor?: { real: string; differs: string };
}

/** One comparison per random subject that stands for a real one measured in the same run, per
 *  environment and thread count both have. */
export function weightComparisons(
  subjects: readonly ComparedSubject[],
  entries: readonly Record<string, unknown>[],
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const random of subjects) {
    if (!random.standsFor) continue;
    const realName = random.standsFor.real;
    for (const r of entries.filter((e) => e.subject === random.name && e.goals)) {
      const real = entries.find((e) => e.subject === realName && e.env === r.env && e.threads === r.threads && e.goals);
      if (!real) continue;
      const a = anchorNoise(entries, realName, r.threads);
      const b = anchorNoise(entries, random.name, r.threads);
      out.push(
        compareWeights(real, r, random.standsFor.differs, {
          prefill: Math.max(a.prefill, b.prefill),
          decode: Math.max(a.decode, b.decode),
        }),
      );
    }
  }
  return out;
}
