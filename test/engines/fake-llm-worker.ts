// The llm worker in-process (Node): Edge's real worker code (workers/llm-worker-core.ts) with
// web-llm's real WebWorkerMLCEngineHandler, whose MLCEngine is the fake. Messages cross as they do
// between a page and a worker — structured-cloned, asynchronously, as MessageEvents — so what
// WebLLMEngine does over postMessage is exercised unchanged. `crash()` ends the worker like an
// uncaught error does (an error event on the page side, then silence); `loseDevice()` reports a
// lost GPU device the way the real worker does.
import type { WebGPUProbe } from "../../src/engines/webgpu.ts";
import { startLlmWorker } from "../../workers/llm-worker-core.ts";
import { FAKE_GPU, FakeMLCEngine, handlerWith, type FakeMLCEngineOptions } from "./webllm-fake.ts";

export interface FakeLlmWorker {
  /** What WebLLMEngine's createWorker returns. */
  worker: Worker;
  /** The fake MLCEngine inside web-llm's handler. */
  engine: FakeMLCEngine;
  /** Whether terminate() was called. */
  readonly terminated: boolean;
  crash(message: string): void;
  loseDevice(message: string): void;
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

export function fakeLlmWorker(options: FakeMLCEngineOptions & { probe?: WebGPUProbe }): FakeLlmWorker {
  const engine = new FakeMLCEngine(options);
  let dead = false;
  let terminated = false;
  let reportLoss: ((reason: string, message: string) => void) | undefined;
  const page = {
    onmessage: null as ((ev: MessageEvent) => void) | null,
    onerror: null as ((ev: ErrorEvent) => void) | null,
    postMessage(message: unknown) {
      if (dead) return;
      const data = structuredClone(message);
      void tick().then(() => !dead && scope.onmessage?.(new MessageEvent("message", { data })));
    },
    terminate() {
      dead = true;
      terminated = true;
    },
  };
  const scope = {
    onmessage: null as ((ev: MessageEvent) => void) | null,
    postMessage(message: unknown) {
      if (dead) return;
      const data = structuredClone(message);
      void tick().then(() => !dead && page.onmessage?.(new MessageEvent("message", { data })));
    },
  };
  startLlmWorker(scope, {
    probe: async () => options.probe ?? FAKE_GPU,
    watchDevices: (onLost) => {
      reportLoss = onLost;
    },
    createHandler: async () => handlerWith(engine),
  });
  return {
    worker: page as Worker,
    engine,
    get terminated() {
      return terminated;
    },
    crash(message) {
      dead = true;
      page.onerror?.({ message, preventDefault() {} } as ErrorEvent);
    },
    loseDevice(message) {
      reportLoss?.("unknown", message);
    },
  };
}
