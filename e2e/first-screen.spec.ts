// The first screen a newcomer sees, on a laptop (1400×900) and a phone (390×844): a slim header,
// one place to choose and load a model that says what the picked model is (its download, what to
// expect), the tools and the question box — all without scrolling; a failed download is one short
// line with one action (its full message on a click), and nothing on the screen fails axe.
import AxeBuilder from "@axe-core/playwright";
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import { openToolsFile } from "./playground-helpers.ts";

const VIEWPORTS = [
  { name: "laptop", width: 1400, height: 900, header: 64, modelBottom: 240, errorLines: 2 },
  { name: "phone", width: 390, height: 844, header: 64, modelBottom: 420, errorLines: 4 },
] as const;

/** The element's box lies wholly inside the viewport (not scrolled, not cut off). */
async function expectOnScreen(page: Page, locator: Locator, what: string): Promise<void> {
  const box = await locator.boundingBox();
  const vp = page.viewportSize()!;
  expect(box, `${what} is rendered`).not.toBeNull();
  expect(box!.y, `${what}: top`).toBeGreaterThanOrEqual(0);
  expect(box!.x, `${what}: left`).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height, `${what}: bottom within ${vp.height}`).toBeLessThanOrEqual(vp.height);
  expect(box!.x + box!.width, `${what}: right within ${vp.width}`).toBeLessThanOrEqual(vp.width);
}

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`);
}

for (const vp of VIEWPORTS) {
  test.describe(`${vp.name} ${vp.width}×${vp.height}`, () => {
    test.use({ viewport: { width: vp.width, height: vp.height } });

    test("the model choice, the tools and the question box are on the first screen; a failed download is one line with one action", async ({
      page,
    }) => {
      test.setTimeout(180_000);
      await page.goto("/?nosw");
      await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });

      // A slim header, and the model card right under it.
      expect((await page.locator(".app-header").boundingBox())!.height).toBeLessThanOrEqual(vp.header);
      const card = page.locator("#engine-panel");
      const cardBox = (await card.boundingBox())!;
      expect(cardBox.y + cardBox.height).toBeLessThanOrEqual(vp.modelBottom);
      await expectOnScreen(page, page.locator("#engine-select"), "the model picker");
      await expectOnScreen(page, page.getByRole("button", { name: "Use the demo", exact: true }), "the load button");
      await expectOnScreen(page, page.locator("#tool-choice"), "the tool choice");
      await expectOnScreen(page, page.getByLabel("Message"), "the question box");
      await expectOnScreen(page, page.getByRole("button", { name: "Send", exact: true }), "Send");
      // The tools: their names in the chat's engine line, and (where there is room) the tools pane.
      await expectOnScreen(page, page.locator("#chat-info"), "the active tools");
      await expect(page.locator("#chat-info")).toContainText("fee_quote");
      if (vp.name === "laptop") await expectOnScreen(page, page.locator("#tools-h"), "the Tools heading");
      // The label "Tool choice" sits right before its control, on the same line.
      const label = (await page.locator("label[for='tool-choice']").boundingBox())!;
      const choice = (await page.locator("#tool-choice").boundingBox())!;
      expect(Math.abs(label.y + label.height / 2 - (choice.y + choice.height / 2))).toBeLessThan(8);
      expect(choice.x - (label.x + label.width)).toBeLessThan(24);

      // Picking a model says what it is: its download size and what to expect.
      const about = page.locator("#model-about");
      await expect(about).toContainText("Nothing to download");
      await page.locator("#engine-select").selectOption("llamacpp:smollm2-135m-instruct-q4_1");
      await expect(about).toContainText("98 MB download");
      await expect(about).toContainText("First answer in ~1.5 s");
      await expect(about).toContainText("tool calls: eval:tools 59 %");
      await expect(page.getByRole("button", { name: "Load model", exact: true })).toBeVisible();
      expect(await seriousViolations(page), "first screen").toEqual([]);

      // Its download fails (the host answers 404 here; never a real download): one short line that
      // names the reason and the engine the chat uses, one action, the whole message on a click.
      await page.context().route(
        (url) => url.hostname === "huggingface.co",
        (route) => route.fulfill({ status: 404, headers: { "access-control-allow-origin": "*" }, body: "not here" }),
      );
      await page.getByRole("button", { name: "Load model", exact: true }).click();
      const status = page.locator("#engine-status");
      await expect(status).toHaveAttribute("data-state", "error", { timeout: 60_000 });
      await expect(status.locator(".failed-line")).toHaveText(
        "Could not load smollm2-135m-instruct-q4_1: the server answered HTTP 404 (model_fetch_failed). The chat uses Scripted demo (no model).",
      );
      await expect(status.getByRole("button")).toHaveCount(1);
      await expect(status.getByRole("button", { name: "Try again" })).toBeVisible();
      const details = status.locator("details");
      expect(await details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      await expect(page.locator("#gpu-explain")).toBeHidden();
      // Short (it was eight lines beside a banner that said the same), and the question box is
      // still in view.
      const lineHeight = await status.evaluate((s) => parseFloat(getComputedStyle(s).lineHeight));
      expect((await status.boundingBox())!.height).toBeLessThanOrEqual(vp.errorLines * lineHeight + 8);
      await expectOnScreen(page, page.getByLabel("Message"), "the question box after a failed load");
      await details.locator("summary").click();
      await expect(details).toContainText("download the file yourself and pick it from disk");
      expect(await seriousViolations(page), "a failed load").toEqual([]);
      await details.locator("summary").click();
      // The action does what it says: the same load again (and fails the same way here).
      await status.getByRole("button", { name: "Try again" }).click();
      await expect(status.locator(".failed-line")).toContainText("HTTP 404", { timeout: 60_000 });
    });
  });
}

test("a tool without a description is flagged in the tools list; the example's tools all have one", async ({
  page,
}) => {
  await page.goto("/?nosw");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  await expect(page.locator(".tool[data-tool='hello_world'] .tool-desc")).toContainText("Say hello");
  await expect(page.locator("[data-warning='no_description']")).toHaveCount(0);
  await openToolsFile(
    page,
    "bare.py",
    'from edgestudio.tools import edge_tool\n\n@edge_tool\ndef ping() -> str:\n    return "pong"\n\n@edge_tool\ndef echo(text: str) -> str:\n    """Repeat the text back."""\n    return text\n',
    2,
  );
  const warning = page.locator(".tool[data-tool='ping'] [data-warning='no_description']");
  await expect(warning).toHaveText(/^No description: a model chooses tools by their descriptions/);
  await expect(page.locator("[data-warning='no_description']")).toHaveCount(1);
});
