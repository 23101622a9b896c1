import { describe, expect, it } from "vitest";
import {
  compareWeights,
  DEFAULT_CPU_MODEL,
  firstTurnSummary,
  sessionEntry,
  spread,
  threadComparisons,
  weightComparisons,
  type EntryContext,
  type Goal,
  type SessionSamples,
  type Turn,
} from "./session-core.ts";

const turn = (over: Partial<Turn>): Turn => ({
  ttftMs: 1000,
  promptTokens: 300,
  evaluated: 300,
  completionTokens: 16,
  decodeTokS: 10,
  text: "",
  ...over,
});

const samples = (free: number, guided: number): SessionSamples => ({
  threads: 1,
  loadMs: 500,
  first: turn({ ttftMs: 30_000, evaluated: 300 }), // 10 tok/s of prefill
  second: turn({ evaluated: 20 }),
  newConversation: turn({ evaluated: 15 }),
  free: [turn({ decodeTokS: free })],
  guided: [turn({ decodeTokS: guided })],
});

const context = (over: Partial<EntryContext> = {}): EntryContext => ({
  env: "chromium",
  subject: "smollm2",
  weights: "real",
  model: { model: "smollm2" },
  runtime: "wllama 3.13.0",
  // Native: 300 tokens in 0.5 s = 600 tok/s of prefill, 60 tok/s decode free, 54 guided.
  native: { threads: 1, promptTokens: 300, firstTurnTtftMs: 500, decodeTokS: 60, decodeTokSGuided: 54, loadAvg1m: 1.2 },
  returning: { loadMs: 400, returning: { notMeasured: "quick" } },
  // The start warmed in 29 s; then the question alone (12 tokens) in 1.5 s.
  warm: {
    loadMs: 600,
    warm: {
      warmPrefixMs: 29_000,
      tokens: 290,
      evaluated: 290,
      turn: turn({ ttftMs: 1500, evaluated: 12, promptTokens: 302 }),
    },
  },
  returningPath: "reload",
  loadAvg1m: { start: 1.1, end: 1.3 },
  ...over,
});

describe("bench:session entries", () => {
  it("gives every ratio against the native anchor measured in the same run, and says which goal is missed", () => {
    const e = sessionEntry(samples(6, 6), context());
    expect(e.prefill_vs_native).toBeCloseTo(10 / 600, 3);
    expect(e.first_turn_ttft_vs_native).toBeCloseTo(500 / 30_000, 3);
    expect(e.decode_vs_native).toBe(0.1);
    expect(e.guided_decode_vs_native_guided).toBeCloseTo(6 / 54, 3);
    expect(e.load_avg_1m).toEqual({ start: 1.1, end: 1.3 });
    const goals = e.goals as Record<string, Goal>;
    expect(goals.decode_vs_native).toMatchObject({ met: false, measured: 0.1, goal: "≥ 0.7× native" });
    expect(goals.decode_vs_native?.reason).toMatch(/0\.1× native/);
    expect(goals.guided_vs_free).toEqual({ met: true, measured: 1, goal: "≥ 0.9× free" });
    expect(goals.returning_ttft).toMatchObject({ met: null, measured: null, reason: "not measured: quick" });
  });

  it("gives the first-turn numbers: cold, the warm and the turn after it, the loads from the store", () => {
    const e = sessionEntry(samples(6, 6), context({ subject: DEFAULT_CPU_MODEL }));
    expect(e).toMatchObject({
      cold_first_turn_ttft_ms: 30_000,
      warm_prefix_ms: 29_000,
      warm_prefix_tokens: 290,
      warm_first_turn_ttft_ms: 1500,
      warm_first_turn_evaluated: 12,
      first_load_ms: 500,
      model_load_ms: 500,
      model_load_ms_samples: [400, 600],
    });
    const goals = e.goals as Record<string, Goal>;
    expect(goals.warm_first_turn_ttft).toEqual({ met: true, measured: 1500, goal: "≤ 2000 ms" });
    expect(goals.cold_first_turn_ttft).toMatchObject({ met: false, measured: 30_000, goal: "≤ 15000 ms" });
    expect(goals.cold_first_turn_ttft?.reason).toMatch(
      /took 30000 ms: the contract and the question, 300 tokens, evaluated at 10 tok\/s/,
    );
    // Another model's numbers are reported beside the default's goal.
    const other = sessionEntry(samples(6, 6), context({ subject: "qwen" })).goals as Record<string, Goal>;
    expect(other.warm_first_turn_ttft?.reported_beside).toMatch(new RegExp(DEFAULT_CPU_MODEL));
    expect(goals.warm_first_turn_ttft?.reported_beside).toBeUndefined();
  });

  it("says why a warm start was not measured", () => {
    const e = sessionEntry(samples(6, 6), context({ warm: { loadMs: 600, warm: { notMeasured: "no prompt cache" } } }));
    expect(e).toMatchObject({ warm_first_turn_ttft_ms: null, warm_not_measured: "no prompt cache" });
    expect((e.goals as Record<string, Goal>).warm_first_turn_ttft).toMatchObject({
      met: null,
      reason: "not measured: no prompt cache",
    });
  });

  it("compares thread counts per environment and subject, and summarizes the first turns", () => {
    const at = (threads: number, cold: number, decode: number) => {
      const s = { ...samples(decode, decode), threads, first: turn({ ttftMs: cold, evaluated: 300 }) };
      return sessionEntry(s, context({ subject: DEFAULT_CPU_MODEL }));
    };
    const entries = [at(1, 30_000, 6), at(2, 20_000, 6.1), sessionEntry(samples(6, 6), context({ env: "node" }))];
    const [c] = threadComparisons(entries);
    expect(threadComparisons(entries)).toHaveLength(1);
    expect(c).toMatchObject({ comparison: "threads", env: "chromium", subject: DEFAULT_CPU_MODEL });
    expect((c!.better as Record<string, unknown>).cold_first_turn_ttft_ms).toBe(2);
    expect((c!.better as Record<string, unknown>).decode_tok_s_free).toBe("tie");
    expect((c!.better as Record<string, unknown>).returning_ttft_ms).toBeNull();
    const summary = firstTurnSummary(entries);
    expect(summary.rows).toHaveLength(3);
    expect((summary.rows as Record<string, unknown>[])[0]).toMatchObject({
      env: "chromium",
      threads: 1,
      cold_first_turn_ttft_ms: 30_000,
      warm_first_turn_ttft_ms: 1500,
      cold_goal: "missed",
      warm_goal: "met",
    });
    expect((summary.rows as Record<string, unknown>[])[2]).toMatchObject({
      env: "node",
      warm_goal: "met (reported beside)",
    });
  });

  it("marks numbers from random weights as such", () => {
    expect(sessionEntry(samples(6, 6), context({ weights: "random" })).weights_note).toMatch(/random weights/);
    expect(sessionEntry(samples(6, 6), context()).weights_note).toBeUndefined();
  });
});

describe("random against real weights", () => {
  const real = sessionEntry(samples(6, 6), context());
  it("finds no distortion when the ratios agree within the run's noise", () => {
    const random = sessionEntry(samples(6.3, 6), context({ subject: "twin", weights: "random" }));
    const c = compareWeights(real, random, "nothing", { prefill: 0, decode: 0 });
    expect(c.distorts_vs_native).toBe(false);
    expect(c.distorts_guided_vs_free).toBe(false);
  });

  it("reports a distortion beyond the noise, and a guided/free ratio that random weights change", () => {
    const random = sessionEntry(samples(9, 4), context({ subject: "twin", weights: "random" }));
    const quiet = compareWeights(real, random, "nothing", { prefill: 0, decode: 0.1 });
    expect(quiet.distorts_vs_native).toBe(true);
    expect(quiet.distorts_guided_vs_free).toBe(true);
    expect(quiet.verdict).toMatch(/decode_vs_native on the random subject is 1\.5× the real model's/);
    // The same difference in a run whose native anchors moved by 50 % is noise.
    expect(compareWeights(real, random, "nothing", { prefill: 0, decode: 0.5 }).distorts_vs_native).toBe(false);
  });

  it("names what differs besides the weights, and cannot tell when the machine's load moved the anchors too much", () => {
    const random = sessionEntry(samples(9, 6), context({ subject: "shape", weights: "random" }));
    expect(compareWeights(real, random, "quant types", { prefill: 0, decode: 0 }).verdict).toMatch(
      /what differs besides the weights may explain it: quant types/,
    );
    const loaded = compareWeights(real, random, "nothing", { prefill: 0, decode: 0.8 });
    expect(loaded.distorts_vs_native).toBeNull();
    expect(loaded.verdict).toMatch(/decode_vs_native: cannot tell \(the native anchors moved 80 %/);
  });

  it("pairs each random subject with the real one it stands for, per environment and thread count", () => {
    const entry = (subject: string, env: "node" | "chromium", decode: number) =>
      sessionEntry(samples(6, 6), context({ subject, env, native: { ...context().native, decodeTokS: decode } }));
    const entries = [
      entry("smollm2", "node", 60),
      entry("smollm2", "chromium", 66),
      entry("twin", "node", 60),
      entry("twin", "chromium", 60),
      entry("other", "node", 60),
    ];
    const out = weightComparisons(
      [{ name: "smollm2" }, { name: "twin", standsFor: { real: "smollm2", differs: "nothing" } }, { name: "other" }],
      entries,
    );
    expect(out.map((c) => [c.env, c.random])).toEqual([
      ["node", "twin"],
      ["chromium", "twin"],
    ]);
    // The real model's two native anchors moved 10 %: that is the run's noise for decode.
    expect(out[0]!.native_anchor_spread).toEqual({ prefill: 0, decode: 0.1 });
  });

  it("measures noise as the spread of repeated measurements", () => {
    expect(spread([100, 120])).toBeCloseTo(0.2);
    expect(spread([100])).toBe(0);
  });
});
