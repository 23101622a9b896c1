// The memory soak, Chromium half (the Node half is src/runner/memory.soak.test.ts): 200 calls in a
// row through the page's own sandboxed runner host, with no growth of memory beyond 10 % after
// warm-up. Memory is the sum of VmRSS over the whole Chromium process tree (browser, renderers
// — the page and its sandbox frame with the runner workers —, GPU, utility), read from /proc with
// bench/chromium.ts's helpers.
import { readFile } from "node:fs/promises";
import { expect, test, type Page } from "@playwright/test";
import { childrenOf, processTree, vmRssBytes } from "../bench/chromium.ts";
import type { FrozenToolset } from "../src/toolset/freeze.ts";
import { SOAK_TOOLS } from "../test/fixtures/soak-tools.ts";

const WARM_UP = 20;
const TOTAL = 200;
const MAX_GROWTH = 0.1;

declare global {
  interface Window {
    __soakToolset?: FrozenToolset;
  }
}

/** The browser this Playwright worker launched: its child process running Chromium. */
async function browserPid(): Promise<number> {
  const found: number[] = [];
  for (const pid of await childrenOf(process.pid)) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (/chrom/i.test(cmdline.split("\0")[0] ?? "")) found.push(pid);
  }
  if (found.length !== 1) throw new Error(`expected one Chromium child of the test worker, found ${found.length}`);
  return found[0]!;
}

async function treeRss(root: number): Promise<{ bytes: number; processes: number }> {
  const pids = await processTree(root);
  let bytes = 0;
  for (const p of pids) bytes += await vmRssBytes(p);
  return { bytes, processes: pids.length };
}

/** Let terminated workers be torn down, then take the median of a few samples. */
async function settledRss(page: Page, root: number): Promise<{ bytes: number; processes: number }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("HeapProfiler.collectGarbage").catch(() => undefined); // the page's heap; best effort
  await cdp.detach();
  await page.waitForTimeout(2000);
  const samples: Array<{ bytes: number; processes: number }> = [];
  for (let i = 0; i < 5; i++) {
    samples.push(await treeRss(root));
    await page.waitForTimeout(400);
  }
  samples.sort((a, b) => a.bytes - b.bytes);
  return samples[2]!;
}

/** Calls number `from` … `to - 1`, in the page; returns the failures (none expected). */
function runCalls(page: Page, from: number, to: number): Promise<string[]> {
  return page.evaluate(
    async ([from, to]) => {
      const edge = window.__edge!;
      const toolset = window.__soakToolset!;
      const failures: string[] = [];
      for (let i = from; i < to; i++) {
        const n = 1000 + i;
        const out = await edge.call(toolset, "work", { n });
        const r = out.result as { n?: number } | undefined;
        if (!out.ok || !out.runner_secret_verified || !out.tools_file_sha256_verified || r?.n !== n) {
          failures.push(`call ${i}: ok=${out.ok} verified=${out.runner_secret_verified} ${JSON.stringify(out.error)}`);
        }
      }
      return failures;
    },
    [from, to] as const,
  );
}

test(`${TOTAL} calls in a row: memory of the Chromium process tree grows at most ${MAX_GROWTH * 100} % after ${WARM_UP} warm-up calls`, async ({
  page,
}) => {
  test.setTimeout(240_000);
  const root = await browserPid();
  await page.goto("/?debug");
  await page.waitForFunction(() => window.__edge !== undefined, null, { timeout: 90_000 });
  await page.evaluate(() => window.__edgeReady);
  await page.evaluate(() => window.__edge!.host.warm());
  await page.evaluate(async (src) => {
    window.__soakToolset = await window.__edge!.freeze(src, "tools.py");
  }, SOAK_TOOLS);
  const spawned0 = await page.evaluate(() => window.__edge!.host.stats().workersSpawned);

  const t0 = Date.now();
  expect(await runCalls(page, 0, WARM_UP)).toEqual([]);
  const before = await settledRss(page, root);
  const t1 = Date.now();
  // In chunks, so a failure surfaces early and no single evaluate runs for minutes.
  for (let i = WARM_UP; i < TOTAL; i += 45) {
    expect(await runCalls(page, i, Math.min(TOTAL, i + 45))).toEqual([]);
  }
  const t2 = Date.now();
  const after = await settledRss(page, root);
  const stats = await page.evaluate(() => window.__edge!.host.stats());

  const growth = (after.bytes - before.bytes) / before.bytes;
  const mb = (b: number) => (b / 2 ** 20).toFixed(1);
  console.log(
    `[soak chromium] warm-up ${WARM_UP} calls ${t1 - t0} ms; ${TOTAL - WARM_UP} calls ${t2 - t1} ms ` +
      `(${Math.round((t2 - t1) / (TOTAL - WARM_UP))} ms/call); tree rss after warm-up ${mb(before.bytes)} MB ` +
      `(${before.processes} processes), after ${TOTAL} ${mb(after.bytes)} MB (${after.processes} processes), ` +
      `growth ${(growth * 100).toFixed(1)} %; workers spawned ${stats.workersSpawned - spawned0}, ` +
      `snapshot boots ${stats.bootsFromSnapshot}, plain boots ${stats.plainBoots}`,
  );
  expect(stats.workersSpawned - spawned0).toBeGreaterThanOrEqual(TOTAL); // a fresh worker per call, really
  expect(growth).toBeLessThanOrEqual(MAX_GROWTH);
});
