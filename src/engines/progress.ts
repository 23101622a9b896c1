// web-llm's initProgressCallback → our LoadProgress. web-llm restarts `progress` at 0 for each
// stage and says which stage only in its text ("Fetching param cache[…]", "Loading model from
// cache[…]", "Loading GPU shader modules[…]", "Finish loading on WebGPU - …"), so the stage is read
// from the text and each stage is placed in its own slice of one 0..1 bar that never goes back.
import type { LoadPhase, LoadProgress } from "./engine.ts";

export interface InitProgressReportLike {
  progress: number;
  timeElapsed?: number;
  text: string;
}

type Stage = "fetch" | "weights_to_gpu" | "shaders" | "done";

/** [start, end) of each stage on the overall bar. A cached model skips "fetch" and jumps to 0.7. */
const SLICES: Record<Stage, readonly [number, number]> = {
  fetch: [0, 0.7],
  weights_to_gpu: [0.7, 0.85],
  shaders: [0.85, 1],
  done: [1, 1],
};

const PHASE: Record<Stage, LoadPhase> = {
  fetch: "download",
  weights_to_gpu: "compile",
  shaders: "compile",
  done: "ready",
};

export function stageOf(text: string): Stage {
  if (/^Finish loading/i.test(text)) return "done";
  if (/^Loading GPU shader modules/i.test(text)) return "shaders";
  if (/^Loading model from cache/i.test(text)) return "weights_to_gpu";
  // "Start to fetch params", "Fetching param cache[…]", and anything earlier (config, library).
  return "fetch";
}

/** Stateful per load: keeps the bar monotonic across web-llm's per-stage restarts. */
export class ProgressMapper {
  private last = 0;

  map(report: InitProgressReportLike): LoadProgress {
    const stage = stageOf(report.text);
    const [start, end] = SLICES[stage];
    const within = Number.isFinite(report.progress) ? Math.min(1, Math.max(0, report.progress)) : 0;
    const overall = stage === "done" ? 1 : start + (end - start) * within;
    this.last = Math.max(this.last, Math.min(1, overall));
    return { progress: this.last, text: report.text, phase: PHASE[stage] };
  }
}
