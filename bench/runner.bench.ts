// Runner latency and memory in Node and in Chromium, against the design being replaced (a fresh
// CPython process per call) measured in the same run on the same tools.py and arguments.
//
//   npm run bench:runner -- --json      → one JSON array on stdout: the "node" entry, then the
//                                         "chromium" entry measured in real Chromium in the same run
//                                         (e2e/pages/bench.ts, via bench/chromium.ts), both against
//                                         the one CPython baseline measured at the start
//   … -- --json --node-only              → the "node" entry only
//
// The node entry carries the runner's goals (warm call p50 ≤ 8 ms, idle spare ≤ 120 MB) as booleans,
// the names of those missed, the machine's load average before and after, and a second baseline
// for memory: an idle bare `node` process started the same way (its VmRSS), the floor a runner
// process cannot go below.
//
// warm   = a spare is booted and idle when the call starts (validated call → validated result)
// cold   = no spare: the call includes a runner boot from the memory snapshot
// burst4 = 4 calls back to back (each starts when the previous returned, as in the tool loop)
//          with the default pool size; the spare being refilled is what they wait for
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { sha256Bytes, type Sha256 } from "../src/contract/hash.ts";
import type { JsonObject } from "../src/contract/types.ts";
import { createNodeRunnerHost } from "../src/runner/node.ts";
import { DEFAULT_SPARES, type PoolRunnerHost } from "../src/runner/pool.ts";
import { PYPI_SIMPLE } from "../src/packages/pypi.ts";
import type { PackageStore } from "../src/packages/store.ts";
import { lockInMemory } from "../test/pypi-mirror.ts";
import type { PackageWheel } from "../workers/protocol.ts";
import { chromiumMissing, processTree, startChromiumBench, vmRssBytes, type ChromiumBench } from "./chromium.ts";

const run = promisify(execFile);
const JSON_ONLY = process.argv.includes("--json");
const NODE_ONLY = process.argv.includes("--node-only");
/** The goals for a Node runner on the 2-core machine. */
const GOAL_WARM_P50_MS = 8;
const GOAL_SPARE_MB = 120;
const RUNNER_ROOT = fileURLToPath(new URL("../runner-pyodide/", import.meta.url));
const PYTHON = "/usr/bin/python3"; // the real binary: a pyenv shim on PATH adds ≈ 270 ms

const TOOLS = `from typing import Literal
from edgestudio.tools import edge_tool

RATES = {"basic": 0.029, "pro": 0.019}

@edge_tool(name="fee_quote", intent_tags=["billing"])
def calculate_fee(amount: float, tier: Literal["basic", "pro"] = "basic") -> dict:
    """Quote the card fee for an amount."""
    fee = round(amount * RATES[tier] + 0.30, 2)
    return {"amount": amount, "tier": tier, "fee": fee, "total": round(amount + fee, 2)}
`;
const TOOL = "fee_quote";
const ARGS: JsonObject = { amount: 120.5, tier: "pro" };
const EXPECTED = { amount: 120.5, tier: "pro", fee: 2.59, total: 123.09 };

/** The packages row: the same tool with two pure-Python packages from PyPI installed in the job. */
const PACKAGED_TOOLS = `${TOOLS}
import tabulate, six

@edge_tool(name="fee_table")
def fee_table(amount: float) -> str:
    """The fee for an amount, as a table."""
    return tabulate.tabulate([[amount, calculate_fee(amount)["fee"], six.__version__]])
`;

const log = (...a: unknown[]): void => {
  if (!JSON_ONLY) console.error(...a);
};

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i]!;
}
const round1 = (n: number): number => Math.round(n * 10) / 10;
const round3 = (n: number): number => Math.round(n * 1000) / 1000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface RunnerSamples {
  warm: number[];
  cold: number[];
  burst: Record<string, number[]>;
  snapBoots: number[];
  plainBoots: number[];
  spareMb: number;
  cpyP50: number;
  /** The pool size the environment's host uses by default (the burst reported first). */
  pool: number;
}

/** One environment's JSON entry: the same keys and rounding for Node and Chromium. */
function runnerEntry(
  env: "node" | "chromium",
  m: RunnerSamples,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const warmP50 = pct(m.warm, 50);
  const coldP50 = pct(m.cold, 50);
  const pool = m.pool;
  return {
    env,
    warm_p50_ms: round1(warmP50),
    warm_p95_ms: round1(pct(m.warm, 95)),
    cold_p50_ms: round1(coldP50),
    cpython_subprocess_p50_ms: round1(m.cpyP50),
    ratio_warm_vs_cpython: Math.round((warmP50 / m.cpyP50) * 100) / 100,
    ratio_cold_vs_cpython: Math.round((coldP50 / m.cpyP50) * 100) / 100,
    burst4_p50_ms: round1(pct(m.burst[pool] ?? [], 50)),
    pool_size: pool,
    boot_ms: round1(pct(m.snapBoots.slice(1), 50)),
    boot_ms_no_snapshot: round1(pct(m.plainBoots, 50)),
    spare_memory_mb: round1(m.spareMb),
    burst4_p50_ms_by_pool: Object.fromEntries(Object.entries(m.burst).map(([k, v]) => [k, round1(pct(v, 50))])),
    burst4_max_ms_by_pool: Object.fromEntries(Object.entries(m.burst).map(([k, v]) => [k, round1(Math.max(...v))])),
    ...extra,
  };
}

let bytes: Uint8Array;
let sha: Sha256;

async function timedCall(host: PoolRunnerHost): Promise<number> {
  const t = performance.now();
  const out = await host.call({
    bytes,
    expectedSha256: sha,
    filename: "tools.py",
    toolName: TOOL,
    args: ARGS,
    outputSchema: null,
  });
  const ms = performance.now() - t;
  if (!out.ok || !out.runner_secret_verified || JSON.stringify(out.result) !== JSON.stringify(EXPECTED)) {
    throw new Error(`bench call failed: ${JSON.stringify(out)}`);
  }
  return ms;
}

/** CPython baseline: a fresh process reads the bytes, checks sha256, imports the file through the
 *  real edge_runner package and calls the one function (the same work the Pyodide runner does). */
async function cpythonOnce(toolsPath: string): Promise<number> {
  const script = [
    "import sys, json",
    `sys.path.insert(0, ${JSON.stringify(RUNNER_ROOT)})`,
    "import edge_runner",
    `data = open(${JSON.stringify(toolsPath)}, 'rb').read()`,
    `r = json.loads(edge_runner.call(data, ${JSON.stringify(sha)}, 'tools.py', ${JSON.stringify(TOOL)}, ${JSON.stringify(JSON.stringify(ARGS))}, 'c1'))`,
    "assert r['ok'], r",
    "print(json.dumps(r['result']))",
  ].join("\n");
  const t = performance.now();
  const { stdout } = await run(PYTHON, ["-c", script]);
  const ms = performance.now() - t;
  if (JSON.stringify(JSON.parse(stdout)) !== JSON.stringify(EXPECTED)) throw new Error(`cpython result ${stdout}`);
  return ms;
}

/** VmRSS of an idle `node` process (no script work, the same binary as the runners), 500 ms in. */
async function bareNodeRssBytes(): Promise<number> {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore", env: {} });
  try {
    await sleep(500);
    return await vmRssBytes(child.pid!);
  } finally {
    child.kill("SIGKILL");
  }
}

const loadBefore = loadavg().map((l) => Math.round(l * 100) / 100);

async function main(): Promise<{ entry: Record<string, unknown>; cpyP50: number }> {
  const dir = await mkdtemp(join(tmpdir(), "edge-runner-bench-"));
  const toolsPath = join(dir, "tools.py");
  await writeFile(toolsPath, TOOLS);
  bytes = new TextEncoder().encode(TOOLS);
  sha = await sha256Bytes(bytes);
  const cacheDir = join(dir, "cache");
  const hosts: PoolRunnerHost[] = [];
  try {
    // 1. CPython subprocess baseline.
    await cpythonOnce(toolsPath); // page cache
    const cpy: number[] = [];
    for (let i = 0; i < 10; i++) cpy.push(await cpythonOnce(toolsPath));
    log("cpython", cpy.map(Math.round));

    // 2. Plain boot (no snapshot), which also builds the snapshot for the rest of the run.
    const plainBoots: number[] = [];
    for (let i = 0; i < 2; i++) {
      const plain = createNodeRunnerHost({ snapshot: false, spares: 0 });
      hosts.push(plain);
      await timedCall(plain);
      plainBoots.push(plain.stats().lastBootMs ?? Number.NaN);
      await plain.close();
    }
    log("plain boot", plainBoots);
    const maker = createNodeRunnerHost({ cacheDir, spares: 0 });
    hosts.push(maker);
    await maker.warm();
    if (maker.stats().snapshot !== "ready") throw new Error("snapshot was not made");
    await maker.close();

    // 3. Warm calls: wait until the spare is booted, then call.
    const warmHost = createNodeRunnerHost({ cacheDir, spares: 1 });
    hosts.push(warmHost);
    const warm: number[] = [];
    const snapBoots: number[] = [];
    for (let i = 0; i < 16; i++) {
      await warmHost.warm();
      await sleep(30); // let the booted runner settle
      const ms = await timedCall(warmHost);
      if (i > 0) warm.push(ms); // the first includes the snapshot read from disk
      snapBoots.push(warmHost.stats().lastBootMs ?? Number.NaN);
    }
    await warmHost.close();
    log("warm", warm.map(Math.round), "snapshot boots", snapBoots);

    // 3b. Warm calls whose job carries two pure-Python wheels from PyPI (tabulate, six), locked
    //     and fetched as `edge packages lock` does; against the warm calls without packages above.
    const packaged = await packagedWarmCalls(cacheDir, hosts);
    log("warm with two PyPI packages", packaged.samples?.map(Math.round) ?? packaged.skipped);

    // 4. Cold calls: no spare, boot from the snapshot inside the call.
    const coldHost = createNodeRunnerHost({ cacheDir, spares: 0 });
    hosts.push(coldHost);
    await coldHost.warm();
    const cold: number[] = [];
    for (let i = 0; i < 6; i++) cold.push(await timedCall(coldHost));
    await coldHost.close();
    log("cold", cold.map(Math.round));

    // 5. Bursts of 4 back-to-back calls per pool size.
    const burst: Record<number, number[]> = {};
    for (const size of [1, 2, 3]) {
      const h = createNodeRunnerHost({ cacheDir, spares: size });
      hosts.push(h);
      burst[size] = [];
      for (let round = 0; round < 3; round++) {
        await h.warm();
        await sleep(50);
        for (let i = 0; i < 4; i++) burst[size]!.push(await timedCall(h));
      }
      await h.close();
      log(`burst4 pool=${size}`, burst[size]!.map(Math.round));
    }

    // 6. Memory per spare: RSS of this process and its descendants (each runner is a child
    //    process) with 0 spares vs with 3 idle spares.
    const rss = async (spares: number): Promise<number> => {
      const h = createNodeRunnerHost({ cacheDir, spares });
      hosts.push(h);
      await h.warm();
      await sleep(500);
      globalThis.gc?.();
      let value = 0;
      for (const pid of await processTree(process.pid)) value += await vmRssBytes(pid);
      await h.close();
      await sleep(500);
      return value;
    };
    const rss0 = await rss(0);
    const rss3 = await rss(3);
    const spareMb = (rss3 - rss0) / 3 / (1024 * 1024);
    log("rss", Math.round(rss0 / 2 ** 20), Math.round(rss3 / 2 ** 20));

    const bareMb = (await bareNodeRssBytes()) / (1024 * 1024);
    log("bare node process rss MB", round1(bareMb));

    const cpyP50 = pct(cpy, 50);
    const warmP50 = pct(warm, 50);
    const goals = {
      warm_p50_within_8_ms: warmP50 <= GOAL_WARM_P50_MS,
      idle_spare_within_120_mb: spareMb <= GOAL_SPARE_MB,
    };
    const entry = runnerEntry(
      "node",
      { warm, cold, burst, snapBoots, plainBoots, spareMb, cpyP50, pool: DEFAULT_SPARES },
      {
        memory_method:
          "sum of VmRSS (/proc/<pid>/status) over this Node process and its descendants (each runner is a child process) with a host holding 3 idle booted spares minus with a host holding 0 spares, divided by 3",
        bare_node_process_rss_mb: round1(bareMb),
        ratio_spare_vs_bare_node: Math.round((spareMb / bareMb) * 100) / 100,
        warm_with_two_pypi_packages: packaged.samples
          ? {
              packages: packaged.packages,
              p50_ms: round1(pct(packaged.samples, 50)),
              p95_ms: round1(pct(packaged.samples, 95)),
              ratio_vs_warm_without: Math.round((pct(packaged.samples, 50) / warmP50) * 100) / 100,
              method:
                "the same warm host (one idle spare), the job carrying the two wheels' bytes; each call installs them with Pyodide's installer in its fresh runner before importing the tools file",
            }
          : { skipped: packaged.skipped },
        goals: { warm_p50_ms: GOAL_WARM_P50_MS, idle_spare_mb: GOAL_SPARE_MB, ...goals },
        goals_missed: Object.entries(goals)
          .filter(([, met]) => !met)
          .map(([name]) => name),
        load_before: loadBefore,
        load_after: loadavg().map((l) => Math.round(l * 100) / 100),
      },
    );
    return { entry, cpyP50 };
  } finally {
    for (const h of hosts) await h.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Warm calls of fee_table with tabulate and six installed in each job; skipped without PyPI. */
async function packagedWarmCalls(
  cacheDir: string,
  hosts: PoolRunnerHost[],
): Promise<{ samples?: number[]; packages?: string[]; skipped?: string }> {
  const project = {
    entry: "tools.py",
    files: {
      "tools.py": new TextEncoder().encode(PACKAGED_TOOLS),
      "requirements.txt": new TextEncoder().encode("tabulate\nsix\n"),
    },
  };
  let locked: Awaited<ReturnType<typeof lockInMemory>>["outcome"];
  let store: PackageStore;
  try {
    ({ outcome: locked, pypiStore: store } = await lockInMemory(project, PYPI_SIMPLE));
  } catch (err) {
    return { skipped: `PyPI: ${err instanceof Error ? err.message : String(err)}` };
  }
  const failed = locked.packages.find((p) => p.error);
  if (failed) return { skipped: `PyPI: ${failed.error!.message}` };
  const packages: PackageWheel[] = await Promise.all(
    locked.packages.map(async (p) => ({
      name: p.name,
      file_name: p.file_name,
      install_dir: "site",
      sha256: p.sha256,
      bytes: (await store.get(p.file_name))!,
      source: "pypi" as const,
    })),
  );
  const pBytes = project.files["tools.py"];
  const pSha = await sha256Bytes(pBytes);
  const host = createNodeRunnerHost({ cacheDir, spares: 1 });
  hosts.push(host);
  const samples: number[] = [];
  for (let i = 0; i < 9; i++) {
    await host.warm();
    await sleep(30);
    const t = performance.now();
    const out = await host.call({
      bytes: pBytes,
      expectedSha256: pSha,
      filename: "tools.py",
      toolName: "fee_table",
      args: { amount: 100 },
      outputSchema: null,
      packages,
    });
    const ms = performance.now() - t;
    if (!out.ok || !JSON.stringify(out.result).includes("1.17"))
      throw new Error(`packaged bench call failed: ${JSON.stringify(out).slice(0, 500)}`);
    if (i > 0) samples.push(ms);
  }
  await host.close();
  return { samples, packages: locked.packages.map((p) => `${p.name} ${p.version} (${p.bytes} bytes)`) };
}

/** The same measurements in real Chromium (sandbox frame + one classic worker per job), driven
 *  through window.__bench on e2e/pages/bench.html; the ratios use the Node run's CPython p50. */
async function measureChromium(cpyP50: number): Promise<Record<string, unknown>> {
  const missing = chromiumMissing();
  if (missing) return { env: "chromium", skipped: missing };
  let bench: ChromiumBench | undefined;
  try {
    bench = await startChromiumBench(log);
    const page = await bench.openBenchPage();
    // As a JSON string: Playwright's argument types do not cope with the recursive JsonObject.
    const c = JSON.stringify({ tools: TOOLS, toolName: TOOL, args: ARGS, expected: EXPECTED });

    const plainBoots = await page.evaluate((c) => window.__bench!.plainBoots(JSON.parse(c), 2), c);
    log("chromium plain boot", plainBoots);
    const snapshot = await page.evaluate(() => window.__bench!.makeSnapshot());
    if (snapshot !== "ready") throw new Error(`chromium snapshot was not made: ${snapshot}`);
    const warmRun = await page.evaluate((c) => window.__bench!.warm(JSON.parse(c), 16), c);
    const warm = warmRun.calls.slice(1); // the first includes the snapshot read from Cache Storage
    const snapBoots = warmRun.boots;
    log("chromium warm", warm.map(Math.round), "snapshot boots", snapBoots, "sandbox", warmRun.sandbox);
    const cold = await page.evaluate((c) => window.__bench!.cold(JSON.parse(c), 6), c);
    log("chromium cold", cold.map(Math.round));
    const burst = await page.evaluate((c) => window.__bench!.bursts(JSON.parse(c), [1, 2, 3], 3), c);
    log("chromium burst4", Object.fromEntries(Object.entries(burst).map(([k, v]) => [k, v.map(Math.round)])));
    const pool = await page.evaluate(() => window.__bench!.defaultSpares);
    const timerMs = await page.evaluate(() => window.__bench!.timerResolutionMs());
    await page.close();

    // Memory per spare: sum of VmRSS over the browser's whole process tree, with a fresh tab whose
    // host holds 0 idle spares vs 3 idle spares (alternating, 2 rounds each).
    const rssSamples: Record<"0" | "3", number[]> = { "0": [], "3": [] };
    for (const spares of [0, 3, 0, 3] as const) {
      const tab = await bench.openBenchPage();
      await tab.evaluate((n) => window.__bench!.hold(n), spares);
      await sleep(1000);
      rssSamples[spares].push(await bench.treeRssBytes());
      await tab.evaluate(() => window.__bench!.release());
      await tab.close();
      await sleep(500);
    }
    const mean = (v: number[]): number => v.reduce((a, b) => a + b, 0) / v.length;
    const mb = (b: number): number => b / (1024 * 1024);
    const spareMb = mb(mean(rssSamples["3"]) - mean(rssSamples["0"])) / 3;
    log(
      "chromium tree rss MB",
      rssSamples["0"].map((b) => Math.round(mb(b))),
      rssSamples["3"].map((b) => Math.round(mb(b))),
    );

    return runnerEntry(
      "chromium",
      { warm, cold, burst, snapBoots, plainBoots, spareMb, cpyP50, pool },
      {
        memory_method:
          "sum of VmRSS (/proc/<pid>/status) over the Chromium browser process and all its descendants (renderers incl. the sandbox frame, GPU, network, zygotes), with a fresh tab whose runner host holds 3 idle booted spares minus one holding 0 (same sandbox frame and snapshot), mean of 2 alternating rounds each, divided by 3; shared pages count in every process, so this is an upper-bound-style estimate",
        rss_tree_mb: {
          spares_0: rssSamples["0"].map((b) => round1(mb(b))),
          spares_3: rssSamples["3"].map((b) => round1(mb(b))),
        },
        sandbox_setup_ms: {
          fetch: round1(warmRun.sandbox.fetchMs),
          frame: round1(warmRun.sandbox.frameMs),
          compile: round1(warmRun.sandbox.compileMs),
        },
        browser: `Chromium ${bench.version}`,
        timer_resolution_ms: round3(timerMs),
      },
    );
  } catch (err) {
    process.exitCode = 1;
    return { env: "chromium", error: err instanceof Error ? err.message : String(err) };
  } finally {
    await bench?.close();
  }
}

const node = await main();
const entries = NODE_ONLY ? [node.entry] : [node.entry, await measureChromium(node.cpyP50)];
console.log(JSON.stringify(entries, null, JSON_ONLY ? undefined : 2));
