// The memory soak: "200 calls in a row with no growth of memory beyond 10 % after warm-up",
// Node half (the Chromium half is e2e/soak.spec.ts). One host with one spare, as an app would
// hold it; every call is a fresh runner process (Pyodide from the snapshot) that is killed after
// its job, so nothing of a call may stay behind: not in this process's memory (frames, handles,
// listeners), and no runner process either.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sha256Bytes, utf8, type Sha256 } from "../contract/hash.ts";
import { createNodeRunnerHost } from "./node.ts";
import type { PoolRunnerHost } from "./pool.ts";
import { SOAK_TOOLS } from "../../test/fixtures/soak-tools.ts";

const WARM_UP = 50;
const TOTAL = 200;
const MAX_GROWTH = 0.1;

let dir: string;
let host: PoolRunnerHost;
let bytes: Uint8Array;
let sha: Sha256;

/** A full collection when one is available: --expose-gc, else V8's flag set at run time. */
function collector(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return undefined;
  }
}

/** RSS once terminated workers have finished tearing down: collect and sample every 500 ms until
 *  two readings in a row agree within 0.5 % (at most 15 s). Under load a worker's teardown lags
 *  its terminate(), and a reading taken while one still holds its heap says nothing about leaks. */
async function settledRss(gc: (() => void) | undefined): Promise<number> {
  let prev = Number.POSITIVE_INFINITY;
  let stable = 0;
  for (let i = 0; i < 30 && stable < 2; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 500));
    const rss = process.memoryUsage().rss;
    stable = Math.abs(rss - prev) / rss < 0.005 ? stable + 1 : 0;
    prev = rss;
  }
  return prev;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "edge-soak-test-"));
  bytes = utf8(SOAK_TOOLS);
  sha = await sha256Bytes(bytes);
  host = createNodeRunnerHost({ cacheDir: join(dir, "cache"), spares: 1 });
  await host.warm(); // makes the snapshot, boots the spare
}, 120_000);

afterAll(async () => {
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

async function oneCall(i: number): Promise<void> {
  const n = 1000 + i;
  const out = await host.call({
    bytes,
    expectedSha256: sha,
    filename: "tools.py",
    toolName: "work",
    args: { n },
    outputSchema: null,
  });
  expect(out.error, `call ${i}`).toBeUndefined();
  expect(out.ok).toBe(true);
  expect(out.runner_secret_verified).toBe(true);
  expect(out.tools_file_sha256_verified).toBe(true);
  expect(out.result?.n).toBe(n);
}

it(`${TOTAL} calls in a row: memory grows at most ${MAX_GROWTH * 100} % after ${WARM_UP} warm-up calls`, async () => {
  const gc = collector();
  const t0 = performance.now();
  for (let i = 0; i < WARM_UP; i++) await oneCall(i);
  const before = await settledRss(gc);
  const t1 = performance.now();
  for (let i = WARM_UP; i < TOTAL; i++) await oneCall(i);
  const t2 = performance.now();
  const after = await settledRss(gc);
  const growth = (after - before) / before;
  const mb = (b: number) => (b / 2 ** 20).toFixed(1);
  const stats = host.stats();
  console.log(
    `[soak node] gc=${gc ? "yes" : "no"} warm-up ${WARM_UP} calls ${Math.round(t1 - t0)} ms; ` +
      `${TOTAL - WARM_UP} calls ${Math.round(t2 - t1)} ms (${Math.round((t2 - t1) / (TOTAL - WARM_UP))} ms/call); ` +
      `rss after warm-up ${mb(before)} MB, after ${TOTAL} ${mb(after)} MB, growth ${(growth * 100).toFixed(1)} %; ` +
      `workers spawned ${stats.workersSpawned}, snapshot boots ${stats.bootsFromSnapshot}, plain boots ${stats.plainBoots}`,
  );
  expect(stats.workersSpawned).toBeGreaterThanOrEqual(TOTAL); // a fresh runner per call, really
  expect(growth).toBeLessThanOrEqual(MAX_GROWTH);
  expect((await runnerProcesses()).length).toBeLessThanOrEqual(1); // the spare, nothing else
  // Each call waits for its runner process to boot (≈ 0.5–1 s each on two idle cores; several
  // seconds on a loaded machine): 250 calls in a row are legitimately slow.
}, 1_200_000);

/** Live runner processes started by this process (children under the permission model). */
async function runnerProcesses(): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid && (await readFile(`/proc/${name}/cmdline`, "utf8")).includes("permission"))
        out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}
