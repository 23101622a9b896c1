// ScriptedEngine: replays the model's outputs from a script. No model runs. It is how the tool
// loop is tested, and it is offered in the UI only as "Scripted demo (no model)". It keeps the
// real engine's contract where a loop could notice: load before chat, the same message rules,
// streaming in small chunks, abort, and coded errors.
import { EdgeError, fixOf } from "../contract/errors.ts";
import {
  abortedError,
  loadAbortedError,
  validateMessages,
  type ChatMessage,
  type ChatRequest,
  type ChatResult,
  type Engine,
  type EngineInfo,
  type ProgressListener,
  type ResponseFormat,
} from "./engine.ts";

/** Either the successive outputs, or a function of the conversation (turn = 0-based call index).
 *  A function returns `undefined` when it has nothing more to say (→ script_exhausted). */
export type Script =
  | readonly string[]
  | ((messages: readonly ChatMessage[], turn: number) => string | undefined | Promise<string | undefined>);

export interface ScriptedEngineOptions {
  /** Characters per streamed chunk (default 4). */
  chunkSize?: number;
  /** Delay between chunks in ms (default 0: yields to the event loop only). */
  chunkDelayMs?: number;
  /** Model id reported by info() (default "scripted-demo"). */
  modelId?: string;
  /** A context window to report in info(), so the loop's window management can be exercised
   *  (the loop then counts with its byte-based estimate: this engine has no tokenizer). */
  contextWindow?: number;
}

/** One chat() call as the engine received it (lets tests assert what the model was told). */
export interface ScriptedCall {
  messages: ChatMessage[];
  responseFormat?: ResponseFormat;
  maxTokens?: number;
  temperature?: number;
}

export const SCRIPTED_LABEL = "Scripted demo (no model)";

/** Wait `ms`, or with 0 just yield one macrotask (setTimeout(0) is clamped to ≥1 ms, which makes
 *  long scripted runs needlessly slow). */
function pause(ms: number): Promise<void> {
  if (ms > 0) return new Promise((resolve) => setTimeout(resolve, ms));
  const immediate = (globalThis as { setImmediate?: (cb: () => void) => unknown }).setImmediate;
  if (immediate) return new Promise((resolve) => void immediate(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

export class ScriptedEngine implements Engine {
  readonly calls: ScriptedCall[] = [];
  private loaded = false;
  private turn = 0;
  private current: AbortController | undefined;
  private readonly chunkSize: number;
  private readonly chunkDelayMs: number;
  private readonly modelId: string;
  private readonly contextWindow: number | undefined;

  constructor(
    private readonly script: Script,
    options: ScriptedEngineOptions = {},
  ) {
    this.chunkSize = Math.max(1, Math.floor(options.chunkSize ?? 4));
    this.chunkDelayMs = Math.max(0, options.chunkDelayMs ?? 0);
    this.modelId = options.modelId ?? "scripted-demo";
    this.contextWindow = options.contextWindow;
  }

  info(): EngineInfo {
    return {
      kind: "scripted",
      modelId: this.modelId,
      label: SCRIPTED_LABEL,
      ...(this.contextWindow ? { contextWindow: this.contextWindow } : {}),
    };
  }

  async load(onProgress?: ProgressListener, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw loadAbortedError();
    this.loaded = true;
    onProgress?.({ progress: 1, text: "Scripted demo ready (no model is loaded).", phase: "ready" });
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    if (!this.loaded) throw new EdgeError("engine_not_loaded");
    validateMessages(request.messages);
    if (this.current) {
      throw new EdgeError(
        "generation_failed",
        {},
        "A generation is already running on this engine; await it or abort() it first, then try again.",
      );
    }
    const controller = new AbortController();
    this.current = controller;
    const onOuterAbort = () => controller.abort();
    request.signal?.addEventListener("abort", onOuterAbort, { once: true });
    try {
      if (request.signal?.aborted) throw abortedError();
      const turn = this.turn++;
      this.calls.push({
        messages: request.messages.map((m) => ({ ...m })),
        responseFormat: request.responseFormat,
        maxTokens: request.maxTokens,
        temperature: request.temperature,
      });
      const output = await this.next(request.messages, turn);
      let text = "";
      for (let i = 0; i < output.length; i += this.chunkSize) {
        // Yield between chunks so abort() and the caller's UI get a chance to run.
        await pause(this.chunkDelayMs);
        if (controller.signal.aborted) throw abortedError({ partialText: text });
        const delta = output.slice(i, i + this.chunkSize);
        text += delta;
        request.onToken?.(delta);
      }
      if (controller.signal.aborted) throw abortedError({ partialText: text });
      return { text, finishReason: "stop" };
    } finally {
      request.signal?.removeEventListener("abort", onOuterAbort);
      this.current = undefined;
    }
  }

  abort(): void {
    this.current?.abort();
  }

  async unload(): Promise<void> {
    this.abort();
    this.loaded = false;
  }

  /** How many scripted outputs have been consumed. */
  get turnsUsed(): number {
    return this.turn;
  }

  private async next(messages: readonly ChatMessage[], turn: number): Promise<string> {
    let out: string | undefined;
    if (typeof this.script === "function") {
      out = await this.script(messages, turn);
    } else {
      out = this.script[turn];
    }
    if (typeof out !== "string") {
      const scripted = typeof this.script === "function" ? undefined : this.script.length;
      throw new EdgeError(
        "script_exhausted",
        { turn, scripted },
        scripted === undefined
          ? `The scripted demo engine's script returned nothing for turn ${turn + 1}; it only replays its script (no model runs). ${fixOf("script_exhausted")}`
          : `The scripted demo engine has ${scripted} scripted output(s) and was asked for turn ${turn + 1}; it only replays its script (no model runs). ${fixOf("script_exhausted")}`,
      );
    }
    return out;
  }
}
