// (d) Calls through the sandbox: a verified result, an infinite loop stopped at the timeout, and
// the next call still works (fresh worker per call).
import { readFile } from "node:fs/promises";
import { expect, test } from "./fixtures.ts";

test("a call returns a verified result; a runaway tool is killed at the timeout; the next call works", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const source = await readFile(new URL("./fixtures/escape_tools.py", import.meta.url), "utf8");
  await page.goto("/?debug");
  await page.waitForFunction(() => window.__edge !== undefined, null, { timeout: 90_000 });

  const results = await page.evaluate(async (src) => {
    const edge = window.__edge!;
    const toolset = await edge.freeze(src, "escape_tools.py");
    const first = await edge.call(toolset, "echo", { text: "héllo ✓" });
    await edge.host.warm(); // a booted runner waits: the time below is the call's, not a boot's
    const t0 = performance.now();
    const runaway = await edge.call(toolset, "spin", { seconds: 1e9 }, 2000);
    const runawayMs = performance.now() - t0;
    const after = await edge.call(toolset, "echo", { text: "still here" });
    const bad = await edge.call(toolset, "echo", { text: 42 });
    return { first, runaway, runawayMs, after, bad };
  }, source);

  expect(results.first.ok).toBe(true);
  expect(results.first.result).toEqual({ echo: "héllo ✓" });
  expect(results.first.result_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(results.first.runner_secret_verified).toBe(true);
  expect(results.first.tools_file_sha256_verified).toBe(true);

  expect(results.runaway.ok).toBe(false);
  expect(results.runaway.error?.code).toBe("runner_timeout");
  expect(results.runaway.result).toBeUndefined();
  expect(results.runawayMs).toBeGreaterThanOrEqual(1900);
  expect(results.runawayMs).toBeLessThan(15_000);

  expect(results.after.ok).toBe(true);
  expect(results.after.result).toEqual({ echo: "still here" });
  expect(results.after.runner_secret_verified).toBe(true);

  // Invalid arguments never reach a runner.
  expect(results.bad.ok).toBe(false);
  expect(results.bad.error?.code).toBe("invalid_tool_args");
});

test("an edit after freezing is refused by the runner (tools_file_changed)", async ({ page }) => {
  await page.goto("/?debug");
  await page.waitForFunction(() => window.__edge !== undefined, null, { timeout: 90_000 });
  const out = await page.evaluate(async () => {
    const edge = window.__edge!;
    let text: string =
      "from edgestudio.tools import edge_tool\n\n@edge_tool\ndef ping() -> dict:\n    return {'v': 1}\n";
    const toolset = await edge.freeze(text, "ping.py");
    // The session's frozen toolset, whose source now yields edited bytes.
    text = text.replace("'v': 1", "'v': 2");
    const edited = new TextEncoder().encode(text);
    const changed = { ...toolset, source: { name: "ping.py", read: async () => edited } };
    const before = await edge.call(toolset, "ping", {});
    const after = await edge.call(changed, "ping", {});
    return { before, after };
  });
  expect(out.before.ok).toBe(true);
  expect(out.before.result).toEqual({ v: 1 });
  expect(out.after.ok).toBe(false);
  expect(out.after.error?.code).toBe("tools_file_changed");
});

test("in the browser too, every call draws random numbers of its own, and a tool whose schema changes between imports is refused (tool_schema_changed)", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto("/?debug");
  await page.waitForFunction(() => window.__edge !== undefined, null, { timeout: 90_000 });
  const out = await page.evaluate(async () => {
    const edge = window.__edge!;
    const drawing = await edge.freeze(
      "import random\nfrom edgestudio.tools import edge_tool\n\n@edge_tool\ndef draw() -> dict:\n    return {'x': random.random()}\n",
      "draw.py",
    );
    const draws = [];
    for (let i = 0; i < 3; i++) draws.push(await edge.call(drawing, "draw", {}));
    const drifting = await edge.freeze(
      "import random\nfrom edgestudio.tools import edge_tool\n\n@edge_tool(description=f'Draws {random.random()}.')\ndef pick(n: int) -> dict:\n    print('picked')\n    return {'n': n}\n",
      "drifting.py",
    );
    const picked = await edge.call(drifting, "pick", { n: 1 });
    return { draws, picked };
  });
  expect(out.draws.every((d) => d.ok)).toBe(true);
  // The runners all boot from one memory snapshot; each still seeds random from the OS.
  expect(new Set(out.draws.map((d) => d.result?.x)).size).toBe(3);
  expect(out.picked.ok).toBe(false);
  expect(out.picked.error?.code).toBe("tool_schema_changed");
  expect(out.picked.stderr).not.toContain("picked");
});
