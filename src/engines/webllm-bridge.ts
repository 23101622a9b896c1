// The page's end of the llm worker. web-llm's client (WebWorkerMLCEngine) talks through this
// object as if it were the worker; our "edge.*" messages are routed here first. A worker that
// fails while loading is a load failure; once the model is loaded, a worker error or a lost GPU
// device is `engine_lost`: web-llm's client would wait forever for replies that cannot come, so
// the bridge reports it and the engine fails whatever was in flight.
import { EdgeError } from "../contract/errors.ts";
import { isLlmWorkerMessage, type LlmPageRequest, type LlmWorkerMessage } from "./protocol.ts";

type Kind = LlmWorkerMessage["kind"];
type Msg<K extends Kind> = Extract<LlmWorkerMessage, { kind: K }>;
export interface TokenReply {
  counts: number[];
  contextWindow?: number;
}

export class WorkerBridge {
  /** web-llm's WebWorkerMLCEngine assigns this. */
  onmessage: ((ev: MessageEvent) => void) | null = null;
  private readonly waiters = new Map<Kind, Array<(m: LlmWorkerMessage) => void>>();
  private readonly seen = new Map<Kind, LlmWorkerMessage>();
  private pending: ((e: EdgeError) => void)[] = [];
  private readonly counts = new Map<number, { resolve(reply: TokenReply): void; reject(e: Error): void }>();
  private nextId = 1;
  private loaded = false;

  constructor(
    readonly worker: Worker,
    /** Called once when the worker or its GPU device is lost after the model loaded. */
    private readonly onLost: (e: EdgeError) => void,
  ) {
    worker.onmessage = (ev: MessageEvent) => {
      if (isLlmWorkerMessage(ev.data)) this.deliver(ev.data);
      else this.onmessage?.(ev);
    };
    worker.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      const original = ev.message || "worker error event";
      if (this.loaded) this.lose(original, "worker_error");
      else
        this.fail(
          new EdgeError(
            "model_load_failed",
            { original, stage: "worker" },
            `The llm worker failed: ${ev.message || "it could not be started (script failed to load)"}. Reload the page and load the model again.`,
          ),
        );
    };
  }

  postMessage(message: unknown): void {
    this.worker.postMessage(message);
  }

  /** From now on a failing worker means a lost engine, not a failed load. */
  markLoaded(): void {
    this.loaded = true;
  }

  /** Resolve with the first message of this kind (already received or coming). */
  next<K extends Kind>(kind: K): Promise<Msg<K>> {
    return new Promise((resolve, reject) => {
      this.pending.push(reject);
      const got = this.seen.get(kind);
      if (got) return resolve(got as Msg<K>);
      const list = this.waiters.get(kind) ?? [];
      list.push(resolve as (m: LlmWorkerMessage) => void);
      this.waiters.set(kind, list);
    });
  }

  /** Content token counts from the loaded model's tokenizer, in the worker. */
  countTokens(modelId: string, texts: string[]): Promise<TokenReply> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.counts.set(id, { resolve, reject });
      const request: LlmPageRequest = { kind: "edge.countTokens", id, modelId, texts };
      this.worker.postMessage(request);
    });
  }

  /** Reject everything pending (worker error, fatal message, loss or termination). */
  fail(e: EdgeError): void {
    for (const reject of this.pending.splice(0)) reject(e);
    for (const c of this.counts.values()) c.reject(e);
    this.counts.clear();
  }

  private lose(original: string, reason: string): void {
    const e = new EdgeError("engine_lost", { original, reason });
    this.fail(e);
    this.onLost(e);
  }

  private deliver(m: LlmWorkerMessage): void {
    if (m.kind === "edge.fatal") {
      this.fail(new EdgeError("model_load_failed", { original: m.message, stage: "worker" }));
      return;
    }
    if (m.kind === "edge.lost") {
      if (this.loaded) this.lose(m.message, m.reason);
      // While loading, web-llm itself throws DeviceLostError from reload(): a load failure.
      return;
    }
    if (m.kind === "edge.tokens") {
      const waiter = this.counts.get(m.id);
      this.counts.delete(m.id);
      if (m.counts)
        waiter?.resolve({ counts: m.counts, ...(m.contextWindow ? { contextWindow: m.contextWindow } : {}) });
      else
        waiter?.reject(
          new EdgeError(
            "generation_failed",
            { stage: "count_tokens", reason: m.error },
            `The model's worker could not count tokens${m.error ? ` (${m.error})` : ""}; try again, or reload the model.`,
          ),
        );
      return;
    }
    this.seen.set(m.kind, m);
    for (const resolve of this.waiters.get(m.kind)?.splice(0) ?? []) resolve(m);
  }
}
