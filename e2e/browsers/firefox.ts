// Firefox ESR (Debian's firefox-esr) over WebDriver BiDi with puppeteer-core (puppeteer-driver.ts).
import type { Driver } from "./driver.ts";
import { launchPuppeteer } from "./puppeteer-driver.ts";

export const FIREFOX_PATH = process.env.EDGE_FIREFOX_PATH ?? "/usr/bin/firefox-esr";

export function launchFirefox(): Promise<Driver> {
  return launchPuppeteer("firefox", { browser: "firefox", executablePath: FIREFOX_PATH, protocol: "webDriverBiDi" });
}
