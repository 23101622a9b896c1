// What the llm worker does, apart from where it gets its parts: workers/llm.worker.ts passes the
// real WebGPU probe and web-llm's WebWorkerMLCEngineHandler; tests pass the same handler class with
// a fake MLCEngine inside (test/engines/), so this code runs unchanged under test.
//
// Order matters: the message handler is installed synchronously, before any await (a module
// worker that awaits first loses the messages that arrive meanwhile); messages that arrive before
// web-llm is imported are queued and replayed. "edge.*" requests are Edge's own and never reach
// web-llm's handler (it throws on kinds it does not know).
import { isLlmPageRequest, type LlmPageRequest, type LlmWorkerMessage } from "../src/engines/protocol.ts";
import type { WebGPUProbe } from "../src/engines/webgpu.ts";

export interface LlmWorkerScope {
  onmessage: ((ev: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
}

/** The part of web-llm's WebWorkerMLCEngineHandler this worker uses. */
export interface LlmHandler {
  onmessage(event: MessageEvent): void;
  postMessage(message: unknown): void;
  /** web-llm's MLCEngine (or a fake of it): read only to reach the loaded model's tokenizer. */
  readonly engine: unknown;
}

export interface LlmWorkerParts {
  probe(): Promise<WebGPUProbe>;
  /** Import web-llm and create its handler (called once, after the probe). */
  createHandler(): Promise<LlmHandler>;
  /** Start watching GPU devices for loss (before web-llm requests one). */
  watchDevices?(onLost: (reason: string, message: string) => void): void;
}

/**
 * Content token counts with the loaded model's own tokenizer. web-llm keeps it on the pipeline of
 * each loaded model (MLCEngine.loadedModelIdToPipeline → LLMChatPipeline.tokenizer); neither is
 * public API, so the shape is checked and a missing piece is reported instead of guessed
 * (test/engines checks these names against the installed web-llm source).
 */
export function countContentTokens(engine: unknown, modelId: string, texts: readonly string[]): number[] {
  const pipelines = (engine as { loadedModelIdToPipeline?: unknown } | null)?.loadedModelIdToPipeline;
  if (!(pipelines instanceof Map)) throw new Error("web-llm's engine has no loadedModelIdToPipeline map");
  const tokenizer = (pipelines.get(modelId) as { tokenizer?: { encode?: unknown } } | undefined)?.tokenizer;
  if (!tokenizer || typeof tokenizer.encode !== "function")
    throw new Error(`no tokenizer for the loaded model ${modelId}`);
  const encode = tokenizer.encode as (text: string) => ArrayLike<number>;
  return texts.map((t) => encode.call(tokenizer, t).length);
}

/** The loaded model's context window (MLCEngine.loadedModelIdToChatConfig: mlc-chat-config.json
 *  merged with the record's overrides and the chat options); undefined for a sliding window. */
export function loadedContextWindow(engine: unknown, modelId: string): number | undefined {
  const configs = (engine as { loadedModelIdToChatConfig?: unknown } | null)?.loadedModelIdToChatConfig;
  if (!(configs instanceof Map)) return undefined;
  const size = (configs.get(modelId) as { context_window_size?: unknown } | undefined)?.context_window_size;
  return typeof size === "number" && size > 0 ? size : undefined;
}

export function startLlmWorker(scope: LlmWorkerScope, parts: LlmWorkerParts): void {
  const queued: MessageEvent[] = [];
  let handler: LlmHandler | undefined;
  const send = (message: LlmWorkerMessage): void => scope.postMessage(message);

  const answer = (request: LlmPageRequest): void => {
    try {
      if (!handler) throw new Error("web-llm is not loaded in the worker yet");
      const counts = countContentTokens(handler.engine, request.modelId, request.texts);
      const contextWindow = loadedContextWindow(handler.engine, request.modelId);
      send({ kind: "edge.tokens", id: request.id, counts, ...(contextWindow ? { contextWindow } : {}) });
    } catch (e) {
      send({ kind: "edge.tokens", id: request.id, error: e instanceof Error ? e.message : String(e) });
    }
  };

  scope.onmessage = (ev: MessageEvent) => {
    if (isLlmPageRequest(ev.data)) answer(ev.data);
    else if (handler) handler.onmessage(ev);
    else queued.push(ev);
  };

  void (async () => {
    // Probe where web-llm will run: this adapter is the one that counts.
    send({ kind: "edge.hello", probe: await parts.probe() });
    parts.watchDevices?.((reason, message) => send({ kind: "edge.lost", reason, message }));
    try {
      handler = await parts.createHandler();
    } catch (e) {
      send({ kind: "edge.fatal", message: `Loading web-llm in the worker failed: ${String(e)}` });
      return;
    }
    // web-llm's handler posts through the worker global; route it through the given scope.
    handler.postMessage = (message: unknown) => scope.postMessage(message);
    for (const ev of queued.splice(0)) handler.onmessage(ev);
    send({ kind: "edge.ready" });
  })();
}
