// The numbers a person expects per answer — time to first token and tokens per second — summed
// up over the generations of one run (a call, then the answer, is two generations). They come
// from the engine's own usage report (web-llm's `usage`, the llama.cpp engine's timings); an
// engine that reports nothing (the scripted demo) leaves the run without engine_stats. The
// EngineStats shape is a receipt field, so it is declared in src/receipts/types.ts.
import type { ChatUsage } from "../engines/engine.ts";
import type { EngineStats } from "../receipts/types.ts";

const round1 = (n: number): number => Math.round(n * 10) / 10;

export function createStatsAccumulator(): {
  add(usage: ChatUsage | undefined): void;
  result(): EngineStats | undefined;
} {
  const usages: ChatUsage[] = [];
  return {
    add(usage) {
      if (usage) usages.push(usage);
    },
    result() {
      if (usages.length === 0) return undefined;
      const first = usages[0]!;
      const stats: EngineStats = { generations: usages.length };
      if (first.timeToFirstTokenMs !== undefined) stats.time_to_first_token_ms = Math.round(first.timeToFirstTokenMs);
      if (first.prefillTokensPerS !== undefined && Number.isFinite(first.prefillTokensPerS))
        stats.prefill_tokens_per_s = round1(first.prefillTokensPerS);
      if (first.promptTokensEvaluated !== undefined) stats.first_prompt_tokens_evaluated = first.promptTokensEvaluated;
      // Decode time per generation is tokens / speed; the run's speed is total tokens / total time.
      let tokens = 0;
      let seconds = 0;
      for (const u of usages) {
        if (u.completionTokens && u.decodeTokensPerS && u.decodeTokensPerS > 0) {
          tokens += u.completionTokens;
          seconds += u.completionTokens / u.decodeTokensPerS;
        }
      }
      if (seconds > 0) stats.decode_tokens_per_s = round1(tokens / seconds);
      const evaluated = usages.map((u) => u.promptTokensEvaluated).filter((n): n is number => n !== undefined);
      if (evaluated.length) stats.prompt_tokens_evaluated = evaluated.reduce((a, b) => a + b, 0);
      const completion = usages.map((u) => u.completionTokens).filter((n): n is number => n !== undefined);
      if (completion.length) stats.completion_tokens = completion.reduce((a, b) => a + b, 0);
      return stats;
    },
  };
}
