// The background warm's controller: progress as statuses, a new session cancels the old warm, a tab
// hidden long enough pauses it and showing the tab goes on, failures are shown, not thrown.
import { afterEach, describe, expect, it, vi } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import type { WarmOptions } from "../engines/engine.ts";
import type { ChatSession } from "./types.ts";
import { StartWarmer, warmStatusText, type WarmStatus } from "./warm-start.ts";

interface Pending {
  options: WarmOptions | undefined;
  resolve(v: { tokens: number; evaluated: number }): void;
  reject(e: unknown): void;
}

/** A session whose warms wait for the test to settle them. */
function fakeSession(): { session: ChatSession; warms: Pending[] } {
  const warms: Pending[] = [];
  const warm = (options?: WarmOptions) =>
    new Promise<{ tokens: number; evaluated: number }>((resolve, reject) => {
      warms.push({ options, resolve, reject });
      options?.signal?.addEventListener("abort", () => reject(new EdgeError("aborted")));
    });
  return { session: { warm } as ChatSession, warms };
}

function fakeDocument() {
  const listeners = new Set<() => void>();
  return {
    visibilityState: "visible",
    addEventListener: (_: "visibilitychange", l: () => void) => void listeners.add(l),
    removeEventListener: (_: "visibilitychange", l: () => void) => void listeners.delete(l),
    set(state: "visible" | "hidden") {
      this.visibilityState = state;
      for (const l of listeners) l();
    },
  };
}

const flush = () => new Promise((r) => setImmediate(r));

afterEach(() => vi.useRealTimers());

describe("StartWarmer", () => {
  it("reports progress, then ready with the start's size", async () => {
    const seen: WarmStatus[] = [];
    const { session, warms } = fakeSession();
    new StartWarmer((s) => seen.push(s)).begin(session);
    warms[0]!.options!.onProgress!({ processed: 128, total: 320 });
    warms[0]!.resolve({ tokens: 330, evaluated: 320 });
    await flush();
    expect(seen.map((s) => s.state)).toEqual(["warming", "warming", "ready"]);
    expect(seen[1]).toEqual({ state: "warming", processed: 128, total: 320 });
    expect(seen[2]).toMatchObject({ state: "ready", tokens: 330, evaluated: 320 });
    expect(warmStatusText(seen[1]!, 5)).toBe("Reading your 5 tools… 40 % You can type your question meanwhile.");
  });

  it("a new session cancels the old warm; the old one's late reports are dropped", async () => {
    const seen: WarmStatus[] = [];
    const a = fakeSession();
    const b = fakeSession();
    const warmer = new StartWarmer((s) => seen.push(s));
    warmer.begin(a.session);
    warmer.begin(b.session);
    expect(a.warms[0]!.options!.signal!.aborted).toBe(true);
    a.warms[0]!.options!.onProgress!({ processed: 1, total: 2 });
    b.warms[0]!.resolve({ tokens: 10, evaluated: 10 });
    await flush();
    expect(seen.map((s) => s.state)).toEqual(["warming", "warming", "ready"]);
  });

  it("hidden for HIDDEN_PAUSE_MS pauses the warm; shown again, it goes on", async () => {
    vi.useFakeTimers();
    const seen: WarmStatus[] = [];
    const doc = fakeDocument();
    const { session, warms } = fakeSession();
    new StartWarmer((s) => seen.push(s), doc, 1000).begin(session);
    doc.set("hidden");
    vi.advanceTimersByTime(999);
    expect(warms[0]!.options!.signal!.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(warms[0]!.options!.signal!.aborted).toBe(true);
    expect(seen.at(-1)).toEqual({ state: "paused" });
    doc.set("visible");
    expect(warms).toHaveLength(2);
    warms[1]!.resolve({ tokens: 10, evaluated: 4 });
    await vi.runAllTimersAsync();
    expect(seen.at(-1)).toMatchObject({ state: "ready", evaluated: 4 });
  });

  it("a short hide changes nothing; a finished warm is never paused", async () => {
    vi.useFakeTimers();
    const doc = fakeDocument();
    const { session, warms } = fakeSession();
    new StartWarmer(() => undefined, doc, 1000).begin(session);
    doc.set("hidden");
    vi.advanceTimersByTime(500);
    doc.set("visible");
    vi.advanceTimersByTime(5000);
    expect(warms[0]!.options!.signal!.aborted).toBe(false);
    warms[0]!.resolve({ tokens: 10, evaluated: 10 });
    await vi.runAllTimersAsync();
    doc.set("hidden");
    vi.advanceTimersByTime(5000);
    expect(warms[0]!.options!.signal!.aborted).toBe(false);
  });

  it("a failed warm is a status with the error, and the first question reads the tools itself", async () => {
    const seen: WarmStatus[] = [];
    const { session, warms } = fakeSession();
    new StartWarmer((s) => seen.push(s)).begin(session);
    warms[0]!.reject(new EdgeError("context_window_exceeded", {}, "The tools do not fit."));
    await flush();
    expect(seen.at(-1)).toMatchObject({ state: "failed", error: { code: "context_window_exceeded" } });
    expect(warmStatusText(seen.at(-1)!, 1)).toBe(
      "The model could not read your tool ahead (The tools do not fit.); your first question will read it.",
    );
  });

  it("an engine without a prompt cache: nothing shown", async () => {
    const seen: WarmStatus[] = [];
    new StartWarmer((s) => seen.push(s)).begin({ warm: async () => null } as ChatSession);
    await flush();
    expect(seen.at(-1)).toEqual({ state: "idle" });
    expect(warmStatusText({ state: "idle" }, 3)).toBe("");
  });
});
