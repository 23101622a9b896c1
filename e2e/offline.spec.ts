// The installable, offline playground: after one online visit the service worker (Workbox,
// vite-plugin-pwa) has precached the app shell, the JS chunks, the examples and Pyodide, so with
// the network cut the page reloads — still cross-origin isolated — inspects the example and runs a
// tool in the sandboxed runner.
import { expect, test } from "./fixtures.ts";

// A fresh profile (e2e/fixtures.ts): the first online visit, when the service worker installs, is what it is about.
test.use({ freshProfile: true });

test("after one online visit the playground reloads and runs tools offline", async ({ page, context }) => {
  test.setTimeout(180_000);
  await page.goto("/");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  // The service worker installed and precached everything (onOfflineReady).
  await expect(page.locator("body")).toHaveAttribute("data-offline-ready", "1", { timeout: 90_000 });
  const manifest = await page.evaluate(async () => {
    const link = document.querySelector<HTMLLinkElement>("link[rel=manifest]");
    return link
      ? ((await (await fetch(link.href)).json()) as {
          name: string;
          icons: { sizes: string; purpose?: string }[];
          display: string;
        })
      : null;
  });
  expect(manifest?.name).toBe("Edge playground");
  expect(manifest?.display).toBe("standalone");
  expect(manifest?.icons.map((i) => `${i.sizes}:${i.purpose ?? "any"}`)).toEqual([
    "192x192:any",
    "512x512:any",
    "512x512:maskable",
  ]);
  // Chromium's own installability check (what enables "Install app"): no errors about the manifest,
  // icons or service worker. "in-incognito" is the test browser's profile, not the app.
  const cdp = await context.newCDPSession(page);
  const { installabilityErrors } = (await cdp.send("Page.getInstallabilityErrors")) as {
    installabilityErrors: { errorId: string }[];
  };
  expect(installabilityErrors.map((e) => e.errorId).filter((id) => id !== "in-incognito")).toEqual([]);
  await cdp.detach();

  await context.setOffline(true);
  expect(
    await page.evaluate(() =>
      fetch("/definitely-not-cached.txt").then(
        () => "reached",
        () => "offline",
      ),
    ),
  ).toBe("offline");
  await page.reload();
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  // Served by the service worker, the page is still cross-origin isolated (COOP/COEP came with the
  // precached response), so llama.cpp keeps its threads offline.
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await expect(page.locator("#tools-status")).toContainText("Inspected tools.py: 5 tool(s)");

  await page.getByRole("tab", { name: "Try a tool" }).click();
  await page.getByLabel("Tool", { exact: true }).selectOption("fee_quote");
  await page.locator("#try-form input[data-field=amount]").fill("250");
  await page.getByRole("button", { name: "Run tool" }).click();
  await expect(page.locator("#try-result")).toContainText('"fee": 0.75', { timeout: 60_000 });
  await page.screenshot({ path: ".cache/screenshots/playground-offline.png", fullPage: true });
  await context.setOffline(false);
});
