// The Chromium specs' `test`: by default each test gets a fresh browser profile that has visited
// the app once before — a returning visitor. On that first visit (once per Playwright worker, at
// /?debug, so no service worker is installed) the app stored the runner's memory snapshot in
// Cache Storage and the browser cached Pyodide's files; each test then starts from its own copy of
// that profile, with nothing else in it (no receipts, models, workspace or service worker). Making
// the snapshot costs ≈ 8 s of CPU per fresh profile on this machine (12.6 s against 4.2 s to a
// ready playground), which every test paid before; the run must stay under 40 minutes
// (docs/decisions.md, "The test run's length").
//
// A spec about the first visit itself (making the snapshot, installing the service worker, a
// newcomer's first minutes) or about storage totals (a quota) says
// `test.use({ freshProfile: true })` and gets Playwright's usual fresh context.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, expect, test as base } from "@playwright/test";

const SNAPSHOT_CACHE = "edge-runner-snapshots"; // src/runner/browser/snapshot-cache.ts

function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `edge-e2e-${label}-`));
}

export const test = base.extend<{ freshProfile: boolean }, { visitedProfile: string }>({
  // EDGE_E2E_FRESH=1: every test in a fresh profile (to compare, or to rule the copy out).
  freshProfile: [process.env.EDGE_E2E_FRESH === "1", { option: true }],

  visitedProfile: [
    async ({ launchOptions }, use, workerInfo) => {
      const baseURL = workerInfo.project.use.baseURL!;
      const dir = tempDir("profile");
      const context = await chromium.launchPersistentContext(dir, { ...launchOptions, baseURL });
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto("/?debug");
        await page.waitForFunction(() => window.__edgeReady !== undefined, null, { timeout: 180_000 });
        await page.evaluate(() => window.__edgeReady);
        // The snapshot is stored after the first worker booted from it; wait until it is there.
        await page.waitForFunction(
          async (name) => (await (await caches.open(name)).keys()).length > 0,
          SNAPSHOT_CACHE,
          { timeout: 180_000, polling: 250 },
        );
      } finally {
        await context.close();
      }
      await use(dir);
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: "worker", timeout: 240_000 },
  ],

  context: async ({ context, freshProfile, visitedProfile, launchOptions, baseURL, viewport }, use) => {
    if (freshProfile) return use(context);
    const dir = tempDir("test");
    cpSync(visitedProfile, dir, { recursive: true, filter: (src) => !/Singleton/.test(src) });
    const own = await chromium.launchPersistentContext(dir, { ...launchOptions, baseURL, viewport });
    try {
      await use(own);
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },

  // A persistent context opens with one page: that one, rather than a second tab.
  page: async ({ context, freshProfile }, use) => {
    await use((!freshProfile && context.pages()[0]) || (await context.newPage()));
  },
});

export { expect };
