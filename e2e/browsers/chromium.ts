// Chromium (Debian's, or $CHROMIUM_PATH: scripts/chromium.mjs) over CDP with puppeteer-core
// (puppeteer-driver.ts), with the Playwright config's flags. Only the load loop uses it
// (load-loop.ts, to measure Chromium beside Firefox and WebKit); the Chromium journeys are the
// Playwright specs.
import { CHROMIUM_ARGS, findChromium } from "../../scripts/chromium.mjs";
import type { Driver } from "./driver.ts";
import { launchPuppeteer } from "./puppeteer-driver.ts";

export const CHROMIUM_PATH: string | undefined = findChromium();

export function launchChromium(): Promise<Driver> {
  return launchPuppeteer("chromium", {
    browser: "chrome",
    ...(CHROMIUM_PATH ? { executablePath: CHROMIUM_PATH } : {}),
    args: CHROMIUM_ARGS,
  });
}
