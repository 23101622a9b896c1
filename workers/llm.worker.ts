// The llm worker: web-llm's WebWorkerMLCEngineHandler, loaded lazily. The page talks to it with
// web-llm's own client (CreateWebWorkerMLCEngine); we add only "edge.*" status messages.
//
// Order matters: the message handler is installed synchronously, before any await (a module
// worker that awaits first loses the messages that arrive meanwhile); messages that arrive
// before web-llm is imported are queued and replayed.
import type { WebWorkerMLCEngineHandler } from "@mlc-ai/web-llm";
import type { LlmWorkerMessage } from "../src/engines/protocol.ts";
import { probeWebGPU } from "../src/engines/webgpu.ts";

interface WorkerScope {
  onmessage: ((ev: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
}
const scope = globalThis as unknown as WorkerScope;

const queued: MessageEvent[] = [];
let handler: WebWorkerMLCEngineHandler | undefined;

scope.onmessage = (ev: MessageEvent) => {
  if (handler) handler.onmessage(ev);
  else queued.push(ev);
};

function send(message: LlmWorkerMessage): void {
  scope.postMessage(message);
}

async function start(): Promise<void> {
  // Probe where web-llm will run: this adapter is the one that counts.
  send({ kind: "edge.hello", probe: await probeWebGPU() });
  try {
    const webllm = await import("@mlc-ai/web-llm");
    handler = new webllm.WebWorkerMLCEngineHandler();
  } catch (e) {
    send({ kind: "edge.fatal", message: `Loading web-llm in the worker failed: ${String(e)}` });
    return;
  }
  for (const ev of queued.splice(0)) handler.onmessage(ev);
  send({ kind: "edge.ready" });
}

void start();
