// (b) The same discovery in Node (worker_threads, src/runner/node.ts) and in Chromium (the
// sandbox) gives byte-identical inspect JSON for every example file and selection.
import { readFile } from "node:fs/promises";
import { expect, test } from "./fixtures.ts";
import { createNodeRunnerHost } from "../src/runner/node.ts";
import { inspect, memorySource } from "../src/toolset/inspect.ts";
import type { Selection } from "../src/contract/types.ts";

const CASES: { file: string; selection: Selection }[] = [
  { file: "tools.py", selection: {} },
  { file: "tools.py", selection: { toolTag: ["billing"] } },
  { file: "tools.py", selection: { tool: ["hello_world"], toolTag: ["orders"] } },
  { file: "tools.py", selection: { tool: ["no_such_tool"] } },
  { file: "seed_tools.py", selection: {} },
  { file: "tools_invalid.py", selection: {} },
];

test("inspect JSON is identical in Node and in the Chromium sandbox", async ({ page }) => {
  test.setTimeout(240_000);
  const node = createNodeRunnerHost({ snapshot: false, spares: 0 });
  try {
    await page.goto("/?debug");
    await page.waitForFunction(() => window.__edge !== undefined, null, { timeout: 90_000 });
    for (const { file, selection } of CASES) {
      const text = await readFile(new URL(`../public/examples/${file}`, import.meta.url), "utf8");
      const nodeReport = await inspect(memorySource(file, text), { host: node, ...selection });
      const browserReport = await page.evaluate(([source, name, sel]) => window.__edge!.inspect(source, name, sel), [
        text,
        file,
        selection,
      ] as const);
      // Sanity: these are real reports, not two identical failures.
      if (file === "tools.py" && !selection.tool?.includes("no_such_tool")) expect(nodeReport.ok, file).toBe(true);
      if (file === "tools_invalid.py") expect(nodeReport.errors.length, file).toBeGreaterThan(3);
      expect(nodeReport.errors.some((e) => e.code === "runner_boot_failed" || e.code === "runner_crashed")).toBe(false);
      expect(JSON.stringify(browserReport, null, 2), `${file} ${JSON.stringify(selection)}`).toBe(
        JSON.stringify(nodeReport, null, 2),
      );
    }
  } finally {
    await node.close();
  }
});
