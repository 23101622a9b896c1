// `npm run test:e2e`: the Playwright specs in e2e/ in real Chromium (see playwright.config.ts for
// how Chromium is found and how the app is built and served). Extra arguments go to Playwright.
import { spawnSync } from "node:child_process";

const r = spawnSync("npx", ["playwright", "test", "--config", "playwright.config.ts", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: process.env,
});
process.exit(r.status ?? 1);
