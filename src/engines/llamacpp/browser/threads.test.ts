import { describe, expect, it } from "vitest";
import { defaultThreads, MULTI_THREAD_MIN_MODEL_BYTES } from "./threads.ts";

describe("defaultThreads (the browser's llama.cpp thread count when none is named)", () => {
  const real = 284 * 1024 * 1024; // the Qwen2.5-0.5B shape in Q4_0

  it("gives a real-size model half the logical cores on a cross-origin-isolated page (one per physical core), at least two of two", () => {
    expect(defaultThreads({ cores: 8, isolated: true, modelBytes: real })).toBe(4);
    expect(defaultThreads({ cores: 4, isolated: true, modelBytes: real })).toBe(2);
    expect(defaultThreads({ cores: 2, isolated: true, modelBytes: real })).toBe(2);
    expect(defaultThreads({ cores: 1, isolated: true, modelBytes: real })).toBe(1);
  });

  it("gives one thread where SharedArrayBuffer cannot be shared (a page without COOP/COEP)", () => {
    expect(defaultThreads({ cores: 8, isolated: false, modelBytes: real })).toBe(1);
  });

  it("gives a tiny model one thread: the threads' synchronisation per token costs more than they share", () => {
    expect(defaultThreads({ cores: 8, isolated: true, modelBytes: 468 * 1024 })).toBe(1);
    expect(defaultThreads({ cores: 8, isolated: true, modelBytes: MULTI_THREAD_MIN_MODEL_BYTES })).toBe(4);
  });

  it("never answers less than one thread, whatever the browser reports", () => {
    expect(defaultThreads({ cores: 0, isolated: true, modelBytes: real })).toBe(1);
    expect(defaultThreads({ cores: Number.NaN, isolated: true, modelBytes: real })).toBe(1);
  });
});
