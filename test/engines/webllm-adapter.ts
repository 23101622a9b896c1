// The web-llm engine as a conformance subject: WebLLMEngine (unchanged) over web-llm's real worker
// handler and client, with the fake MLCEngine as the model (fake-llm-worker.ts). Shaped so the
// shared engine conformance suite can take it as one more engine: a name, what it can do, and a
// factory from a script of model replies to a loaded Engine.
import { WebLLMEngine, type WebLLMEngineOptions } from "../../src/engines/webllm.ts";
import type { WebGPUProbe } from "../../src/engines/webgpu.ts";
import { fakeLlmWorker, type FakeLlmWorker } from "./fake-llm-worker.ts";
import type { FakeMLCEngineOptions, FakeScript } from "./webllm-fake.ts";
import { nodeWebllmErrors } from "./webllm-source.ts";

export interface WebLLMSubject {
  engine: WebLLMEngine;
  /** The latest in-process worker: its fake MLCEngine (requests, prefills) and crash/loss switches. */
  readonly fake: FakeLlmWorker;
  /** Every worker the engine started (one per load()). */
  readonly workers: FakeLlmWorker[];
}

export interface WebLLMSubjectOptions {
  /** The fake model's settings (context window in its config, speed, usage chunk, GPU, probe). */
  fake?: Omit<FakeMLCEngineOptions, "script" | "errors"> & { probe?: WebGPUProbe };
  /** WebLLMEngine's options (default model: QWEN25). */
  engine?: Omit<WebLLMEngineOptions, "createWorker">;
  /** Load the model before returning (default true). */
  load?: boolean;
}

/** The default model of a GPU with shader-f16; Qwen3 where a test needs its think block. */
export const QWEN25 = "Qwen2.5-1.5B-Instruct-q4f16_1-MLC";
export const QWEN3 = "Qwen3-1.7B-q4f16_1-MLC";

export async function webllmSubject(script: FakeScript, options: WebLLMSubjectOptions = {}): Promise<WebLLMSubject> {
  const workers: FakeLlmWorker[] = [];
  const createWorker = () => {
    const w = fakeLlmWorker({ script, errors: nodeWebllmErrors(), ...options.fake });
    workers.push(w);
    return w.worker;
  };
  const engine = new WebLLMEngine({ modelId: QWEN25, ...options.engine, createWorker });
  if (options.load !== false) await engine.load();
  return {
    engine,
    workers,
    get fake() {
      const last = workers.at(-1);
      if (!last) throw new Error("no worker started yet (load() first)");
      return last;
    },
  };
}

/** For the shared conformance suite: what this engine reports and supports. */
export const webllmConformance = {
  name: "web-llm (WebLLMEngine over web-llm's worker handler, fake MLCEngine)",
  capabilities: {
    /** usage.promptTokensEvaluated shows the KV-cache reuse of a follow-up. */
    promptCacheCounts: true,
    countTokens: true,
    contextWindow: true,
    /** Emits Qwen3's empty think block with enable_thinking: false. */
    thinkBlock: true,
  },
  create: (script: FakeScript, options?: WebLLMSubjectOptions) => webllmSubject(script, options),
} as const;
