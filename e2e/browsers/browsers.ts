// The browsers the journeys (run.ts) and the load loop (load-loop.ts) drive: how to start each, what
// is missing to run it here, and its pace (WebKitGTK's wasm runs ~3× slower than the others').
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { CHROMIUM_PATH, launchChromium } from "./chromium.ts";
import type { BrowserName, Driver } from "./driver.ts";
import { FIREFOX_PATH, launchFirefox } from "./firefox.ts";
import type { Pace } from "./steps.ts";
import { MINIBROWSER_PATH, launchWebKit } from "./webkit.ts";

export interface BrowserEntry {
  launch: () => Promise<Driver>;
  /** What to install, when the browser is not here. */
  missing: () => string | undefined;
  pace: Pace;
}

export const BROWSERS: Record<BrowserName, BrowserEntry> = {
  firefox: {
    launch: launchFirefox,
    missing: () =>
      existsSync(FIREFOX_PATH) ? undefined : `no Firefox at ${FIREFOX_PATH} (Debian: apt-get install firefox-esr)`,
    pace: { boot: 180_000, model: 240_000, realRun: 600_000 },
  },
  webkit: {
    launch: launchWebKit,
    missing: () =>
      !existsSync(MINIBROWSER_PATH) ||
      spawnSync("sh", ["-c", "command -v WebKitWebDriver && command -v xvfb-run"]).status !== 0
        ? "no WebKitWebDriver/MiniBrowser or xvfb-run (Debian: apt-get install webkit2gtk-driver xvfb)"
        : undefined,
    pace: { boot: 300_000, model: 420_000, realRun: 1_200_000 },
  },
  chromium: {
    launch: launchChromium,
    missing: () => (CHROMIUM_PATH ? undefined : "no Chromium (Debian: apt-get install chromium, or set CHROMIUM_PATH)"),
    pace: { boot: 120_000, model: 180_000, realRun: 600_000 },
  },
};

export function isBrowserName(name: string): name is BrowserName {
  return name in BROWSERS;
}
