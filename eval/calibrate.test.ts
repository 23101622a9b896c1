import { describe, expect, it } from "vitest";
import { calibrate, MIN_AUC, type CalibrationCase } from "./calibrate.ts";

/** A right call and a request no tool fits, each with its check score and its call-start score. */
const right = (check: number, callStart = 0): CalibrationCase => ({ check, callStart, pass: true, expectsCall: true });
const decline = (check: number, callStart = 0): CalibrationCase => ({
  check,
  callStart,
  pass: false,
  expectsCall: false,
});

describe("calibrate", () => {
  it("puts the threshold in the middle of the gap between right calls and requests no tool fits", () => {
    const c = calibrate([right(0.9), right(0.6), decline(0.1), decline(0.2), right(0.7), decline(0.0)]);
    expect(c.check).toMatchObject({ threshold: 0.4, auc: 1, right_calls: 3, calls_to_decline: 3, sorted: 1 });
    expect(c.check.sorted_cross_validated).toBe(1);
    // Every call-start score is the same: that signal tells nothing.
    expect(c.call_start).toMatchObject({ auc: 0.5, threshold: null });
    expect(c.chosen).toEqual({ signal: "check", threshold: 0.4 });
  });

  it("chooses the signal that separates better", () => {
    const c = calibrate([
      right(0.1, -1),
      decline(0.2, -6),
      right(0.3, -2),
      decline(0.1, -7),
      right(0.2, -1.5),
      decline(0.3, -5),
    ]);
    expect(c.check.threshold).toBeNull();
    expect(c.chosen).toEqual({ signal: "call_start", threshold: -3.5 });
  });

  it("ignores cases without weighed scores and wrong proposals where a call was due (no threshold sorts them right)", () => {
    const c = calibrate([
      right(0.9),
      decline(0.1),
      right(0.8),
      decline(0.2),
      { pass: true, expectsCall: false },
      { check: 5, pass: false, expectsCall: true },
    ]);
    expect(c.check).toMatchObject({ threshold: 0.5, right_calls: 2, calls_to_decline: 2 });
  });

  it("chooses nothing when neither signal tells the two apart", () => {
    const c = calibrate([right(0.1), decline(0.2), right(0.3), decline(0.4), right(0.2), decline(0.1)]);
    expect(c.check.auc).toBeLessThan(MIN_AUC);
    expect(c.chosen).toBeNull();
  });
});
