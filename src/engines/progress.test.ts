import { describe, expect, it } from "vitest";
import { ProgressMapper, stageOf } from "./progress.ts";

// Texts as web-llm 0.2.86 writes them (tvmjs fetchTensorCache, asyncLoadWebGPUPipelines, reload).
const FETCH = (i: number, p: number) =>
  `Fetching param cache[${i}/20]: ${i * 40}MB fetched. ${Math.floor(p * 100)}% completed, 3 secs elapsed. It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.`;

describe("init progress → LoadProgress", () => {
  it("reads the phase from web-llm's text", () => {
    expect(stageOf("Start to fetch params")).toBe("fetch");
    expect(stageOf(FETCH(1, 0.05))).toBe("fetch");
    expect(stageOf("Loading model from cache[3/20]: 120MB loaded. 15% completed, 1 secs elapsed.")).toBe(
      "weights_to_gpu",
    );
    expect(stageOf("Loading GPU shader modules[12/40]: 30% completed, 2 secs elapsed.")).toBe("shaders");
    expect(stageOf("Finish loading on WebGPU - swiftshader")).toBe("done");
  });

  it("one bar: download, then compile, then ready — never going back although web-llm restarts at 0", () => {
    const m = new ProgressMapper();
    const out = [
      m.map({ progress: 0, text: "Start to fetch params" }),
      m.map({ progress: 0.5, text: FETCH(10, 0.5) }),
      m.map({ progress: 1, text: FETCH(20, 1) }),
      m.map({ progress: 0, text: "Loading model from cache[1/20]: 0MB loaded. 0% completed, 0 secs elapsed." }),
      m.map({ progress: 0.2, text: "Loading GPU shader modules[8/40]: 20% completed, 1 secs elapsed." }),
      m.map({ progress: 1, text: "Finish loading on WebGPU - swiftshader" }),
    ];
    expect(out.map((p) => p.phase)).toEqual(["download", "download", "download", "compile", "compile", "ready"]);
    const values = out.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(values[0]).toBe(0);
    expect(values[1]).toBeCloseTo(0.35);
    expect(values[5]).toBe(1);
    expect(out.every((p) => p.progress >= 0 && p.progress <= 1)).toBe(true);
    expect(out[1]!.text).toBe(FETCH(10, 0.5));
  });

  it("a cached model starts at the compile slice", () => {
    const m = new ProgressMapper();
    const p = m.map({
      progress: 0.5,
      text: "Loading model from cache[10/20]: 400MB loaded. 50% completed, 1 secs elapsed.",
    });
    expect(p.phase).toBe("compile");
    expect(p.progress).toBeCloseTo(0.775);
  });
});
