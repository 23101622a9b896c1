// A model load that goes silent ends with a coded error, not a spinner with no end. Every sign of
// life counts: each progress report (download, hash, the steps) and each line wllama or llama.cpp
// logs while loading (llama.cpp logs hundreds as it reads a model); once llama.cpp's worker has
// spoken, a silence between its lines may last LLAMA_STEP_MS. Each attempt leaves a User Timing
// measure (LOAD_MEASURE: its duration; in `detail` how it ended and its longest silence), which is
// what STALL_MS is measured against (e2e/browsers/load-loop.ts reads them).
import { EdgeError } from "../../../contract/errors.ts";
import type { LoadProgress } from "../../engine.ts";

/** How long a load may stay silent before it is called stalled. The longest silence measured in
 *  real loads of a 491 MB model: 2 s in Chromium and Firefox, 10.5 s in WebKitGTK (docs/engines.md,
 *  "A load that stalls"). */
export const STALL_MS = 30_000;

/** How long llama.cpp may compute without a line once its worker has spoken (it started: the hang
 *  this watch is for is a worker that never does). Reading a model's vocabulary in WebKit's compat
 *  build is one silent step: 7–8 s for Qwen2.5 here, 17–18 s for SmolLM2 with the cores busy, past
 *  30 s beside two other browsers. */
export const LLAMA_STEP_MS = 120_000;

/** The name of each load attempt's performance measure. */
export const LOAD_MEASURE = "edge:llama-load";

/** A measure's detail: how the attempt ended, and its longest silence, between which two signs. */
export interface LoadMeasureDetail {
  outcome: "loaded" | "stalled" | "aborted" | "failed";
  signs: number;
  longestSilenceMs: number;
  silentAfter: string;
  silentBefore: string;
}

export interface StallWatch {
  /** A progress report: a sign of life, and what a stall's message names. */
  progress(p: LoadProgress): void;
  /** Any other sign of life (a line wllama or llama.cpp logged); `quietMs`: how long the silence
   *  after it may last (default: the watch's limit). */
  alive(sign: string, quietMs?: number): void;
  /** Rejects with model_load_failed (stage "stalled") once a silence lasts longer than allowed. */
  readonly stalled: Promise<never>;
  /** End the watch and leave the attempt's measure. */
  stop(outcome: LoadMeasureDetail["outcome"]): void;
}

function stallError(stallMs: number, shown: string, sign: string): EdgeError {
  const seconds = Math.round(stallMs / 1000);
  return new EdgeError(
    "model_load_failed",
    { stage: "stalled", stalled_ms: stallMs, last_progress: shown, last_sign: sign },
    `Loading the model stopped: no progress for ${seconds} s after ${shown}. Reload the page and load it again; if it stops again, try a smaller model or another browser.`,
  );
}

export function stallWatch(stallMs: number): StallWatch {
  const start = performance.now();
  const silence = { signs: 0, longestSilenceMs: 0, silentAfter: "", silentBefore: "" };
  let last = { at: start, sign: "the start" };
  let shown = "the start";
  let timer: ReturnType<typeof setTimeout> | undefined;
  let fail: (e: EdgeError) => void = () => undefined;
  const stalled = new Promise<never>((_, reject) => (fail = reject));
  stalled.catch(() => undefined); // raced by the caller; unobserved once the load settled
  const note = (sign: string): void => {
    const now = performance.now();
    if (now - last.at > silence.longestSilenceMs)
      Object.assign(silence, {
        longestSilenceMs: Math.round(now - last.at),
        silentAfter: last.sign,
        silentBefore: sign,
      });
    last = { at: now, sign };
  };
  const alive = (sign: string, quietMs = stallMs): void => {
    note(sign);
    silence.signs++;
    clearTimeout(timer);
    timer = setTimeout(() => fail(stallError(quietMs, shown, last.sign)), quietMs);
  };
  alive("the start");
  return {
    progress(p) {
      shown = `“${p.text}”`;
      alive(p.text);
    },
    alive,
    stalled,
    stop(outcome) {
      clearTimeout(timer);
      note("the end");
      const detail: LoadMeasureDetail = { outcome, ...silence };
      performance.measure(LOAD_MEASURE, { start, detail });
    },
  };
}
