// The <edge-chat> element's runs, a lit reactive controller: one thing at a time (a question, a
// model file's load) in the order asked; the one running is busy (the Stop button aborts its
// signal, as does the element leaving the page) and shows its model's load progress.
import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from "lit";
import type { LoadProgress } from "../engines/engine.ts";

export class Runs implements ReactiveController {
  /** Something runs (Send becomes Stop). */
  busy = false;
  /** The model's load, while it loads. */
  private progress: LoadProgress | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private controller: AbortController | undefined;

  constructor(private readonly host: ReactiveControllerHost) {}

  hostDisconnected(): void {
    this.stop();
  }

  /** Runs `job` after any run in progress. */
  enqueue<T>(job: () => Promise<T> | T): Promise<T> {
    const next = this.queue.then(job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Stop the run in progress (its signal aborts). */
  stop(): void {
    this.controller?.abort();
  }

  /** The model's load progress (null once ready). */
  readonly onProgress = (p: LoadProgress): void => {
    this.progress = p.phase === "ready" ? null : p;
    this.host.requestUpdate();
  };

  /** Runs `job` busy, with a signal Stop aborts; the progress bar is gone when it ends. */
  async work<T>(job: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.busy = true;
    const controller = new AbortController();
    this.controller = controller;
    this.host.requestUpdate();
    try {
      return await job(controller.signal);
    } finally {
      this.progress = null;
      this.busy = false;
      if (this.controller === controller) this.controller = undefined;
      this.host.requestUpdate();
    }
  }

  renderProgress(): TemplateResult | typeof nothing {
    return this.progress
      ? html`<div part="progress">
              <progress max="1" .value=${this.progress.progress} aria-label="Loading the model"></progress>
              <span class="muted">${this.progress.text}</span>
            </div>`
      : nothing;
  }
}
