// `npm run eval:tools -- --calibrate`: measures, per model, which weighed signal a checked turn
// trusts and where its line falls (src/chat/check-calibration.ts). Every proposal is kept and both
// signals are recorded before any result: how likely the free reply starts a call, and how much the
// request raises the check's log-odds of "yes". A case whose next turn must be a call and whose kept
// proposal passes is a right call; a case where no tool fits is a call to decline (wrong proposals
// where a call was due fail either way, and checks after a result are not weighed). For each signal
// the threshold is the middle of the widest gap among those that sort most of both right; a signal
// separates them only as well as its AUC says. The model gets the signal with the higher AUC, if it
// reaches MIN_AUC; otherwise none (its check stays the generated one). Two-fold cross-validation
// (odd and even cases) says how well a threshold measured on half the cases holds on the other half.
import type { CheckSignal } from "../src/chat/check-calibration.ts";

/** One case of a calibration run. */
export interface CalibrationCase {
  callStart?: number;
  check?: number;
  pass: boolean;
  expectsCall: boolean;
}

export interface SignalCalibration {
  auc: number;
  right_calls: number;
  calls_to_decline: number;
  threshold: number | null;
  /** Of both kinds, the fraction the threshold sorts right (on the cases it was measured on). */
  sorted: number;
  /** The same, each half's threshold applied to the other half. */
  sorted_cross_validated: number;
}

export interface Calibration {
  call_start: SignalCalibration;
  check: SignalCalibration;
  /** What goes into src/chat/check-calibration.ts under the model file's sha256, or null. */
  chosen: { signal: CheckSignal; threshold: number } | null;
  note: string;
}

/** Below this a signal says too little about the request to decide with. */
export const MIN_AUC = 0.8;

type Labelled = { score: number; right: boolean };

function labelled(cases: readonly CalibrationCase[], signal: CheckSignal): Labelled[] {
  const rows: Labelled[] = [];
  for (const c of cases) {
    const score = signal === "call_start" ? c.callStart : c.check;
    if (score === undefined) continue;
    if (!c.expectsCall) rows.push({ score, right: false });
    else if (c.pass) rows.push({ score, right: true });
  }
  return rows;
}

function auc(rows: readonly Labelled[]): number {
  const pos = rows.filter((r) => r.right).map((r) => r.score);
  const neg = rows.filter((r) => !r.right).map((r) => r.score);
  let sum = 0;
  for (const p of pos) for (const n of neg) sum += p > n ? 1 : p === n ? 0.5 : 0;
  return pos.length && neg.length ? sum / (pos.length * neg.length) : Number.NaN;
}

const sortedBy = (rows: readonly Labelled[], t: number): number =>
  rows.filter((r) => r.score > t === r.right).length / Math.max(1, rows.length);

const round = (x: number): number => Math.round(x * 1000) / 1000;

/** The middle of the widest gap between two neighbouring scores among those that sort most rows right. */
function bestThreshold(rows: readonly Labelled[]): number {
  const scores = [...new Set(rows.map((r) => r.score))].sort((a, b) => a - b);
  const finite = scores.filter(Number.isFinite);
  const candidates = [(finite[0] ?? 0) - 1, ...scores.slice(1).map((s, i) => (s + scores[i]!) / 2)];
  let best = { t: candidates[0]!, sorted: -1, gap: -1 };
  candidates.forEach((t, i) => {
    if (!Number.isFinite(t)) return;
    const sorted = sortedBy(rows, t);
    const gap = i === 0 ? 0 : scores[i]! - scores[i - 1]!;
    if (sorted > best.sorted || (sorted === best.sorted && gap > best.gap)) best = { t, sorted, gap };
  });
  return round(best.t);
}

function calibrateSignal(cases: readonly CalibrationCase[], signal: CheckSignal): SignalCalibration {
  const rows = labelled(cases, signal);
  const area = auc(rows);
  const right = rows.filter((r) => r.right).length;
  const base = { auc: round(area), right_calls: right, calls_to_decline: rows.length - right };
  if (!(area >= MIN_AUC) || rows.length < 4) return { ...base, threshold: null, sorted: 0, sorted_cross_validated: 0 };
  const threshold = bestThreshold(rows);
  const halves = [0, 1].map((k) =>
    labelled(
      cases.filter((_, i) => i % 2 === k),
      signal,
    ),
  );
  const crossed = halves.map((half, k) => {
    const other = halves[1 - k]!;
    return other.length ? sortedBy(half, bestThreshold(other)) * half.length : 0;
  });
  return {
    ...base,
    threshold,
    sorted: round(sortedBy(rows, threshold)),
    sorted_cross_validated: round((crossed[0]! + crossed[1]!) / Math.max(1, rows.length)),
  };
}

export function calibrate(cases: readonly CalibrationCase[]): Calibration {
  const callStart = calibrateSignal(cases, "call_start");
  const check = calibrateSignal(cases, "check");
  const [signal, best] = (
    check.auc >= (Number.isNaN(callStart.auc) ? -1 : callStart.auc) ? ["check", check] : ["call_start", callStart]
  ) as [CheckSignal, SignalCalibration];
  const chosen = best.threshold === null ? null : { signal, threshold: best.threshold };
  return {
    call_start: callStart,
    check,
    chosen,
    note: chosen
      ? `Put ${JSON.stringify(chosen)} into src/chat/check-calibration.ts under the model file's sha256.`
      : `Neither signal reaches AUC ${MIN_AUC}: the model keeps the generated check.`,
  };
}
