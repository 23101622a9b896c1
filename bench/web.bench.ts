// The playground's web budgets, printed as JSON:
//  * initial JavaScript before any model or Pyodide loads: gzip bytes of the entry chunks that
//    index.html references (script + modulepreload) — budget ≤ 150 KB — and, for honesty, every JS
//    file the page actually fetched before "tools inspected" (the lazily loaded editor included;
//    Pyodide's own files and web-llm excluded, they are not the page's JS);
//  * time from navigation to "tools inspected" (the `edge:tools-inspected` performance mark),
//    cold (fresh profile: no HTTP cache, no service worker) and warm (second visit, served by the
//    service worker), median of N runs each.
// Run: `node --import tsx bench/web.bench.ts [--runs 3]`. Builds the app into a temp dir and serves
// it with bench/static-server.ts (not `vite preview`: Vite's per-project lock).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium, type Browser } from "playwright-core";
import { build } from "vite";
import { CHROMIUM_ARGS, findChromium } from "../scripts/chromium.mjs";
import { serveStatic } from "./static-server.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BUDGET_BYTES = 150 * 1024;
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Math.max(1, Number(process.argv[runsArg + 1]) || 3) : 3;
const log = (...a: unknown[]): void => console.error("[web.bench]", ...a);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function gz(dist: string, url: string): Promise<{ file: string; bytes: number; gzip: number }> {
  const body = await readFile(join(dist, url.replace(/^\//, "")));
  return { file: url, bytes: body.length, gzip: gzipSync(body, { level: 9 }).length };
}

async function main(): Promise<void> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error("No Chromium found (set CHROMIUM_PATH or install Debian's chromium).");
  const dist = await mkdtemp(join(tmpdir(), "edge-web-bench-"));
  let browser: Browser | undefined;
  let server: Awaited<ReturnType<typeof serveStatic>> | undefined;
  try {
    log(`building the app into ${dist}`);
    await build({ root: ROOT, logLevel: "warn", build: { outDir: dist, emptyOutDir: true } });
    const html = await readFile(join(dist, "index.html"), "utf8");
    const entryUrls = [
      ...[...html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"/g)].map((m) => m[1]!),
      ...[...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)].map((m) => m[1]!),
    ];
    const entry = await Promise.all(entryUrls.map((u) => gz(dist, u)));
    const css = await Promise.all(
      [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((m) => gz(dist, m[1]!)),
    );
    const entryGzip = entry.reduce((s, f) => s + f.gzip, 0);

    server = await serveStatic(dist, { maxLifetimeMs: 15 * 60_000 });
    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    const base = server.url;

    const cold: number[] = [];
    const warm: number[] = [];
    let fetchedJs: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const js: string[] = [];
      page.on("request", (r) => {
        const u = new URL(r.url());
        if (u.origin + "/" === base && /\.m?js$/.test(u.pathname) && !u.pathname.startsWith("/pyodide/"))
          js.push(u.pathname);
      });
      await page.goto(base);
      await page.waitForFunction(() => performance.getEntriesByName("edge:tools-inspected").length > 0, null, {
        timeout: 120_000,
      });
      cold.push(await page.evaluate(() => performance.getEntriesByName("edge:tools-inspected")[0]!.startTime));
      if (i === 0) fetchedJs = [...new Set(js)];
      // Warm: the service worker has precached the app (offline-ready); reload and measure again.
      await page.waitForFunction(() => document.body.dataset.offlineReady === "1", null, { timeout: 120_000 });
      for (let w = 0; w < 1; w++) {
        await page.reload();
        await page.waitForFunction(() => performance.getEntriesByName("edge:tools-inspected").length > 0, null, {
          timeout: 120_000,
        });
        const controlled = await page.evaluate(() => navigator.serviceWorker.controller !== null);
        if (!controlled) throw new Error("warm run was not served by the service worker");
        warm.push(await page.evaluate(() => performance.getEntriesByName("edge:tools-inspected")[0]!.startTime));
      }
      await context.close();
      log(`run ${i + 1}/${RUNS}: cold ${Math.round(cold.at(-1)!)} ms, warm ${Math.round(warm.at(-1)!)} ms`);
    }
    const beforeInspected = await Promise.all(
      fetchedJs.filter((u) => !/\/sw\.js$|\/workbox-/.test(u)).map((u) => gz(dist, u)),
    );
    const result = {
      bench: "web.playground",
      chromium: browser.version(),
      runs: RUNS,
      initial_js: {
        budget_gzip_bytes: BUDGET_BYTES,
        entry_gzip_bytes: entryGzip,
        within_budget: entryGzip <= BUDGET_BYTES,
        entry_files: entry,
        css_gzip_bytes: css.reduce((s, f) => s + f.gzip, 0),
        js_fetched_before_inspected_gzip_bytes: beforeInspected.reduce((s, f) => s + f.gzip, 0),
        js_fetched_before_inspected: beforeInspected,
        note: "entry = what index.html references; fetched-before-inspected adds the lazily loaded CodeMirror chunk and the runner worker bundle (Pyodide's files and web-llm are not counted: neither is loaded as the page's JS before a model is chosen).",
      },
      tools_inspected_ms: {
        cold_median: Math.round(median(cold)),
        warm_median: Math.round(median(warm)),
        cold: cold.map(Math.round),
        warm: warm.map(Math.round),
        warm_over_cold: Number((median(warm) / median(cold)).toFixed(3)),
      },
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await browser?.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await rm(dist, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
