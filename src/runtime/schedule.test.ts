// Concurrency is proven with controlled promises: each body waits on its own gate, and the test
// opens gates one by one. `drain` only lets pending microtasks finish; nothing waits on time.
import { describe, expect, it } from "vitest";
import { defineTool } from "./define.ts";
import { createToolRuntime } from "./runtime.ts";

const drain = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function harness() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const waiters: { n: number; resolve: () => void }[] = [];
  let active = 0;
  let maxActive = 0;
  const body = async (args: { k: string }) => {
    started.push(args.k);
    active += 1;
    maxActive = Math.max(maxActive, active);
    for (const w of waiters.filter((w) => started.length >= w.n)) w.resolve();
    await new Promise<void>((resolve) => gates.set(args.k, resolve));
    active -= 1;
    return { k: args.k };
  };
  const params = {
    type: "object",
    properties: { k: { type: "string" } },
    required: ["k"],
    additionalProperties: false,
  };
  const rt = createToolRuntime();
  rt.register(
    defineTool<{ k: string }>({
      name: "safe",
      description: "",
      parameters: params,
      isConcurrencySafe: true,
      execute: body,
    }),
  );
  rt.register(defineTool<{ k: string }>({ name: "unsafe", description: "", parameters: params, execute: body }));
  return {
    rt,
    started,
    maxActive: () => maxActive,
    /** Resolves once at least n bodies have started. */
    startedAtLeast: (n: number) =>
      started.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    open: (k: string) => {
      const gate = gates.get(k);
      if (!gate) throw new Error(`${k} has not started`);
      gate();
    },
  };
}

const safe = (k: string) => ({ id: k, name: "safe", args: { k } });
const unsafe = (k: string) => ({ id: k, name: "unsafe", args: { k } });

describe("executeBatch scheduling", { timeout: 5000 }, () => {
  it("runs consecutive safe calls in parallel and returns results in call order", async () => {
    const h = harness();
    const batch = h.rt.executeBatch([safe("a"), safe("b"), safe("c")]);
    // All three bodies are running before any of them was allowed to finish.
    await h.startedAtLeast(3);
    expect(h.started).toEqual(["a", "b", "c"]);
    h.open("c");
    h.open("a");
    h.open("b");
    const results = await batch;
    expect(results.map((r) => `${r.id}:${r.status}`)).toEqual(["a:ok", "b:ok", "c:ok"]);
    expect(h.maxActive()).toBe(3);
  });

  it("caps parallelism at 10 with a rolling pool (15 safe calls)", async () => {
    const h = harness();
    const keys = Array.from({ length: 15 }, (_, i) => `s${i}`);
    const batch = h.rt.executeBatch(keys.map(safe));
    await h.startedAtLeast(10);
    await drain();
    expect(h.started).toEqual(keys.slice(0, 10));
    // Finishing any one call admits exactly one more — no waiting for the whole wave.
    h.open("s3");
    await h.startedAtLeast(11);
    await drain();
    expect(h.started).toEqual(keys.slice(0, 11));
    for (const k of keys.slice(0, 11)) if (k !== "s3") h.open(k);
    await h.startedAtLeast(15);
    for (const k of keys.slice(11)) h.open(k);
    const results = await batch;
    expect(results.map((r) => r.id)).toEqual(keys);
    expect(results.every((r) => r.status === "ok")).toBe(true);
    expect(h.maxActive()).toBe(10);
  });

  it("a non-safe call in the middle is a barrier both ways", async () => {
    const h = harness();
    const batch = h.rt.executeBatch([safe("a"), safe("b"), unsafe("u"), safe("c"), safe("d")]);
    await h.startedAtLeast(2);
    await drain();
    expect(h.started).toEqual(["a", "b"]);
    h.open("a");
    await drain();
    expect(h.started).toEqual(["a", "b"]); // u still waits for b
    h.open("b");
    await h.startedAtLeast(3);
    await drain();
    expect(h.started).toEqual(["a", "b", "u"]); // c and d wait for u
    h.open("u");
    await h.startedAtLeast(5);
    expect(h.started).toEqual(["a", "b", "u", "c", "d"]);
    h.open("d");
    h.open("c");
    const results = await batch;
    expect(results.map((r) => r.id)).toEqual(["a", "b", "u", "c", "d"]);
  });

  it("consecutive non-safe calls run one at a time", async () => {
    const h = harness();
    const batch = h.rt.executeBatch([unsafe("x"), unsafe("y")]);
    await h.startedAtLeast(1);
    await drain();
    expect(h.started).toEqual(["x"]);
    h.open("x");
    await h.startedAtLeast(2);
    h.open("y");
    expect((await batch).map((r) => r.status)).toEqual(["ok", "ok"]);
    expect(h.maxActive()).toBe(1);
  });

  it("never throws for failures: unknown tools and denials come back coded, in order", async () => {
    const h = harness();
    h.rt.onPreExecute((v) => (v.call.args["k"] === "no" ? { decision: "deny", reason: "no" } : { decision: "allow" }));
    const batch = h.rt.executeBatch([safe("no"), { id: "g", name: "ghost", args: {} }, safe("ok")]);
    await h.startedAtLeast(1);
    h.open("ok");
    expect((await batch).map((r) => `${r.id}:${r.status}:${r.error?.code ?? ""}`)).toEqual([
      "no:denied:tool_denied",
      "g:failed:unknown_tool",
      "ok:ok:",
    ]);
  });

  it("honours a custom cap", async () => {
    const rt = createToolRuntime({ maxConcurrency: 2 });
    let active = 0;
    let max = 0;
    const gates: (() => void)[] = [];
    rt.register(
      defineTool({
        name: "t",
        description: "",
        parameters: { type: "object" },
        isConcurrencySafe: true,
        execute: async () => {
          active += 1;
          max = Math.max(max, active);
          await new Promise<void>((r) => gates.push(r));
          active -= 1;
          return {};
        },
      }),
    );
    const batch = rt.executeBatch([1, 2, 3, 4].map((i) => ({ id: `${i}`, name: "t", args: {} })));
    while ((await drain(), gates.length > 0)) gates.shift()!();
    await batch;
    expect(max).toBe(2);
    expect(() => createToolRuntime({ maxConcurrency: 0 })).toThrow();
  });
});
