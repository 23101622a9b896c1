import { describe, expect, it } from "vitest";
import { EdgeError } from "../../contract/errors.ts";
import { choiceTokens, logSumExp, unscorableError } from "./choices.ts";

describe("choice scores", () => {
  it("sum probabilities in log space without overflow", () => {
    expect(logSumExp([Math.log(0.25), Math.log(0.5)])).toBeCloseTo(Math.log(0.75), 12);
    expect(logSumExp([1000, 1000])).toBeCloseTo(1000 + Math.log(2), 9);
    expect(logSumExp([-Infinity, 2])).toBe(2);
    expect(logSumExp([])).toBe(-Infinity);
  });

  it("count only the spellings that are one token, each once, and name a choice with none", () => {
    const vocab: Record<string, number[]> = { yes: [7], Yes: [8], " yes": [7], no: [3, 4], No: [9] };
    const { tokens, unscorable } = choiceTokens(
      [["yes", "Yes", " yes"], ["no", "No"], ["maybe"]],
      (s) => vocab[s] ?? [1, 2],
    );
    expect(tokens).toEqual([[7, 8], [9], []]);
    expect(unscorable).toEqual(["maybe"]);
    const e = unscorableError(unscorable);
    expect(e).toBeInstanceOf(EdgeError);
    expect(e.code).toBe("response_format_unsupported");
  });
});
