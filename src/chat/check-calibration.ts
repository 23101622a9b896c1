// Where a checked turn weighs instead of generating (model-turn.ts, weighing.ts): per model, which
// of two signals it trusts and the line above which a call goes ahead. Both are read from the
// model's next-token probabilities (Engine.scoreChoices):
//   call_start — before proposing: the probability that the reply starts a call ("{" and its
//                spellings) when the model writes freely; at or below the line the model answers;
//   check      — after proposing: how much the person's request raises the log-odds of "yes" to
//                "does that call match my request?" against an empty request; at or below the line
//                the call is declined.
// How well each separates right calls from requests no tool fits, and where the line falls, depends
// on the model, so both are measured for one exact file (its sha256) by `npm run eval:tools --
// --calibrate` (eval/README.md), and the signal that separates best is kept. A model without an
// entry keeps the generated check.
export type CheckSignal = "call_start" | "check";

export interface CheckCalibration {
  signal: CheckSignal;
  threshold: number;
}

/** Measured calibrations, by the GGUF file's sha256 (eval/results/calibration.json). */
const CALIBRATIONS: Readonly<Record<string, CheckCalibration>> = {
  // Qwen2.5-Coder-0.5B-Instruct Q4_K_M: check AUC 0.979, sorts 0.97 of 67 cases (0.97 cross-validated);
  // its call start's AUC is 0.788 — it would start a call for nearly every request.
  "sha256:1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32": { signal: "check", threshold: 0.265 },
  // SmolLM2-135M-Instruct Q4_1: call_start AUC 0.97, sorts 0.957 of 46 cases (0.957 cross-validated);
  // its check's AUC is 0.575 — it says "yes" to nearly every proposal.
  "sha256:b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53": {
    signal: "call_start",
    threshold: -6.508,
  },
};

/** The calibration of the model file with this sha256 ("sha256:…"), when it was measured. */
export function checkCalibration(sha256: string | undefined): CheckCalibration | undefined {
  return sha256 === undefined ? undefined : CALIBRATIONS[sha256];
}
