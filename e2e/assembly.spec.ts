// The browser front doors get the session the browser root builds (src/assembly/browser.ts): the
// widget's working part (WidgetCore) and createBrowserEdge() asked the same question with the same
// scripted model and tools file, on one IndexedDB database, in real Chromium with the sandboxed
// Pyodide runner. Equal receipts (but for ids and times), one receipt chain, the same pending action.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import { sameParts } from "../test/fixtures/receipt-parts.ts";
import { storedReceipts } from "./playground-helpers.ts";

const PAGE = "/e2e/pages/assembly.html";
const TOOLS = "/examples/tools.py";
const DB = "edge-assembly-test";

type Receipt = Record<string, unknown> & { calls: Record<string, unknown>[] };
type Run = { outcome: string; answer?: string; receipt: Receipt; pending_action?: Record<string, unknown> };

async function ask(page: Page, door: "widget" | "root", script: unknown[], prompt: string): Promise<Run> {
  const run: unknown = await page.evaluate(
    async ([d, s, p, db, tools]): Promise<unknown> =>
      d === "widget"
        ? window.edgeAssemblyTest.widget(tools!, s!, p!, db!)
        : window.edgeAssemblyTest.root(tools!, s!, p!, db!),
    [door, JSON.stringify(script), prompt, DB, TOOLS],
  );
  return run as Run;
}

test("the widget's session is the one the browser root builds: same receipt, one chain, the same pending action", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.goto(PAGE);
  await expect(page.locator("#status")).toHaveText("ready");
  const fee = [{ tool_name: "fee_quote", arguments: { amount: 250 } }, "The fee for 250 is {{tool_result.fee}} EUR."];
  const widget = await ask(page, "widget", fee, "Fee for 250?");
  const root = await ask(page, "root", fee, "Fee for 250?");
  expect(widget).toMatchObject({ outcome: "answered", answer: "The fee for 250 is 0.75 EUR." });
  expect(widget.receipt.calls).toMatchObject([{ tool_name: "fee_quote", status: "ok" }]);
  expect(sameParts(root.receipt)).toEqual(sameParts(widget.receipt));
  // One store: the root's receipt is chained onto the widget's.
  expect(root.receipt.prev_receipt_sha256).toBe(widget.receipt.receipt_sha256);

  const submit = [{ tool_name: "submit_order", arguments: { draft_id: "D-1" } }];
  const widgetPending = await ask(page, "widget", submit, "Submit D-1");
  const rootPending = await ask(page, "root", submit, "Submit D-1");
  expect(widgetPending.outcome).toBe("pending_confirmation");
  expect(sameParts(rootPending.receipt)).toEqual(sameParts(widgetPending.receipt));
  // The widget hands out the action without its token; the root's ticket has it.
  expect(widgetPending.pending_action).toMatchObject({ tool: "submit_order", arguments: { draft_id: "D-1" } });
  expect(rootPending.pending_action).toMatchObject({ confirmation_token: expect.any(String) });
});

test("the playground's session is the one the browser root builds: same receipt, one chain", async ({ page }) => {
  test.setTimeout(240_000);
  const script = [
    { tool_name: "fee_quote", arguments: { amount: 250 } },
    "The fee for 250 is {{tool_result.fee}} EUR.",
  ];
  await page.goto("/");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 120_000 });
  await page.locator("#script").fill(JSON.stringify(script));
  await page.getByLabel("Message").fill("Fee for 250?");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.locator(".entry.answer .text")).toHaveText("The fee for 250 is 0.75 EUR.", { timeout: 60_000 });
  const stored: unknown = (await storedReceipts(page)).at(-1);
  const fromPlayground = stored as Receipt;

  // The same origin and database (the playground's "edge-web"): the root's request as the playground makes it.
  await page.goto(PAGE);
  await expect(page.locator("#status")).toHaveText("ready");
  const run: unknown = await page.evaluate(
    ([s, tools]) => window.edgeAssemblyTest.root(tools!, s!, "Fee for 250?", "edge-web", "playground"),
    [JSON.stringify(script), TOOLS],
  );
  const fromRoot = (run as Run).receipt;
  expect(fromPlayground.calls).toMatchObject([{ tool_name: "fee_quote", status: "ok" }]);
  expect(sameParts(fromRoot)).toEqual(sameParts(fromPlayground));
  expect(fromRoot.prev_receipt_sha256).toBe(fromPlayground.receipt_sha256);
});
