// Host-side overhead per tool call (parse + ajv + hashes + receipt write), p50 over 1,000 calls,
// against the bare runner call measured in the same run.   node --import tsx bench/loop.bench.ts [--json]
// Prints one JSON array: the "node" entry (receipts in files), then the "chromium" entry measured in
// real Chromium in the same run (receipts in IndexedDB; e2e/pages/bench.ts via bench/chromium.ts).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Bytes } from "../src/contract/hash.ts";
import { createNodeRunnerHost } from "../src/runner/node.ts";
import { createNodeReceiptStore } from "../src/receipts/store-node.ts";
import { chromiumMissing, startChromiumBench, type ChromiumBench } from "./chromium.ts";
import { measureHostOverhead, percentile, type OverheadStats } from "./loop-core.ts";

const JSON_ONLY = process.argv.includes("--json");
const CALLS = 1000;
const RUNNER_CALLS = 15;
const log = (...a: unknown[]): void => {
  if (!JSON_ONLY) console.error(...a);
};
const TOOLS = `from edgestudio.tools import edge_tool\n\n@edge_tool\ndef fee_quote(amount: float) -> dict:\n    return {"fee": round(amount * 0.003, 2)}\n`;

const dir = await mkdtemp(join(tmpdir(), "edge-bench-loop-"));
try {
  const store = createNodeReceiptStore({ dir });
  const overhead = await measureHostOverhead(store, 1000);

  // Baseline: the bare runner call with a spare ready (what the overhead is added to).
  const host = createNodeRunnerHost({ spares: 1 });
  const bytes = new TextEncoder().encode(TOOLS);
  const sha = await sha256Bytes(bytes);
  await host.warm();
  const runner: number[] = [];
  for (let i = 0; i < 15; i++) {
    await host.warm();
    const t = performance.now();
    const out = await host.call({
      bytes,
      expectedSha256: sha,
      filename: "tools.py",
      toolName: "fee_quote",
      args: { amount: 100 + i },
      outputSchema: null,
    });
    runner.push(performance.now() - t);
    if (!out.ok) throw new Error(`runner call failed: ${JSON.stringify(out.error)}`);
  }
  await host.close();
  const runnerP50 = percentile(runner, 50);
  const result: Record<string, unknown>[] = [
    loopEntry("node", overhead, runnerP50, {
      receipt_store: "node files: lock, atomic write with fsync of file and folder",
    }),
  ];
  result.push(await measureChromium());
  console.log(JSON.stringify(result, null, JSON_ONLY ? 0 : 2));
} finally {
  await rm(dir, { recursive: true, force: true });
}

/** The same two measurements inside a Chromium page: the host overhead with the IndexedDB receipt
 *  store (createIdbReceiptStore(await openEdgeDb())), and the bare browser runner call. */
async function measureChromium(): Promise<Record<string, unknown>> {
  const missing = chromiumMissing();
  if (missing) return { env: "chromium", skipped: missing };
  let bench: ChromiumBench | undefined;
  try {
    bench = await startChromiumBench(log);
    const page = await bench.openBenchPage();
    const overhead = await page.evaluate((n) => window.__bench!.loopOverhead(n), CALLS);
    log("chromium overhead", overhead);
    const runner = await page.evaluate(([tools, n]) => window.__bench!.runnerBaseline(tools, n), [
      TOOLS,
      RUNNER_CALLS,
    ] as const);
    log("chromium runner", runner.map(Math.round));
    const runnerP50 = percentile(runner, 50);
    const timerMs = await page.evaluate(() => window.__bench!.timerResolutionMs());
    return loopEntry("chromium", overhead, runnerP50, {
      receipt_store:
        "IndexedDB (idb): createIdbReceiptStore(openEdgeDb()), head read + one readwrite compare-and-swap transaction per append",
      browser: `Chromium ${bench.version}`,
      timer_resolution_ms: round3(timerMs),
    });
  } catch (err) {
    process.exitCode = 1;
    return { env: "chromium", error: err instanceof Error ? err.message : String(err) };
  } finally {
    await bench?.close();
  }
}

/** One environment's JSON entry: the same keys and rounding for Node and Chromium. */
function loopEntry(
  env: "node" | "chromium",
  overhead: OverheadStats,
  runnerP50: number,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  return {
    env,
    calls: CALLS,
    host_overhead_p50_ms: round3(overhead.p50),
    host_overhead_p95_ms: round3(overhead.p95),
    compute_p50_ms: round3(overhead.compute_p50),
    receipt_write_p50_ms: round3(overhead.store_p50),
    target_p50_ms: 1,
    runner_call_p50_ms: round3(runnerP50),
    ratio_overhead_vs_runner: round3(overhead.p50 / runnerP50),
    ...extra,
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
