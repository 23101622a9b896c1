import { describe, expect, it, vi } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import type { JsonObject } from "../contract/types.ts";
import { defineTool } from "./define.ts";
import { createToolRuntime } from "./runtime.ts";
import type { PreDecision, ToolExecution } from "./types.ts";

const params = { type: "object", properties: { n: { type: "integer" } }, additionalProperties: false };
const call = (name = "echo", args: JsonObject = { n: 1 }) => ({ id: "c1", name, args });

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A runtime with one tool whose body records "body" into `log` and returns { n }. */
function setup(extra: Partial<Parameters<typeof defineTool>[0]> = {}) {
  const log: string[] = [];
  const rt = createToolRuntime();
  rt.register(
    defineTool<{ n?: number }>({
      name: "echo",
      description: "",
      parameters: params,
      execute: (args) => {
        log.push("body");
        return { n: args.n ?? 0 };
      },
      ...extra,
    }),
  );
  return { rt, log };
}

describe("stage order", () => {
  it("runs pre-execute → approval → guard → around-dispatch → body → post-execute → finalize → emit", async () => {
    const log: string[] = [];
    const rt = createToolRuntime();
    rt.register(
      defineTool<{ n?: number }, { n: number }>({
        name: "echo",
        description: "",
        parameters: params,
        execute: (args) => (log.push("body"), { n: args.n ?? 0 }),
        finalizeContent: (r) => (log.push("finalize"), { n: r.n * 10 }),
      }),
    );
    rt.onPreExecute(() => (log.push("pre1"), { decision: "allow" }));
    rt.onPreExecute(() => (log.push("pre2"), { decision: "ask", reason: "sure?" }));
    rt.setApprovalHandler(() => (log.push("approval"), { decision: "allow" }));
    rt.onAroundDispatch(() => void log.push("around"));
    rt.onPostExecute(() => (log.push("post1"), { action: "accept" }));
    rt.onPostExecute(() => (log.push("post2"), { action: "accept" }));
    rt.onResult(() => void log.push("emit"));

    const exec = await rt.execute(call("echo", { n: 4 }));
    expect(log).toEqual(["pre1", "pre2", "approval", "around", "body", "post1", "post2", "finalize", "emit"]);
    expect(exec).toMatchObject({ id: "c1", name: "echo", status: "ok", result: { n: 4 }, content: { n: 40 } });
    expect(exec.error).toBeUndefined();
    expect(exec.duration_ms).toBeGreaterThanOrEqual(0);
    expect(exec.stages?.map((s) => `${s.stage}:${s.outcome}`)).toEqual([
      "pre-execute:allow",
      "pre-execute:ask",
      "approval:allow",
      "guard:allow",
      "around-dispatch:kept-signal",
      "body:ok",
      "post-execute:accept",
      "post-execute:accept",
      "finalize:ok",
      "emit:1",
    ]);
  });
});

describe("pre-execute and the monotonic guard", () => {
  const combos: [string, PreDecision[], string, string | undefined][] = [
    ["all allow", [{ decision: "allow" }, { decision: "allow" }], "ok", undefined],
    ["deny then allow", [{ decision: "deny", reason: "no" }, { decision: "allow" }], "denied", "tool_denied"],
    ["allow then deny", [{ decision: "allow" }, { decision: "deny", reason: "no" }], "denied", "tool_denied"],
    [
      "ask then deny (no approval asked)",
      [
        { decision: "ask", reason: "?" },
        { decision: "deny", reason: "no" },
      ],
      "denied",
      "tool_denied",
    ],
  ];
  for (const [label, decisions, status, code] of combos) {
    it(`${label} ⇒ ${status}`, async () => {
      const { rt, log } = setup();
      const approval = vi.fn(() => ({ decision: "allow" as const }));
      rt.setApprovalHandler(approval);
      for (const d of decisions) rt.onPreExecute(() => d);
      const exec = await rt.execute(call());
      expect(exec.status).toBe(status);
      expect(exec.error?.code).toBe(code);
      expect(log.includes("body")).toBe(status === "ok");
      expect(approval).not.toHaveBeenCalled();
    });
  }

  it("runs every hook after a deny, shows it the deny, and ignores its allow", async () => {
    const { rt, log } = setup();
    const seen: string[] = [];
    rt.onPreExecute(
      (v) => (seen.push(v.verdict), { decision: "deny", reason: "first", code: "tool_confirmation_required" }),
    );
    rt.onPreExecute((v) => (seen.push(v.verdict), { decision: "allow" }));
    rt.onPreExecute((v) => (seen.push(v.verdict), { decision: "deny", reason: "second" }));
    const exec = await rt.execute(call());
    expect(seen).toEqual(["allow", "deny", "deny"]);
    expect(exec.status).toBe("denied");
    // The first denial's code and reason stand; later ones cannot rewrite it either.
    expect(exec.error).toMatchObject({ code: "tool_confirmation_required", reason: "first" });
    expect(exec.stages?.find((s) => s.stage === "guard")?.outcome).toBe("deny");
    expect(log).toEqual([]);
  });

  it("an approval cannot lift a deny (the handler is not even asked)", async () => {
    const { rt, log } = setup();
    const approval = vi.fn(() => ({ decision: "allow" as const }));
    rt.setApprovalHandler(approval);
    rt.onPreExecute(() => ({ decision: "deny", reason: "policy" }));
    rt.onPreExecute(() => ({ decision: "ask", reason: "?" }));
    const exec = await rt.execute(call());
    expect(exec.status).toBe("denied");
    expect(approval).not.toHaveBeenCalled();
    expect(log).toEqual([]);
  });

  it("a throwing pre-execute hook denies (fail-closed) with tool_hook_failed", async () => {
    const { rt, log } = setup();
    rt.onPreExecute(() => {
      throw new Error("boom");
    });
    rt.onPreExecute(() => ({ decision: "allow" }));
    const exec = await rt.execute(call());
    expect(exec.status).toBe("denied");
    expect(exec.error).toMatchObject({ code: "tool_hook_failed", reason: "boom" });
    expect(log).toEqual([]);
  });

  it("a hook that returns no decision denies", async () => {
    const { rt } = setup();
    // eslint-disable-next-line no-restricted-syntax -- a plain-JS hook that returns nothing, which the types forbid
    rt.onPreExecute(() => undefined as unknown as PreDecision);
    expect((await rt.execute(call())).error?.code).toBe("tool_hook_failed");
  });

  it("hooks see a frozen copy of the call and cannot change the arguments", async () => {
    const { rt } = setup();
    rt.onPreExecute((v) => {
      expect(Object.isFrozen(v.call.args)).toBe(true);
      expect(() => {
        (v.call.args as JsonObject)["n"] = 99;
      }).toThrow(TypeError);
      return { decision: "allow" };
    });
    const original = call("echo", { n: 2 });
    const exec = await rt.execute(original);
    expect(exec.result).toEqual({ n: 2 });
    expect(original.args).toEqual({ n: 2 });
  });
});

describe("approval", () => {
  it("ask with no handler ⇒ denied tool_denied, body not run", async () => {
    const { rt, log } = setup();
    rt.onPreExecute(() => ({ decision: "ask", reason: "commit tool" }));
    const exec = await rt.execute(call());
    expect(exec.status).toBe("denied");
    expect(exec.error?.code).toBe("tool_denied");
    expect(exec.stages?.find((s) => s.stage === "approval")).toMatchObject({
      outcome: "deny",
      reason: "no approval handler",
    });
    expect(log).toEqual([]);
  });

  it("an async handler gets all ask reasons and may allow", async () => {
    const { rt, log } = setup();
    const gate = deferred<void>();
    const reasons: (readonly string[])[] = [];
    rt.onPreExecute(() => ({ decision: "ask", reason: "r1" }));
    rt.onPreExecute(() => ({ decision: "ask", reason: "r2" }));
    rt.setApprovalHandler(async (req) => {
      reasons.push(req.reasons);
      await gate.promise;
      return { decision: "allow" };
    });
    const pending = rt.execute(call());
    await Promise.resolve();
    expect(log).toEqual([]);
    gate.resolve();
    expect((await pending).status).toBe("ok");
    expect(reasons).toEqual([["r1", "r2"]]);
    expect(log).toEqual(["body"]);
  });

  it("a handler may deny with its own code (the confirmation flow's pending action)", async () => {
    const { rt, log } = setup();
    rt.onPreExecute(() => ({ decision: "ask", reason: "commit" }));
    rt.setApprovalHandler(() => ({
      decision: "deny",
      reason: "pending action p1",
      code: "tool_confirmation_required",
    }));
    const exec = await rt.execute(call());
    expect(exec.status).toBe("denied");
    expect(exec.error).toMatchObject({ code: "tool_confirmation_required", reason: "pending action p1" });
    expect(log).toEqual([]);
  });

  it("a throwing handler denies; a disposed handler no longer answers", async () => {
    const { rt } = setup();
    rt.onPreExecute(() => ({ decision: "ask", reason: "?" }));
    const dispose = rt.setApprovalHandler(() => {
      throw new Error("ui gone");
    });
    expect((await rt.execute(call())).error?.code).toBe("tool_hook_failed");
    dispose();
    const exec = await rt.execute(call());
    expect(exec.error?.code).toBe("tool_denied");
    expect(exec.stages?.find((s) => s.stage === "approval")?.reason).toBe("no approval handler");
  });

  it("a stale disposer does not remove a newer handler", async () => {
    const { rt } = setup();
    rt.onPreExecute(() => ({ decision: "ask", reason: "?" }));
    const old = rt.setApprovalHandler(() => ({ decision: "deny", reason: "old" }));
    rt.setApprovalHandler(() => ({ decision: "allow" }));
    old();
    expect((await rt.execute(call())).status).toBe("ok");
  });
});

describe("around-dispatch", () => {
  it("replaces the body's signal (linked to the caller's) and releases it after the body", async () => {
    const rt = createToolRuntime();
    const started = deferred<AbortSignal>();
    const finish = deferred<void>();
    rt.register(
      defineTool({
        name: "sig",
        description: "",
        parameters: params,
        execute: async (_a, ctx) => {
          started.resolve(ctx.signal);
          await finish.promise;
          return { aborted: ctx.signal.aborted };
        },
      }),
    );
    const released = vi.fn();
    const replacement = new AbortController();
    let hookSignal: AbortSignal | undefined;
    rt.onAroundDispatch((v) => ((hookSignal = v.signal), { signal: replacement.signal, release: released }));
    const caller = new AbortController();
    const pending = rt.execute(call("sig", {}), { signal: caller.signal });
    const bodySignal = await started.promise;
    // The hook saw the caller's signal; the body got a different one.
    expect(hookSignal).toBe(caller.signal);
    expect(bodySignal).not.toBe(caller.signal);
    expect(released).not.toHaveBeenCalled();
    finish.resolve();
    expect(await pending).toMatchObject({ status: "ok", result: { aborted: false } });
    expect(released).toHaveBeenCalledTimes(1);
  });

  it("a replacement signal that fires stops a body that ignores it; the caller's cancel still works", async () => {
    const rt = createToolRuntime();
    const started = deferred<AbortSignal>();
    rt.register(
      defineTool({
        name: "hang",
        description: "",
        parameters: params,
        execute: (_a, ctx) => (started.resolve(ctx.signal), new Promise(() => {})),
      }),
    );
    const replacement = new AbortController();
    const dispose = rt.onAroundDispatch(() => ({ signal: replacement.signal }));
    const first = rt.execute(call("hang", {}));
    const firstSignal = await started.promise;
    replacement.abort(new Error("policy stop"));
    expect((await first).status).toBe("aborted");
    expect(firstSignal.reason).toEqual(new Error("policy stop"));
    dispose();

    // A hook whose signal never fires cannot detach the body from the caller's cancel.
    const again = deferred<AbortSignal>();
    rt.register(
      defineTool({
        name: "hang2",
        description: "",
        parameters: params,
        execute: (_a, ctx) => (again.resolve(ctx.signal), new Promise(() => {})),
      }),
    );
    rt.onAroundDispatch(() => ({ signal: new AbortController().signal }));
    const caller = new AbortController();
    const second = rt.execute(call("hang2", {}), { signal: caller.signal });
    const secondSignal = await again.promise;
    caller.abort();
    expect((await second).status).toBe("aborted");
    expect(secondSignal.aborted).toBe(true);
  });

  it("the hook receives a frozen view and its return is read only for { signal, release }", async () => {
    const { rt } = setup();
    rt.onAroundDispatch((v) => {
      expect(Object.isFrozen(v.call.args)).toBe(true);
      expect(Object.isFrozen(v.tool)).toBe(true);
      // Extra fields (e.g. args) in the return are not part of the shape and have no effect.
      return { signal: v.signal, args: { n: 999 } } as { signal: AbortSignal };
    });
    expect((await rt.execute(call("echo", { n: 3 }))).result).toEqual({ n: 3 });
  });

  it("a hook that throws or returns a non-signal fails closed before the body", async () => {
    const { rt, log } = setup();
    const dispose = rt.onAroundDispatch(() => {
      throw new Error("no timer");
    });
    expect(await rt.execute(call())).toMatchObject({ status: "failed", error: { code: "tool_hook_failed" } });
    dispose();
    // eslint-disable-next-line no-restricted-syntax -- a plain-JS hook that returns a signal that is not an AbortSignal, which the types forbid
    rt.onAroundDispatch(() => ({ signal: "nope" }) as unknown as { signal: AbortSignal });
    expect(await rt.execute(call())).toMatchObject({ status: "failed", error: { code: "tool_hook_failed" } });
    expect(log).toEqual([]);
  });
});

describe("body", () => {
  it("a thrown Error ⇒ failed tool_raised with the message as reason", async () => {
    const { rt } = setup({
      execute: () => {
        throw new Error("kaput");
      },
    });
    expect(await rt.execute(call())).toMatchObject({
      status: "failed",
      error: { code: "tool_raised", reason: "kaput", tool: "echo" },
    });
  });

  it("a thrown EdgeError keeps its code; timeouts and aborts keep their status", async () => {
    let thrown: EdgeError = new EdgeError("tool_result_oversized");
    const { rt } = setup({
      execute: () => {
        throw thrown;
      },
    });
    expect(await rt.execute(call())).toMatchObject({ status: "failed", error: { code: "tool_result_oversized" } });
    thrown = new EdgeError("runner_timeout");
    expect(await rt.execute(call())).toMatchObject({ status: "timeout", error: { code: "runner_timeout" } });
    thrown = new EdgeError("aborted");
    expect(await rt.execute(call())).toMatchObject({ status: "aborted", error: { code: "aborted" } });
  });

  it("invalid arguments fail before any stage runs", async () => {
    const { rt, log } = setup();
    const pre = vi.fn(() => ({ decision: "allow" as const }));
    rt.onPreExecute(pre);
    const exec = await rt.execute(call("echo", { n: "one" }));
    expect(exec).toMatchObject({ status: "failed", error: { code: "invalid_tool_args" } });
    expect(pre).not.toHaveBeenCalled();
    expect(log).toEqual([]);
  });
});

describe("post-execute", () => {
  it("replace hands the next hook and finalize the new result", async () => {
    const { rt } = setup({ finalizeContent: (r) => ({ wrapped: r }) });
    const seen: unknown[] = [];
    rt.onPostExecute(() => ({ action: "replace", result: { n: 7 } }));
    rt.onPostExecute((v) => (seen.push(v.result), { action: "accept" }));
    const exec = await rt.execute(call());
    expect(seen).toEqual([{ n: 7 }]);
    expect(exec).toMatchObject({ status: "ok", result: { n: 7 }, content: { wrapped: { n: 7 } } });
  });

  it("block ⇒ blocked tool_blocked; the result is not used and later hooks never see it", async () => {
    const finalize = vi.fn((r: unknown) => r);
    const { rt } = setup({ finalizeContent: finalize });
    const later = vi.fn(() => ({ action: "accept" as const }));
    rt.onPostExecute(() => ({ action: "block", reason: "secret in output" }));
    rt.onPostExecute(later);
    const exec = await rt.execute(call());
    expect(exec.status).toBe("blocked");
    expect(exec.error).toMatchObject({ code: "tool_blocked", reason: "secret in output" });
    expect(exec.result).toBeUndefined();
    expect(exec.content).toBeUndefined();
    expect(later).not.toHaveBeenCalled();
    expect(finalize).not.toHaveBeenCalled();
  });

  it("the hook's view of the result is frozen: mutation throws and does not leak", async () => {
    const { rt } = setup();
    rt.onPostExecute((v) => {
      expect(() => {
        (v.result as { n: number }).n = 5;
      }).toThrow(TypeError);
      return { action: "accept" };
    });
    expect((await rt.execute(call())).result).toEqual({ n: 1 });
  });

  it("a throwing hook fails closed", async () => {
    const { rt } = setup();
    rt.onPostExecute(() => {
      throw new Error("x");
    });
    expect(await rt.execute(call())).toMatchObject({ status: "failed", error: { code: "tool_hook_failed" } });
  });
});

describe("finalizeContent", () => {
  it("content is the result when there is no finalizeContent", async () => {
    const { rt } = setup();
    const exec = await rt.execute(call());
    expect(exec.content).toEqual(exec.result);
    expect(exec.stages?.find((s) => s.stage === "finalize")?.outcome).toBe("identity");
  });

  it("an async finalizeContent gets the context; a throwing one fails the call", async () => {
    const { rt } = setup({
      finalizeContent: async (r, ctx) => ({
        text: `${ctx.toolName}/${ctx.callId}/${ctx.sessionId}: ${JSON.stringify(r)}`,
      }),
    });
    expect((await rt.execute(call(), { sessionId: "s9" })).content).toEqual({ text: 'echo/c1/s9: {"n":1}' });
    const bad = setup({
      finalizeContent: () => {
        throw new Error("render");
      },
    });
    expect(await bad.rt.execute(call())).toMatchObject({
      status: "failed",
      error: { code: "tool_raised", reason: "render" },
    });
  });
});

describe("result emit", () => {
  it("observers get a deep-frozen copy; mutating it changes nothing", async () => {
    const { rt } = setup();
    let seen: ToolExecution | undefined;
    rt.onResult((e) => {
      expect(Object.isFrozen(e)).toBe(true);
      expect(Object.isFrozen(e.result)).toBe(true);
      expect(() => {
        (e as { status: string }).status = "failed";
      }).toThrow(TypeError);
      seen = e as ToolExecution;
    });
    const exec = await rt.execute(call());
    expect(exec.status).toBe("ok");
    expect(Object.isFrozen(exec.result)).toBe(false);
    expect(seen).toEqual(exec);
    expect(seen).not.toBe(exec);
  });

  it("a throwing or rejecting observer does not change the outcome and later observers still run", async () => {
    const reported: unknown[] = [];
    const rt = createToolRuntime({ reportError: (err) => reported.push(err) });
    rt.register(defineTool({ name: "echo", description: "", parameters: params, execute: () => ({ ok: true }) }));
    const later = vi.fn();
    rt.onResult(() => {
      throw new Error("observer bug");
    });
    rt.onResult((async () => {
      throw new Error("async observer bug");
    }) as () => void);
    rt.onResult(later);
    const exec = await rt.execute(call("echo", {}));
    expect(exec).toMatchObject({ status: "ok", result: { ok: true } });
    expect(later).toHaveBeenCalledTimes(1);
    await Promise.resolve();
    expect(reported.map((e) => (e as Error).message)).toEqual(["observer bug", "async observer bug"]);
  });

  it("every outcome is emitted, failures included", async () => {
    const { rt } = setup();
    const statuses: string[] = [];
    rt.onResult((e) => void statuses.push(`${e.status}:${e.error?.code ?? ""}`));
    const dispose = rt.onPreExecute(() => ({ decision: "deny", reason: "x" }));
    await rt.execute(call());
    dispose();
    await rt.execute(call("ghost", {}));
    await rt.execute(call());
    expect(statuses).toEqual(["denied:tool_denied", "failed:unknown_tool", "ok:"]);
  });
});

describe("disposers", () => {
  it("each hook disposer unregisters exactly its own registration", async () => {
    const { rt } = setup();
    const calls: string[] = [];
    const hook = () => (calls.push("pre"), { decision: "allow" as const });
    const d1 = rt.onPreExecute(hook);
    rt.onPreExecute(hook); // the same function twice is two registrations
    const d3 = rt.onAroundDispatch(() => void calls.push("around"));
    const d4 = rt.onPostExecute(() => (calls.push("post"), { action: "accept" }));
    const d5 = rt.onResult(() => void calls.push("emit"));
    await rt.execute(call());
    expect(calls).toEqual(["pre", "pre", "around", "post", "emit"]);
    calls.length = 0;
    for (const d of [d1, d3, d4, d5]) d();
    d1(); // idempotent
    await rt.execute(call());
    expect(calls).toEqual(["pre"]);
  });
});

describe("abort", () => {
  it("an already aborted signal ⇒ aborted, nothing runs", async () => {
    const { rt, log } = setup();
    const pre = vi.fn(() => ({ decision: "allow" as const }));
    rt.onPreExecute(pre);
    const exec = await rt.execute(call(), { signal: AbortSignal.abort() });
    expect(exec).toMatchObject({ status: "aborted", error: { code: "aborted" } });
    expect(pre).not.toHaveBeenCalled();
    expect(log).toEqual([]);
  });

  it("abort while the body runs ⇒ aborted, even if the body ignores the signal", async () => {
    const started = deferred<void>();
    const rt = createToolRuntime();
    let bodySignal: AbortSignal | undefined;
    rt.register(
      defineTool({
        name: "slow",
        description: "",
        parameters: params,
        execute: (_a, ctx) => {
          bodySignal = ctx.signal;
          started.resolve();
          return new Promise(() => {});
        },
      }),
    );
    const controller = new AbortController();
    const pending = rt.execute(call("slow", {}), { signal: controller.signal });
    await started.promise;
    controller.abort();
    const exec = await pending;
    expect(exec).toMatchObject({ status: "aborted", error: { code: "aborted" } });
    expect(bodySignal?.aborted).toBe(true);
  });

  it("abort while waiting for approval ⇒ aborted", async () => {
    const { rt, log } = setup();
    rt.onPreExecute(() => ({ decision: "ask", reason: "?" }));
    const asked = deferred<void>();
    rt.setApprovalHandler(() => (asked.resolve(), new Promise(() => {})));
    const controller = new AbortController();
    const pending = rt.execute(call(), { signal: controller.signal });
    await asked.promise;
    controller.abort();
    expect((await pending).status).toBe("aborted");
    expect(log).toEqual([]);
  });

  it("a body that honours the signal and throws AbortError ⇒ aborted", async () => {
    const started = deferred<void>();
    const rt = createToolRuntime();
    rt.register(
      defineTool({
        name: "polite",
        description: "",
        parameters: params,
        execute: (_a, ctx) =>
          new Promise((_r, reject) => {
            ctx.signal.addEventListener("abort", () => reject(new DOMException("stop", "AbortError")));
            started.resolve();
          }),
      }),
    );
    const controller = new AbortController();
    const pending = rt.execute(call("polite", {}), { signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await pending).status).toBe("aborted");
  });
});
