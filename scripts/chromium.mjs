// Where is a Chromium for Playwright? $CHROMIUM_PATH, then Debian's /usr/bin/chromium, then
// Playwright's own download (when one was installed). Shared by the test script and the
// Playwright config so both agree.
import { existsSync } from "node:fs";

export function findChromium() {
  const candidates = [
    process.env.CHROMIUM_PATH,
    "/usr/bin/chromium",
    "/usr/lib/chromium/chromium",
    "/usr/bin/chromium-browser",
  ];
  for (const path of candidates) if (path && existsSync(path)) return path;
  return undefined;
}

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
