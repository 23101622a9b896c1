// Browser tests in real Chromium against the production build (`vite build && vite preview`).
// Chromium: $CHROMIUM_PATH, else Debian's /usr/bin/chromium, else Playwright's own download.
import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS, findChromium } from "./scripts/chromium.mjs";

// EDGE_E2E_PORT lets two checkouts run their browser tests side by side.
const PORT = Number(process.env.EDGE_E2E_PORT ?? 4173);
const executablePath = findChromium();
// EDGE_E2E_BASE_URL=http://127.0.0.1:5173 runs the specs against a server you started yourself
// (e.g. the dev server, to check the dev-time worker bundle); otherwise build + preview.
const external = process.env.EDGE_E2E_BASE_URL;

export default defineConfig({
  testDir: "e2e",
  // Not the default test-results/: other Playwright runs in this checkout clear that folder.
  outputDir: ".cache/playwright-output",
  // Two test files at a time (one per core); a file's tests run in order. The memory soak
  // (e2e/soak.spec.ts) is a memory goal, not part of `npm test`: `npm run test:soak` runs it alone,
  // so its measurement shares the cores with nothing (docs/decisions.md).
  workers: Number(process.env.EDGE_E2E_WORKERS ?? 2),
  fullyParallel: false,
  projects:
    process.env.EDGE_SOAK === "1"
      ? [{ name: "soak", testMatch: "soak.spec.ts" }]
      : [{ name: "chromium", testMatch: "*.spec.ts", testIgnore: "soak.spec.ts" }],
  timeout: 120_000,
  expect: { timeout: 60_000 },
  retries: 0,
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [["list"], ["json"]] : [["list"]],
  use: {
    baseURL: external ?? `http://127.0.0.1:${PORT}`,
    browserName: "chromium",
    launchOptions: { ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS },
    // Traces are written during every test; in a checkout shared by parallel runs a cleared
    // output folder then fails passing tests. Opt in with EDGE_E2E_TRACE=1.
    trace: process.env.EDGE_E2E_TRACE ? "retain-on-failure" : "off",
  },
  webServer: external
    ? undefined
    : {
        // EDGE_E2E_PAGES adds e2e/pages/*.html (test-only pages) to this build.
        command: `npx vite build && npx vite preview --port ${PORT} --strictPort --host 127.0.0.1`,
        env: { EDGE_E2E_PAGES: "1" },
        url: `http://127.0.0.1:${PORT}/`,
        reuseExistingServer: !process.env.CI,
        timeout: 180_000,
        stdout: "ignore",
        stderr: "pipe",
      },
});
