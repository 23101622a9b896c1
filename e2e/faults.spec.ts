// Bad input and faults in real Chromium: the same matrix as src/runner/node.test.ts,
// through the page's own sandboxed runner host (`index.html?debug`, window.__edge). Each fault is
// contained with its code, and the NEXT call on the same host works. The storage/network probes
// and the forged reply are in e2e/sandbox.spec.ts, the timeout + edited file in e2e/calls.spec.ts,
// the 200-call memory soak in e2e/soak.spec.ts.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import type { ToolCallReport } from "../src/toolset/call.ts";
import type { FrozenToolset } from "../src/toolset/freeze.ts";
import { FAULT_TOOLS } from "../test/fixtures/fault-tools.ts";

const FAST = 2_000; // timeout for the runaway tools; the other calls keep the 10 s default

declare global {
  interface Window {
    __faultsToolset?: FrozenToolset;
  }
}

interface Case {
  label: string;
  tool: string;
  args?: Record<string, unknown>;
  codes: readonly string[];
  timeoutMs?: number;
}

// Same table as node.test.ts ("faults are contained and the next call works").
const CASES: Case[] = [
  { label: "an infinite loop", tool: "fault", args: { kind: "spin" }, codes: ["runner_timeout"], timeoutMs: FAST },
  { label: "time.sleep(30)", tool: "fault", args: { kind: "nap" }, codes: ["runner_timeout"], timeoutMs: FAST },
  // On wasm32 a single 4 GB bytearray is refused before any allocation (OverflowError: not an
  // index-sized integer), so the second case really allocates: 4 × 1 GB (MemoryError in the wasm heap).
  { label: "allocating 4 GB", tool: "fault", args: { kind: "hog" }, codes: ["tool_raised", "runner_crashed"] },
  // Touching 3 GB before the MemoryError takes seconds on a quiet machine and over 30 s on a
  // loaded one (two specs at once beside other work): the limit leaves room for that.
  {
    label: "allocating 4 GB as 4 × 1 GB",
    tool: "fault",
    args: { kind: "hog_chunks" },
    codes: ["tool_raised", "runner_crashed"],
    timeoutMs: 100_000,
  },
  { label: "deep recursion (RecursionError)", tool: "fault", args: { kind: "recurse" }, codes: ["tool_raised"] },
  // With the limit lifted, CPython 3.14 frames live on the heap: it runs until stopped or dies.
  {
    label: "deep recursion with sys.setrecursionlimit(10**7)",
    tool: "fault",
    args: { kind: "recurse_unbounded" },
    codes: ["tool_raised", "runner_crashed", "runner_timeout"],
    timeoutMs: FAST,
  },
  { label: "sys.exit()", tool: "fault", args: { kind: "bye" }, codes: ["tool_raised"] },
  { label: "os._exit(1)", tool: "fault", args: { kind: "hard_exit" }, codes: ["runner_crashed"] },
  { label: "returning a set", tool: "fault", args: { kind: "give_set" }, codes: ["unsupported_tool_result"] },
  { label: "returning bytes", tool: "fault", args: { kind: "give_bytes" }, codes: ["unsupported_tool_result"] },
  { label: "returning NaN", tool: "fault", args: { kind: "give_nan" }, codes: ["unsupported_tool_result"] },
  { label: "a 100 KB string", tool: "fault", args: { kind: "big" }, codes: ["tool_result_oversized"] },
  {
    label: "output_schema violation (missing field)",
    tool: "shaped",
    args: { mode: "missing" },
    codes: ["tool_result_schema_mismatch"],
  },
  {
    label: "output_schema violation (extra field)",
    tool: "shaped",
    args: { mode: "extra" },
    codes: ["tool_result_schema_mismatch"],
  },
  {
    label: "output_schema violation (wrong type)",
    tool: "shaped",
    args: { mode: "wrong_type" },
    codes: ["tool_result_schema_mismatch"],
  },
  { label: "raising ValueError", tool: "fail", args: { value: "x1" }, codes: ["tool_raised"] },
];

interface Pair {
  out: ToolCallReport;
  next: ToolCallReport;
  ms: number;
}

/** One faulty call, then the next (ordinary) call on the same host. */
function callThenNext(page: Page, tool: string, args: Record<string, unknown>, timeoutMs?: number): Promise<Pair> {
  return page.evaluate(
    async ([tool, args, timeoutMs]) => {
      const edge = window.__edge!;
      const toolset = window.__faultsToolset!;
      // A booted runner waits first: the time below is the call's, not a boot's on a loaded machine.
      await edge.host.warm();
      const t0 = performance.now();
      const out = await edge.call(toolset, tool, args, timeoutMs ?? undefined);
      const ms = performance.now() - t0;
      const next = await edge.call(toolset, "add", { a: 40, b: 2 });
      return { out, next, ms };
    },
    [tool, args, timeoutMs ?? null] as const,
  );
}

function expectNextCallWorks(next: ToolCallReport, label: string): void {
  expect(next.error, `next call after ${label}`).toBeUndefined();
  expect(next.ok).toBe(true);
  expect(next.result).toEqual({ sum: 42 });
  expect(next.runner_secret_verified).toBe(true);
}

test("every fault is contained with its code and the next call works (Chromium sandbox)", async ({ page }) => {
  test.setTimeout(360_000);
  await page.goto("/?debug");
  await page.waitForFunction(() => window.__edge !== undefined, null, { timeout: 90_000 });
  await page.evaluate(() => window.__edgeReady);
  await page.evaluate(() => window.__edge!.host.warm());

  // Freeze once; every call below re-reads the same (unchanged) source through the frozen toolset.
  const frozen = await page.evaluate(async (src) => {
    const toolset = await window.__edge!.freeze(src, "tools.py");
    window.__faultsToolset = toolset;
    return {
      names: toolset.active.map((t) => t.schema.name),
      shaped: toolset.active.find((t) => t.schema.name === "shaped")?.schema.output_schema,
    };
  }, FAULT_TOOLS);
  expect(frozen.names).toEqual(["add", "fault", "shaped", "fail", "shout"]);
  expect(frozen.shaped).toBeTruthy();

  const observed: Record<string, string | undefined> = {};
  for (const c of CASES) {
    await test.step(c.label, async () => {
      const { out, next, ms } = await callThenNext(page, c.tool, c.args ?? {}, c.timeoutMs);
      observed[c.label] = `${out.error?.code} (${Math.round(ms)} ms): ${out.error?.message?.slice(0, 160)}`;
      expect(out.ok, `${c.label}: ${JSON.stringify(out.error)}`).toBe(false);
      expect(out.result).toBeUndefined();
      expect(out.result_sha256).toBeUndefined();
      expect(c.codes, `${c.label}: ${JSON.stringify(out.error)}`).toContain(out.error?.code);
      if (c.timeoutMs && out.error?.code === "runner_timeout") {
        expect(ms).toBeGreaterThanOrEqual(c.timeoutMs - 100);
        expect(ms).toBeLessThan(c.timeoutMs + 10_000);
      }
      if (c.tool === "shaped") {
        // The result came back intact from the runner; the host's ajv check refused it.
        expect(out.runner_secret_verified).toBe(true);
        const errors = out.diagnostics?.schema_errors as Array<{ keyword: string }>;
        const keyword = { missing: "required", extra: "additionalProperties", wrong_type: "type" }[
          String(c.args?.mode)
        ];
        expect(errors.map((e) => e.keyword)).toContain(keyword);
      }
      if (c.tool === "fail") {
        expect(out.error?.message).toContain("bad input value x1");
        expect(String(out.diagnostics?.traceback)).toContain("ValueError");
        expect(String(out.diagnostics?.traceback)).toContain("tools.py");
      }
      expectNextCallWorks(next, c.label);
    });
  }

  await test.step("a result that matches its output_schema is delivered", async () => {
    const { out, next } = await callThenNext(page, "shaped", { mode: "ok" });
    expect(out.ok, JSON.stringify(out.error)).toBe(true);
    expect(out.result).toEqual({ name: "a", count: 1 });
    expectNextCallWorks(next, "shaped ok");
  });

  await test.step("printing 10 MB leaves a bounded stderr", async () => {
    const { out, next } = await callThenNext(page, "shout", {});
    expect(out.ok, JSON.stringify(out.error)).toBe(true);
    expect(out.result).toEqual({ printed: true });
    expect(out.stderr.length).toBeLessThan(20_000);
    expect(out.stderr).toContain("not kept");
    expectNextCallWorks(next, "printing 10 MB");
  });

  console.log(`[faults chromium] ${JSON.stringify(observed, null, 1)}`);

  // Each of these faults ends at most its own worker: the sandbox frame itself was never lost
  // (nor wrongly declared lost by its heartbeat while the machine was busy with them).
  const health = await page.evaluate(() => window.__edge!.host.sandbox.health);
  console.log(`[faults chromium] sandbox health ${JSON.stringify(health)}`);
  expect(health.lost).toBe(0);
  expect(health.frames).toBe(1);
});
