// How many CPU threads llama.cpp gets in the browser when the caller names none. Chosen by
// measurement (bench/session.bench.ts, docs/engines.md "Threads"). More than one needs
// SharedArrayBuffer (a cross-origin-isolated page). A real-size model gets half the logical cores:
// browsers report logical cores (usually two per physical core, and a second hyperthread adds little
// to llama.cpp's matrix work), and on an oversubscribed machine a thread per logical core is
// ruinous — every graph step ends at a barrier, so one descheduled thread stalls the rest (measured
// on this 2-core machine under load ≈ 18: 6.4 tok/s with one thread, 0.34 with two). A tiny model
// (the generated test model, under a megabyte) gets one: its per-token work is too small to share
// (node-llama-cpp on that model: 242 tok/s with one thread, 90 with two).
// But never fewer than two where two cores are reported: on this 2-core machine (hardwareConcurrency
// 2, one thread by the half rule) two threads won every measure on both real models in Chromium
// (bench:session, 2026-12-06: the first turn 2.0× faster on SmolLM2-135M, 1.8× on
// Qwen2.5-Coder-0.5B; decode 1.8× and 2.0×; loadavg 1–4). The price is the oversubscribed case
// above: a device already running other heavy work slows down more with two than with one.

/** Models smaller than this (bytes of the GGUF file) decode fastest on one thread. */
export const MULTI_THREAD_MIN_MODEL_BYTES = 32 * 1024 * 1024;

export interface ThreadContext {
  /** navigator.hardwareConcurrency (logical cores). */
  cores: number;
  /** crossOriginIsolated: SharedArrayBuffer can be shared with wllama's threads. */
  isolated: boolean;
  /** Size of the model file. */
  modelBytes: number;
}

export function defaultThreads({ cores, isolated, modelBytes }: ThreadContext): number {
  if (!isolated || modelBytes < MULTI_THREAD_MIN_MODEL_BYTES) return 1;
  const logical = Math.floor(cores) || 1;
  return Math.min(logical, Math.max(2, Math.floor(logical / 2)));
}
