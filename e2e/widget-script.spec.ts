// The widget's scripted demo plays the one script of every front door (src/chat/script.ts), as the
// playground and `edge chat --script` do: a tool call written as an object, `{{tool_result.KEY}}`
// quoting what the real Python tool returned, and a question that starts after the last output
// playing the script again. Running out inside a question is script_exhausted. Real Chromium, the
// built widget on an asset origin, the page on another, the tools in the sandboxed Pyodide runner.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import { askWidget as ask } from "./widget-helpers.ts";
import { docsPage, ensureWidgetBuild, ROOT, startWidgetSites } from "./widget-servers.ts";

let sites: Awaited<ReturnType<typeof startWidgetSites>>;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  sites = await startWidgetSites({ widgetDir: ensureWidgetBuild() });
  sites.docs.route("/tools.py", { body: await readFile(path.join(ROOT, "public", "examples", "tools.py")) });
});
test.afterAll(async () => {
  await sites?.close();
});

const RECORD_RUNS = `
  window.__edgeRuns = [];
  for (const type of ["edge-receipt", "edge-error"]) {
    document.addEventListener(type, (e) => window.__edgeRuns.push({ type, detail: JSON.parse(JSON.stringify(e.detail)) }));
  }`;

interface Recorded {
  type: string;
  detail: { outcome?: string; code?: string; calls?: Array<{ tool_name: string; status: string }> };
}

/** The recorded events of `type` once at least `count` arrived (the widget announces a run after
 *  its receipt is stored, which may follow what the test just saw). */
async function recorded(page: Page, type: string, count: number): Promise<Recorded[]> {
  const read = async (): Promise<Recorded[]> =>
    (await page.evaluate(() => (window as typeof window & { __edgeRuns: Recorded[] }).__edgeRuns)).filter(
      (r) => r.type === type,
    );
  await expect.poll(async () => (await read()).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(count);
  return read();
}

/** An attribute value in single quotes: the JSON with & and ' escaped. */
const attr = (value: unknown): string => JSON.stringify(value).replace(/&/g, "&amp;").replace(/'/g, "&#39;");

test("a call-then-answer script quotes the real tool result and answers every question (replay), as in the playground and the CLI", async ({
  page,
}) => {
  test.setTimeout(150_000);
  await page.context().addInitScript(RECORD_RUNS);
  // The answer names nothing of the result: "A-1003", "delivered" and "UPS" can only come from the
  // tool (it upper-cases the id it was given).
  const script = [
    { tool_name: "order_status", arguments: { order_id: "a-1003" } },
    "Order {{tool_result.order_id}} is {{tool_result.status}}, carrier {{tool_result.carrier}}.",
  ];
  sites.docs.route(
    "/replay.html",
    docsPage({
      widgetUrl: sites.assets.url("/edge-chat.js"),
      attrs: `tools-src="./tools.py" tool-tag="orders" engine="scripted" script='${attr(script)}'`,
    }),
  );
  await page.goto(sites.docs.url("/replay.html"));
  const widget = page.locator("edge-chat");
  const answer = widget.getByText("Order A-1003 is delivered, carrier UPS.", { exact: true });
  for (const [i, question] of ["Where is a-1003?", "And now?", "Once more?"].entries()) {
    await ask(widget, question);
    await expect(answer).toHaveCount(i + 1);
  }
  await expect(widget.getByText("{{tool_result", { exact: false })).toHaveCount(0);
  const receipts = await recorded(page, "edge-receipt", 3);
  expect(receipts.map((r) => [r.detail.outcome, r.detail.calls?.map((c) => `${c.tool_name}:${c.status}`)])).toEqual([
    ["answered", ["order_status:ok"]],
    ["answered", ["order_status:ok"]],
    ["answered", ["order_status:ok"]],
  ]);
  expect(await recorded(page, "edge-error", 0)).toEqual([]);
});

test("a script that runs out inside a question is script_exhausted, saying how many outputs it has", async ({
  page,
}) => {
  test.setTimeout(150_000);
  await page.context().addInitScript(RECORD_RUNS);
  // One output, a call: its result goes back to the model, which then has nothing to say.
  const script = [{ tool_name: "order_status", arguments: { order_id: "A-1001" } }];
  sites.docs.route(
    "/short.html",
    docsPage({
      widgetUrl: sites.assets.url("/edge-chat.js"),
      attrs: `tools-src="./tools.py" tool-tag="orders" engine="scripted" script='${attr(script)}'`,
    }),
  );
  await page.goto(sites.docs.url("/short.html"));
  const widget = page.locator("edge-chat");
  await ask(widget, "Where is A-1001?");
  await expect(widget.getByText("Not answered (script_exhausted)")).toBeVisible();
  const [error] = await recorded(page, "edge-error", 1);
  expect(error!.detail.code).toBe("script_exhausted");
  expect(JSON.stringify(error!.detail)).toContain(
    "The script's 1 output(s) ran out: this prompt used 1 and asked for one more",
  );
});
