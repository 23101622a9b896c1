import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { vi } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import { defineTool } from "./define.ts";
import { createToolRuntime } from "./runtime.ts";
import { timeoutPolicy } from "./timeout-policy.ts";

const params = { type: "object" };

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("timeoutPolicy", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("times out a body that ignores the signal, exactly at its timeoutMs", async () => {
    const rt = createToolRuntime();
    const started = deferred<AbortSignal>();
    rt.register(
      defineTool({
        name: "stubborn",
        description: "",
        parameters: params,
        timeoutMs: 50,
        execute: (_a, ctx) => (started.resolve(ctx.signal), new Promise(() => {})),
      }),
    );
    rt.onAroundDispatch(timeoutPolicy({ defaultMs: 10_000 }));
    let settled = false;
    const pending = rt.execute({ id: "t1", name: "stubborn", args: {} }).finally(() => (settled = true));
    const signal = await started.promise;
    await vi.advanceTimersByTimeAsync(49);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const exec = await pending;
    expect(exec.status).toBe("timeout");
    expect(exec.error).toMatchObject({ code: "tool_timeout", tool: "stubborn" });
    // The body was told, in case it does listen.
    expect(signal.aborted).toBe(true);
    expect((signal.reason as EdgeError).code).toBe("tool_timeout");
    expect(exec.stages?.map((s) => `${s.stage}:${s.outcome}`)).toContain("body:abandoned");
  });

  it("uses the default for tools without timeoutMs", async () => {
    const rt = createToolRuntime();
    rt.register(
      defineTool({ name: "hang", description: "", parameters: params, execute: () => new Promise(() => {}) }),
    );
    rt.onAroundDispatch(timeoutPolicy({ defaultMs: 30 }));
    const pending = rt.execute({ id: "t2", name: "hang", args: {} });
    await vi.advanceTimersByTimeAsync(30);
    expect((await pending).status).toBe("timeout");
  });

  it("a body that finishes in time is ok, and its timer is cleared", async () => {
    const rt = createToolRuntime();
    rt.register(
      defineTool({
        name: "quick",
        description: "",
        parameters: params,
        timeoutMs: 1000,
        execute: () => ({ done: true }),
      }),
    );
    rt.onAroundDispatch(timeoutPolicy());
    const exec = await rt.execute({ id: "t3", name: "quick", args: {} });
    expect(exec).toMatchObject({ status: "ok", result: { done: true } });
    expect(exec.stages?.find((s) => s.stage === "around-dispatch")?.outcome).toBe("replaced-signal");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("with no default and no timeoutMs the signal is left alone", async () => {
    const rt = createToolRuntime();
    rt.register(defineTool({ name: "free", description: "", parameters: params, execute: () => ({}) }));
    rt.onAroundDispatch(timeoutPolicy());
    const exec = await rt.execute({ id: "t4", name: "free", args: {} });
    expect(exec.stages?.find((s) => s.stage === "around-dispatch")?.outcome).toBe("kept-signal");
  });

  it("the caller's abort before the limit is an abort, not a timeout", async () => {
    const rt = createToolRuntime();
    const started = deferred<void>();
    rt.register(
      defineTool({
        name: "hang",
        description: "",
        parameters: params,
        timeoutMs: 100,
        execute: () => (started.resolve(), new Promise(() => {})),
      }),
    );
    rt.onAroundDispatch(timeoutPolicy());
    const controller = new AbortController();
    const pending = rt.execute({ id: "t5", name: "hang", args: {} }, { signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await pending).status).toBe("aborted");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("refuses a bad default", () => {
    expect(() => timeoutPolicy({ defaultMs: -1 })).toThrow(EdgeError);
  });
});
