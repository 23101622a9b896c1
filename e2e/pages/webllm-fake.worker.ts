// Test-only llm worker for e2e/webllm.spec.ts: Edge's real worker code (workers/llm-worker-core.ts)
// with web-llm's real WebWorkerMLCEngineHandler, whose MLCEngine is the fake model of
// test/engines/webllm-fake.ts (web-llm's own error classes come from its source, imported as text).
// Only the GPU is missing here, so the probe reports a GPU and the model replays a script. The page
// sends one "fake.config" message first (a worker created through Vite takes no dynamic options).
import webllmSource from "@mlc-ai/web-llm/lib/index.js?raw";
import { startLlmWorker, type LlmWorkerScope } from "../../workers/llm-worker-core.ts";
import { webllmErrors } from "../../test/engines/webllm-classes.ts";
import { FAKE_GPU, FakeMLCEngine, handlerWith } from "../../test/engines/webllm-fake.ts";

export interface FakeWorkerConfig {
  kind: "fake.config";
  /** context_window_size of the fake model's config (the page's chatOptions can override it). */
  configContextWindow?: number;
  /** Throw an uncaught error in the worker at this decode step (the worker dies mid-stream). */
  crashAtStep?: number;
  tokenDelayMs?: number;
}

/** The fake model: asks for the report tool, then summarizes its result; plain prompts get echoes. */
function reply(messages: readonly { role: string; content: string }[]): string {
  const last = messages.at(-1)!.content;
  if (last.startsWith("Result of report:"))
    return `Here is the summary of ${(last.match(/"id":/g) ?? []).length} rows.`;
  if (last.startsWith("Report")) return JSON.stringify({ tool_name: "report", arguments: { kb: 20 } });
  return `You said: ${last.slice(0, 40)}. ${"More words follow here. ".repeat(40)}`;
}

const scope: LlmWorkerScope = globalThis;
scope.onmessage = (ev: MessageEvent<FakeWorkerConfig>) => {
  const config = ev.data;
  const engine = new FakeMLCEngine({
    script: (messages) => reply(messages),
    errors: webllmErrors(webllmSource),
    ...(config.configContextWindow ? { configContextWindow: config.configContextWindow } : {}),
    tokenDelayMs: config.tokenDelayMs ?? 0,
    onDecode: (_text, step) => {
      if (step === config.crashAtStep) {
        setTimeout(() => {
          throw new Error("fake worker crash (test)");
        });
      }
    },
  });
  startLlmWorker(scope, { probe: async () => FAKE_GPU, createHandler: async () => handlerWith(engine) });
};
