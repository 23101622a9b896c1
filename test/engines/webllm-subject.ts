// The web-llm engine as a subject of the shared conformance suite: WebLLMEngine exactly as shipped,
// over web-llm's own worker handler and client, with the fake MLCEngine replaying the suite's
// replies (webllm-adapter.ts). It replays, so nothing is steered by a grammar; it reports prompt-
// cache counts (the KV-cache reuse web-llm does) and knows its context window.
import { replyText, type EngineSubject } from "./conformance.ts";
import { QWEN25, webllmSubject } from "./webllm-adapter.ts";

export const webllmConformanceSubject: EngineSubject = {
  name: "web-llm (WebLLMEngine over web-llm's worker handler, fake MLCEngine)",
  capabilities: { promptCacheCounts: true, contextWindow: true },
  async create(replies) {
    // A decode step of 1 ms: long replies stream long enough to be aborted.
    return (await webllmSubject(replies.map(replyText), { fake: { tokenDelayMs: 1 } })).engine;
  },
  steer: () => undefined,
  async failingLoad() {
    // No usable GPU in the worker: refused before anything is downloaded.
    const { engine } = await webllmSubject([], {
      load: false,
      fake: { probe: { available: false, reason: "no_adapter", message: "no adapter (conformance)" } },
      engine: { modelId: QWEN25 },
    });
    return { engine, code: "webgpu_unavailable" };
  },
  async smallWindow() {
    // A 128-token window (the prebuilt records set 4096 in their overrides; chatOptions win):
    // less than the tool contract alone.
    return (await webllmSubject(["unused"], { engine: { modelId: QWEN25, chatOptions: { context_window_size: 128 } } }))
      .engine;
  },
};
