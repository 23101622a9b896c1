// Warming a session's conversation start in the background (ChatSession.warm), for the front doors
// that hold a loaded model before the first question (the playground, the PWA, the widget): the
// tools are frozen and the contract is known the moment the session exists, so the engine evaluates
// it while the person is still typing. One warm at a time: a new session cancels the old one's; a
// tab hidden for HIDDEN_PAUSE_MS pauses it (what was evaluated stays in the cache) and showing the
// tab again goes on from there. A question asked meanwhile never waits on this controller: the
// engine runs it after the warm and reuses what the warm evaluated.
import { toErrorJson, type ErrorJson } from "../contract/errors.ts";
import type { ChatSession } from "./types.ts";

export type WarmStatus =
  /** Evaluating: `processed` of the `total` tokens the cache lacked (0 of 0 before the first report). */
  | { state: "warming"; processed: number; total: number }
  /** The start is in the cache: its tokens, how many this warm evaluated, how long it took. */
  | { state: "ready"; tokens: number; evaluated: number; ms: number }
  /** The tab was hidden: stopped between batches, goes on when it is shown again. */
  | { state: "paused" }
  | { state: "failed"; error: ErrorJson }
  /** Nothing to warm (no tools, or an engine without a prompt cache) or nothing running. */
  | { state: "idle" };

/** How long a hidden tab keeps warming: Firefox starts throttling background tabs after 30 s, and
 *  phones may freeze a hidden tab's work at any time after that; a warm is cheap to resume. */
const HIDDEN_PAUSE_MS = 30_000;

/** The slice of `document` the warmer watches (visibility), so it can run without a DOM in tests. */
export interface VisibilitySource {
  readonly visibilityState: string;
  addEventListener(type: "visibilitychange", listener: () => void): void;
  removeEventListener(type: "visibilitychange", listener: () => void): void;
}

export class StartWarmer {
  private session: ChatSession | null = null;
  private controller: AbortController | undefined;
  private ready = false;
  private hiddenTimer: ReturnType<typeof setTimeout> | undefined;
  private paused = false;
  private readonly onVisibility = () => this.visibilityChanged();

  constructor(
    private readonly onStatus: (status: WarmStatus) => void,
    private readonly visibility?: VisibilitySource,
    private readonly hiddenPauseMs = HIDDEN_PAUSE_MS,
  ) {
    visibility?.addEventListener("visibilitychange", this.onVisibility);
  }

  /** Warm this session's start (null: none), cancelling the previous session's warm. */
  begin(session: ChatSession | null): void {
    this.controller?.abort();
    this.session = session;
    this.ready = false;
    this.paused = false;
    if (!session) return this.onStatus({ state: "idle" });
    if (this.visibility?.visibilityState === "hidden") this.visibilityChanged();
    void this.run(session);
  }

  /** Stop watching and cancel what runs (the page or widget is going away). */
  stop(): void {
    this.controller?.abort();
    this.session = null;
    clearTimeout(this.hiddenTimer);
    this.visibility?.removeEventListener("visibilitychange", this.onVisibility);
  }

  private async run(session: ChatSession): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    const started = performance.now();
    const current = () => this.session === session && this.controller === controller && !controller.signal.aborted;
    this.onStatus({ state: "warming", processed: 0, total: 0 });
    try {
      const warm = await session.warm({
        signal: controller.signal,
        onProgress: (p) => current() && this.onStatus({ state: "warming", ...p }),
      });
      if (!current()) return;
      this.ready = true;
      this.onStatus(
        warm
          ? {
              state: "ready",
              tokens: warm.tokens,
              evaluated: warm.evaluated,
              ms: Math.round(performance.now() - started),
            }
          : { state: "idle" },
      );
    } catch (e) {
      if (current()) this.onStatus({ state: "failed", error: toErrorJson(e) });
    }
  }

  private visibilityChanged(): void {
    clearTimeout(this.hiddenTimer);
    if (this.visibility?.visibilityState === "hidden") {
      this.hiddenTimer = setTimeout(() => this.pause(), this.hiddenPauseMs);
      return;
    }
    if (this.paused && this.session) {
      this.paused = false;
      void this.run(this.session);
    }
  }

  private pause(): void {
    if (this.ready || !this.session || !this.controller) return;
    this.paused = true;
    this.controller.abort();
    this.onStatus({ state: "paused" });
  }
}

/** What the person reads while and after the start is warmed ("Reading your 5 tools… 40 %"). */
export function warmStatusText(status: WarmStatus, tools: number): string {
  const what = tools === 1 ? "your tool" : `your ${tools} tools`;
  switch (status.state) {
    case "warming": {
      const pct = status.total > 0 ? ` ${Math.floor((100 * status.processed) / status.total)} %` : "";
      return `Reading ${what}…${pct} You can type your question meanwhile.`;
    }
    case "ready":
      return status.evaluated > 0
        ? `Ready: the model has read ${what} (${status.tokens} tokens in ${(status.ms / 1000).toFixed(1)} s).`
        : `Ready: the model has read ${what}.`;
    case "paused":
      return `Reading ${what} paused while this tab is hidden; it goes on when you come back.`;
    case "failed":
      return `The model could not read ${what} ahead (${status.error.message}); your first question will read ${tools === 1 ? "it" : "them"}.`;
    case "idle":
      return "";
  }
}
