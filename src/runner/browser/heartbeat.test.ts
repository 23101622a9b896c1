// The sandbox frame's heartbeat (heartbeat.ts): a frame that answers is never lost, a silent one
// is lost within interval + timeout, and a page whose own timers ran late (busy, throttled,
// asleep) gets its turns to read the answer before anyone is declared lost.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Heartbeat } from "./heartbeat.ts";

let clock = 0;
const now = () => clock;

/** Advance fake time in small steps, as a real page would see it. */
async function advance(ms: number, step = 50): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    clock += step;
    await vi.advanceTimersByTimeAsync(step);
  }
}

beforeEach(() => {
  vi.useFakeTimers();
  clock = 0;
});
afterEach(() => vi.useRealTimers());

describe("Heartbeat", () => {
  it("a frame that answers within a few ms is never lost", async () => {
    const lost = vi.fn();
    const beat: Heartbeat = new Heartbeat({
      intervalMs: 500,
      timeoutMs: 2000,
      now,
      ping: (seq) => setTimeout(() => beat.pong(seq), 5),
      onLost: lost,
    });
    beat.start();
    await advance(60_000);
    expect(lost).not.toHaveBeenCalled();
    expect(beat.slowestPongMs).toBeGreaterThan(0);
    expect(beat.slowestPongMs).toBeLessThanOrEqual(50);
    beat.stop();
  });

  it("a frame that goes silent is lost between timeout and interval + timeout, once", async () => {
    const lost = vi.fn();
    let lostAt: number | undefined;
    let answering = true;
    const beat: Heartbeat = new Heartbeat({
      intervalMs: 500,
      timeoutMs: 2000,
      now,
      ping: (seq) => answering && setTimeout(() => beat.pong(seq), 5),
      onLost: (silentMs) => {
        lostAt = clock;
        lost(silentMs);
      },
    });
    beat.start();
    await advance(3000);
    answering = false;
    const diedAt = clock;
    await advance(5000);
    expect(lost).toHaveBeenCalledTimes(1);
    // Reported silence: the timeout (to the tick). Since the death: at most one interval more.
    const silentMs = lost.mock.calls[0]![0] as number;
    expect(silentMs).toBeGreaterThanOrEqual(2000);
    expect(silentMs).toBeLessThanOrEqual(2050);
    expect(lostAt! - diedAt).toBeGreaterThanOrEqual(2000);
    expect(lostAt! - diedAt).toBeLessThanOrEqual(2500 + 50);
  });

  it("a page that was suspended is not mistaken for a lost frame", async () => {
    const lost = vi.fn();
    let delay = 5;
    const beat: Heartbeat = new Heartbeat({
      intervalMs: 500,
      timeoutMs: 2000,
      now,
      ping: (seq) => setTimeout(() => beat.pong(seq), delay),
      onLost: lost,
    });
    beat.start();
    await advance(1000);
    // A ping goes out, then the page sleeps 30 s (no timer, no message runs), and after waking its
    // overdue tick runs before the answer is read (the answer lands 600 ms after the ping).
    delay = 600;
    await advance(500);
    clock += 30_000;
    await advance(5000);
    expect(lost).not.toHaveBeenCalled();
    beat.stop();
  });

  it("stop() ends the pings", async () => {
    const ping = vi.fn();
    const beat = new Heartbeat({ intervalMs: 500, timeoutMs: 2000, now, ping, onLost: vi.fn() });
    beat.start();
    await advance(1100);
    beat.stop();
    const count = ping.mock.calls.length;
    await advance(5000);
    expect(ping.mock.calls.length).toBe(count);
  });
});
