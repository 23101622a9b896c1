// Switching models in the playground (src/app/engine-switch.ts) with two real WebLLMEngines over
// the fake MLCEngine: the first model is unloaded and its worker ended before the second worker
// even starts, so two models never share GPU memory.
import { describe, expect, it } from "vitest";
import { switchEngine } from "../../src/app/engine-switch.ts";
import { ScriptedEngine } from "../../src/engines/scripted.ts";
import { WebLLMEngine } from "../../src/engines/webllm.ts";
import { fakeLlmWorker, type FakeLlmWorker } from "./fake-llm-worker.ts";
import { QWEN25, QWEN3 } from "./webllm-adapter.ts";
import { nodeWebllmErrors } from "./webllm-source.ts";

describe("switching models", () => {
  it("frees the previous model (unload, worker ended) before the next one starts; the demo engine is kept", async () => {
    const events: string[] = [];
    const workers: FakeLlmWorker[] = [];
    const make = (modelId: string) =>
      new WebLLMEngine({
        modelId,
        createWorker: () => {
          events.push(`start worker for ${modelId} (previous ended: ${workers.every((w) => w.terminated)})`);
          const w = fakeLlmWorker({ script: ["hi"], errors: nodeWebllmErrors() });
          workers.push(w);
          return w.worker;
        },
      });
    const demo = new ScriptedEngine(["demo"]);
    await demo.load();
    const first = await switchEngine({ previous: demo, keep: demo, create: () => make(QWEN25), load: (e) => e.load() });
    const second = await switchEngine({
      previous: first,
      keep: demo,
      create: () => make(QWEN3),
      load: (e) => e.load(),
      onFreed: (p) => events.push(`freed ${p.info().modelId}`),
    });
    expect(events).toEqual([
      `start worker for ${QWEN25} (previous ended: true)`,
      `freed ${QWEN25}`,
      `start worker for ${QWEN3} (previous ended: true)`,
    ]);
    expect(workers[0]!.engine.unloads).toBe(1);
    expect(first.loaded).toBe(false);
    expect(second.loaded).toBe(true);
    expect((await demo.chat({ messages: [{ role: "user", content: "q" }] })).text).toBe("demo");
  });

  it("a next model that fails to load is unloaded too: nothing is left running", async () => {
    let worker: FakeLlmWorker | undefined;
    const failing = new WebLLMEngine({
      modelId: QWEN25,
      createWorker: () => {
        worker = fakeLlmWorker({ script: [], errors: nodeWebllmErrors(), gpu: false });
        return worker.worker;
      },
    });
    await expect(switchEngine({ previous: null, create: () => failing, load: (e) => e.load() })).rejects.toMatchObject({
      code: "webgpu_unavailable",
    });
    expect(worker!.terminated).toBe(true);
  });
});
