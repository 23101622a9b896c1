// The sample docs page (widget.html) as a person opens it: on the playground's dev server it shows
// the widget (its source from the same origin, as the dev server has no asset host); anywhere its
// widget script cannot load, it says so in place of the widget instead of showing nothing.
import { createServer, type ViteDevServer } from "vite";
import path from "node:path";
import { expect, test } from "./fixtures.ts";
import { ROOT, sampleWidgetPage } from "./widget-servers.ts";

test("widget.html on the dev server shows the widget", async ({ page }) => {
  test.setTimeout(180_000);
  const server: ViteDevServer = await createServer({
    root: ROOT,
    configFile: path.join(ROOT, "vite.config.ts"),
    server: { port: 0, host: "127.0.0.1" },
    logLevel: "warn",
  });
  try {
    await server.listen();
    await page.goto(new URL("/widget.html", server.resolvedUrls!.local[0]!).href);
    await expect(page.locator("edge-chat").getByRole("heading", { name: "Ask the order desk" })).toBeVisible({
      timeout: 120_000,
    });
    await expect(page.locator("#widget-missing")).toBeHidden();
  } finally {
    await server.close();
  }
});

test("widget.html whose widget script cannot load says so, with what to run", async ({ page }) => {
  // The page as a docs site would serve it, its asset host down (nothing listens on port 9).
  const html = await sampleWidgetPage("http://127.0.0.1:9");
  await page.route("http://docs.example/**", (route) =>
    route.request().url().endsWith("/widget.html")
      ? route.fulfill({ contentType: "text/html", body: html })
      : route.fulfill({ status: 404, body: "not here" }),
  );
  await page.goto("http://docs.example/widget.html");
  const note = page.getByRole("alert");
  await expect(note).toBeVisible({ timeout: 30_000 });
  await expect(note).toContainText(
    "The chat widget could not load: its script http://127.0.0.1:9/edge-chat.js did not load",
  );
  await expect(note).toContainText("npm run dev");
});
