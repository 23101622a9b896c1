// Shared by both halves of bench/engine.bench.ts (Node, and the Chromium page e2e/pages/bench.ts):
// the one generation every sample makes, its timings, and the JSON entry. A sample generates
// exactly TOKENS tokens (a grammar of TOKENS letters: the generated test model's byte-level
// tokens make one token per letter), so the adapter and the bare runtime do the same work.
import type { ChatMessage, Engine } from "../src/engines/engine.ts";
import { percentile } from "./loop-core.ts";

export const TOKENS = 96;
export const GRAMMAR = `root ::= [a-z]{${TOKENS}}\n`;
export const SYSTEM = "You are a test model. Answer with letters.";

/** Each sample's prompt differs, so no run is served from another run's prompt cache. */
export function promptFor(i: number): ChatMessage[] {
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: `Sample ${i}: write ${TOKENS} letters.` },
  ];
}

/** Turn 1 of the prefix-reuse measure: its own system text, so nothing of it is cached yet. */
const PREFIX_TURN1: readonly ChatMessage[] = [
  { role: "system", content: "Prefix reuse: a conversation of two turns." },
  { role: "user", content: "What is the capital of France?" },
];

export interface GenSample {
  /** Request to first generated text. */
  ttftMs: number;
  /** Request to the end of the generation. */
  totalMs: number;
  tokens: number;
}

export interface PrefixReuse {
  turn1_prompt_tokens: number;
  turn1_evaluated: number;
  turn2_prompt_tokens: number;
  turn2_evaluated: number;
}

function stats(samples: GenSample[]) {
  const decode = samples.map((s) => ((s.tokens - 1) / (s.totalMs - s.ttftMs)) * 1000);
  return {
    ttft_ms_p50: round(
      percentile(
        samples.map((s) => s.ttftMs),
        50,
      ),
    ),
    total_ms_p50: round(
      percentile(
        samples.map((s) => s.totalMs),
        50,
      ),
    ),
    decode_tokens_per_s_p50: round(percentile(decode, 50)),
    tokens: samples[0]?.tokens ?? 0,
  };
}

const round = (n: number) => Math.round(n * 100) / 100;

/** One environment's entry: adapter vs bare (same run, interleaved samples), and prefix reuse. */
export function engineEntry(
  env: "node" | "chromium",
  adapter: GenSample[],
  bare: GenSample[],
  prefix: PrefixReuse,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const a = stats(adapter);
  const b = stats(bare);
  const overhead = a.total_ms_p50 / b.total_ms_p50;
  return {
    env,
    ...extra,
    samples: adapter.length,
    tokens_per_sample: TOKENS,
    adapter: a,
    bare: b,
    // > 1: the adapter is slower than the bare runtime call.
    overhead_ratio_total: round(overhead),
    overhead_ratio_ttft: round(a.ttft_ms_p50 / b.ttft_ms_p50),
    overhead_ratio_decode: round(b.decode_tokens_per_s_p50 / a.decode_tokens_per_s_p50),
    overhead_target: 1.05,
    overhead_within_target: overhead <= 1.05,
    prefix_reuse: { ...prefix, turn2_vs_turn1_evaluated: round(prefix.turn2_evaluated / prefix.turn1_evaluated) },
  };
}

/** One sample through the engine (LlamaCppEngine in either environment). */
export async function adapterSample(engine: Engine, i: number): Promise<GenSample> {
  const t = performance.now();
  let first: number | undefined;
  const r = await engine.chat({
    messages: promptFor(i),
    responseFormat: { type: "grammar", grammar: GRAMMAR },
    maxTokens: TOKENS + 8,
    onToken: () => (first ??= performance.now()),
  });
  const end = performance.now();
  return { ttftMs: (first ?? end) - t, totalMs: end - t, tokens: r.usage?.completionTokens ?? 0 };
}

/** A two-turn conversation: how many prompt tokens each turn evaluated. */
export async function prefixReuse(engine: Engine): Promise<PrefixReuse> {
  const turn1 = [...PREFIX_TURN1];
  const r1 = await engine.chat({ messages: turn1, responseFormat: { type: "grammar", grammar: 'root ::= "Paris."' } });
  const r2 = await engine.chat({
    messages: [...turn1, { role: "assistant", content: r1.text }, { role: "user", content: "And the next one?" }],
    responseFormat: { type: "grammar", grammar: 'root ::= "Rome."' },
  });
  return {
    turn1_prompt_tokens: r1.usage!.promptTokens!,
    turn1_evaluated: r1.usage!.promptTokensEvaluated!,
    turn2_prompt_tokens: r2.usage!.promptTokens!,
    turn2_evaluated: r2.usage!.promptTokensEvaluated!,
  };
}
