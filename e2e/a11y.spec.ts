// Accessibility of the playground with axe-core: no serious or critical violations on the main
// screen, on each panel, with a tool call and a confirmation card in the chat, in light and dark.
// (The widget's part of this check lives with the widget's specs.)
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join(" | ")}`,
    );
}

// One page for both colour schemes: the same screens are checked in light, then again in dark
// (the scheme switched in place; the app follows prefers-color-scheme through CSS alone). One
// boot instead of two: the test run must stay under 40 minutes (docs/decisions.md).
test("playground (light, then dark): no serious or critical axe violations on any panel", async ({ page }) => {
  test.setTimeout(240_000);
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/?nosw");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  expect(await seriousViolations(page)).toEqual([]);

  // Chat with a tool call and a pending confirmation on screen.
  await page.locator("#script").fill(JSON.stringify([{ tool_name: "submit_order", arguments: { draft_id: "D-1" } }]));
  await page.getByLabel("Message").fill("Submit D-1");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.locator(".confirm-card")).toBeVisible({ timeout: 60_000 });
  await expect(page.locator(".confirm-card dl")).toBeVisible();

  for (const scheme of ["light", "dark"] as const) {
    await test.step(scheme, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches)).toBe(scheme === "dark");
      await page.getByRole("tab", { name: "Chat" }).click();
      await expect(page.locator(".confirm-card dl")).toBeVisible();
      expect(await seriousViolations(page), `${scheme}: chat`).toEqual([]);
      if (scheme === "dark") await page.screenshot({ path: ".cache/screenshots/playground-dark.png", fullPage: true });
      for (const tab of ["Try a tool", "Receipts", "Imprints", "Facts", "Workspace"]) {
        await page.getByRole("tab", { name: tab }).click();
        await expect(page.getByRole("tabpanel")).toBeVisible();
        await expect(page.getByRole("tabpanel")).not.toContainText("Loading…");
        expect(await seriousViolations(page), `${scheme}: ${tab}`).toEqual([]);
      }
    });
  }
});

test("keyboard: tabs move with arrow keys and the prompt sends with Enter", async ({ page }) => {
  await page.goto("/?nosw");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  await page.getByRole("tab", { name: "Chat" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "Try a tool" })).toBeFocused();
  await expect(page.getByRole("tab", { name: "Try a tool" })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("End");
  await expect(page.getByRole("tab", { name: "Workspace" })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Home");
  await expect(page.getByRole("tab", { name: "Chat" })).toHaveAttribute("aria-selected", "true");
  await page.locator("#script").fill(JSON.stringify(["Hello from the script."]));
  await page.getByLabel("Message").focus();
  await page.keyboard.type("hi");
  await page.keyboard.press("Enter");
  await expect(page.locator(".entry.answer .text")).toHaveText("Hello from the script.", { timeout: 60_000 });
});
