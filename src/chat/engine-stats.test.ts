// engine_stats: the run's numbers from the engine's usage reports.
import { describe, expect, it } from "vitest";
import { createStatsAccumulator } from "./engine-stats.ts";

describe("engine_stats", () => {
  it("time to first token and prompt tokens evaluated of the first generation; decode speed weighted by tokens; counts summed", () => {
    const acc = createStatsAccumulator();
    acc.add({
      timeToFirstTokenMs: 420.4,
      prefillTokensPerS: 812.34,
      decodeTokensPerS: 20,
      completionTokens: 20,
      promptTokensEvaluated: 300,
    });
    acc.add(undefined);
    acc.add({ timeToFirstTokenMs: 90, decodeTokensPerS: 10, completionTokens: 10, promptTokensEvaluated: 40 });
    // 30 tokens in 1 s + 1 s = 15 tokens/s.
    expect(acc.result()).toEqual({
      generations: 2,
      time_to_first_token_ms: 420,
      prefill_tokens_per_s: 812.3,
      first_prompt_tokens_evaluated: 300,
      decode_tokens_per_s: 15,
      prompt_tokens_evaluated: 340,
      completion_tokens: 30,
    });
  });

  it("no usage at all (the scripted demo): no engine_stats", () => {
    const acc = createStatsAccumulator();
    acc.add(undefined);
    expect(acc.result()).toBeUndefined();
  });
});
