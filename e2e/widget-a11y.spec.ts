// Accessibility of the <edge-chat> widget with axe-core (it analyses inside shadow roots), in the
// states a person meets: the WebGPU notice with the demo offer, an answer with a tool card, the
// confirmation card, a confirmed action, and a failed run. No serious or critical violations.
// Keyboard: the question field is labelled and focusable, Enter sends, the buttons are reachable.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { ensureWidgetBuild, ROOT, startWidgetSites } from "./widget-servers.ts";

let sites: Awaited<ReturnType<typeof startWidgetSites>>;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  sites = await startWidgetSites({ widgetDir: ensureWidgetBuild() });
});
test.afterAll(async () => {
  await sites?.close();
});

async function expectNoSeriousViolations(page: Page, state: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    .include("edge-chat")
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  // axe looked inside the shadow root (its selectors for shadow DOM nodes are nested arrays).
  expect(results.passes.some((rule) => rule.nodes.some((n) => Array.isArray(n.target[0])))).toBe(true);
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    serious.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    `axe violations in state "${state}"`,
  ).toEqual([]);
}

test("the widget has no serious or critical axe violations, and works from the keyboard", async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto(sites.docs.url("/widget.html"));
  const widget = page.locator("edge-chat");
  await expect(widget.getByText("WebGPU is not available")).toBeVisible();
  await expectNoSeriousViolations(page, "WebGPU notice");
  mkdirSync(path.join(ROOT, ".cache", "screenshots"), { recursive: true });
  await widget.screenshot({ path: path.join(ROOT, ".cache", "screenshots", "widget-webgpu-notice.png") });

  // Keyboard only: Tab reaches the demo button (after the page's own link), Enter activates it.
  const demo = widget.getByRole("button", { name: "Use the Scripted demo (no model)" });
  for (
    let i = 0;
    i < 10 &&
    !(await demo.evaluate(
      (el) => el.getRootNode() instanceof ShadowRoot && (el.getRootNode() as ShadowRoot).activeElement === el,
    ));
    i++
  ) {
    await page.keyboard.press("Tab");
  }
  await page.keyboard.press("Enter");
  const input = widget.getByRole("textbox", { name: "Your question" });
  await expect(input).toBeEnabled();
  await input.focus();
  await page.keyboard.type("Where is order A-1001?");
  await page.keyboard.press("Enter");
  await expect(widget.getByText("Order A-1001 has shipped with DHL: 2 items, 129.90 in total.")).toBeVisible();
  // The streamed answer is in a live region (role=log) and no longer busy.
  await expect(widget.getByRole("log", { name: "Conversation" })).toBeVisible();
  await expect(widget.locator(".assistant[aria-busy=true]")).toHaveCount(0);
  await expectNoSeriousViolations(page, "answer with tool card");

  // The run ends after its answer streamed (its receipt is stored): Send is back, not Stop.
  await expect(widget.getByRole("button", { name: "Send" })).toBeEnabled({ timeout: 60_000 });
  await input.fill("Submit draft D-SKU-7-1");
  await page.keyboard.press("Enter");
  const card = widget.getByRole("article", { name: "Confirm submit_order?" });
  await expect(card).toBeVisible();
  await expectNoSeriousViolations(page, "confirmation card");

  // Confirm from the keyboard: focus the button, press Enter.
  await card.getByRole("button", { name: "Confirm" }).focus();
  await page.keyboard.press("Enter");
  await expect(card.getByText("confirmed")).toBeVisible();
  await expectNoSeriousViolations(page, "confirmed");

  // A failed run shows its code: a script that runs out inside a question (after its last output
  // a question would replay the script, src/chat/script.ts). A changed attribute is a new session.
  await widget.evaluate((el) =>
    el.setAttribute("script", JSON.stringify([{ tool_name: "order_status", arguments: { order_id: "A-1002" } }])),
  );
  await expect(widget.getByRole("button", { name: "Send" })).toBeEnabled({ timeout: 60_000 });
  await input.fill("Anything else?");
  await page.keyboard.press("Enter");
  await expect(widget.getByText("Not answered (script_exhausted)")).toBeVisible();
  await expectNoSeriousViolations(page, "failed run");
});
