// A Driver (driver.ts) over puppeteer-core: Firefox ESR over WebDriver BiDi (firefox.ts), and
// Chromium over CDP (chromium.ts, for the load loop's measurements: the Chromium journeys are
// Playwright's, e2e/*.spec.ts). A fresh profile per launch, the browser's default preferences apart
// from puppeteer's automation ones (no prompt is answered: a permission prompt stays pending, as
// for a visitor who ignores it). The console and uncaught errors of the page are collected.
import puppeteer, { type Browser, type LaunchOptions, type Page } from "puppeteer-core";
import type { BrowserName, Driver } from "./driver.ts";

export async function launchPuppeteer(name: BrowserName, options: LaunchOptions): Promise<Driver> {
  const browser: Browser = await puppeteer.launch({ headless: true, timeout: 120_000, ...options });
  const page: Page = await browser.newPage();
  page.setDefaultTimeout(180_000);
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error")
      errors.push(`console: ${m.text()} (${m.location().url ?? "?"}:${m.location().lineNumber ?? "?"})`);
  });
  page.on("pageerror", (e) => errors.push(`uncaught: ${e instanceof Error ? e.message : String(e)}`));
  return {
    name,
    goto: async (url) => void (await page.goto(url, { waitUntil: "load", timeout: 180_000 })),
    reload: async () => void (await page.reload({ waitUntil: "load", timeout: 180_000 })),
    run: <R>(expression: string) => page.evaluate(expression) as Promise<R>,
    async click(css) {
      const el = await page.waitForSelector(css, { visible: true, timeout: 60_000 });
      await el!.click();
    },
    async type(css, text) {
      await page.waitForSelector(css, { visible: true, timeout: 60_000 });
      await page.focus(css);
      await page.keyboard.type(text);
    },
    async chooseFile(css, path, shadowHost) {
      // Puppeteer's ">>>" goes into the host's shadow root.
      const el = await page.waitForSelector(shadowHost ? `${shadowHost} >>> ${css}` : css, { timeout: 60_000 });
      await (el as { uploadFile(...paths: string[]): Promise<void> }).uploadFile(path);
    },
    errors: async () => [...errors],
    close: () => browser.close(),
  };
}
