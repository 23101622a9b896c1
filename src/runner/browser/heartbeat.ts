// Is the sandbox frame still there? Chromium runs the sandboxed frame in its own renderer
// process; when tool code exhausts that process's memory the whole process dies, and nothing in
// the page says so (no event on the iframe, no `close` on the MessagePort in Chromium 156). So
// the page pings the frame's control port and counts silence.
//
// One ping is outstanding at a time. The frame counts as lost when a ping has gone unanswered
// for `timeoutMs` AND for at least as many of our own ticks as fit in `timeoutMs`: a page that
// was suspended or busy (a long task, a hidden tab's throttled timers, a laptop asleep) runs its
// ticks late, and the pong may be sitting in its queue. Counting ticks gives the page's event
// loop those turns to deliver it before anyone is declared dead.

export interface HeartbeatOptions {
  /** Time between ticks (default 500 ms). */
  intervalMs?: number;
  /** Silence after which the frame counts as lost (default 5 000 ms). */
  timeoutMs?: number;
  ping(seq: number): void;
  onLost(silentMs: number): void;
  now?: () => number;
}

// The slowest answer measured in the browser tests was 1.7 s, with six engineers' test runs
// sharing two cores (e2e/faults.spec.ts: a tool growing its wasm heap to 4 GB, the frame's main
// thread copying the 31 MB memory snapshot into every worker it starts). A wrong verdict fails
// every call running in the frame, so the margin is wide: a frame lost for real is noticed
// 5.0–5.5 s after it stopped answering.
const DEFAULT_HEARTBEAT_MS = 500;
const DEFAULT_HEARTBEAT_TIMEOUT_MS = 5_000;

export class Heartbeat {
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly ticksNeeded: number;
  private readonly now: () => number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private seq = 0;
  private sentAt: number | undefined;
  private ticksWaiting = 0;
  /** The slowest answer seen so far (ms), for the numbers in docs/security.md. */
  slowestPongMs = 0;

  constructor(private readonly options: HeartbeatOptions) {
    this.intervalMs = options.intervalMs ?? DEFAULT_HEARTBEAT_MS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS;
    this.ticksNeeded = Math.max(1, Math.ceil(this.timeoutMs / this.intervalMs));
    this.now = options.now ?? (() => performance.now());
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.sentAt = undefined;
  }

  /** The frame answered ping `seq`. */
  pong(seq: number): void {
    if (seq !== this.seq || this.sentAt === undefined) return;
    this.slowestPongMs = Math.max(this.slowestPongMs, this.now() - this.sentAt);
    this.sentAt = undefined;
  }

  private tick(): void {
    const t = this.now();
    if (this.sentAt === undefined) {
      this.sentAt = t;
      this.ticksWaiting = 0;
      this.options.ping(++this.seq);
      return;
    }
    this.ticksWaiting++;
    const silent = t - this.sentAt;
    if (silent >= this.timeoutMs && this.ticksWaiting >= this.ticksNeeded) {
      this.stop();
      this.options.onLost(silent);
    }
  }
}
