// The llm worker: web-llm's WebWorkerMLCEngineHandler, loaded lazily. The page talks to it with
// web-llm's own client (CreateWebWorkerMLCEngine); we add only "edge.*" messages (the WebGPU probe,
// a lost GPU device, token counts). What the worker does is in llm-worker-core.ts.
import { watchDeviceLoss } from "../src/engines/device-loss.ts";
import { platformGpu, probeWebGPU } from "../src/engines/webgpu.ts";
import { startLlmWorker } from "./llm-worker-core.ts";

startLlmWorker(globalThis, {
  probe: () => probeWebGPU(),
  watchDevices: (onLost) => watchDeviceLoss(platformGpu(), onLost),
  createHandler: async () => {
    const webllm = await import("@mlc-ai/web-llm");
    return new webllm.WebWorkerMLCEngineHandler();
  },
});
