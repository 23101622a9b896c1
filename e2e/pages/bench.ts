// Bench page for the Chromium halves of bench/runner.bench.ts, bench/loop.bench.ts and
// bench/engine.bench.ts (e2e/pages/llama-bench.ts) and bench/session.bench.ts (session-bench.ts). Every
// measurement runs here, in the page, with performance.now() around the real browser runner
// (createBrowserRunnerHost: sandbox frame + one classic worker per job) and the real IndexedDB
// receipt store. The page only returns raw samples; the Node side computes the percentiles with
// the same code as for its own entry. Nothing runs on load: the bench calls window.__bench.
import { sha256Bytes, type Sha256 } from "../../src/contract/hash.ts";
import type { JsonObject } from "../../src/contract/types.ts";
import {
  createBrowserRunnerHost,
  type BrowserRunnerHost,
  type BrowserRunnerHostOptions,
} from "../../src/runner/browser/index.ts";
import { DEFAULT_SPARES, type RunnerHostStats } from "../../src/runner/pool.ts";
import { openEdgeDb } from "../../src/idb/open.ts";
import { createIdbReceiptStore } from "../../src/receipts/store-idb.ts";
import { measureHostOverhead, type OverheadStats } from "../../bench/loop-core.ts";
import { llamaEngineBench } from "./llama-bench.ts";
import { llamaReturning, llamaSession } from "./session-bench.ts";

/** The tools file and the one call every sample makes (sent by the Node side, so both
 *  environments run exactly the same file and arguments). */
export interface BenchCase {
  tools: string;
  toolName: string;
  args: JsonObject;
  /** The expected result; a sample whose result differs fails the bench. */
  expected: unknown;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Prepared {
  bytes: Uint8Array;
  sha: Sha256;
  c: BenchCase;
}

async function prepare(c: BenchCase): Promise<Prepared> {
  const bytes = new TextEncoder().encode(c.tools);
  return { bytes, sha: await sha256Bytes(bytes), c };
}

/** One call from "validated call" to "validated result", checked like the Node bench does. */
async function timedCall(host: BrowserRunnerHost, p: Prepared): Promise<number> {
  const t = performance.now();
  const out = await host.call({
    bytes: p.bytes,
    expectedSha256: p.sha,
    filename: "tools.py",
    toolName: p.c.toolName,
    args: p.c.args,
    outputSchema: null,
  });
  const ms = performance.now() - t;
  if (!out.ok || !out.runner_secret_verified || JSON.stringify(out.result) !== JSON.stringify(p.c.expected)) {
    throw new Error(`bench call failed: ${JSON.stringify(out)}`);
  }
  return ms;
}

async function withHost<T>(options: BrowserRunnerHostOptions, fn: (host: BrowserRunnerHost) => Promise<T>): Promise<T> {
  const host = await createBrowserRunnerHost(options);
  try {
    return await fn(host);
  } finally {
    await host.close();
  }
}

let held: BrowserRunnerHost | undefined;

const api = {
  defaultSpares: DEFAULT_SPARES,
  /** bench/engine.bench.ts: LlamaCppEngine vs bare wllama (e2e/pages/llama-bench.ts). */
  llamaEngineBench,
  llamaSession,
  llamaReturning,

  /** Smallest step performance.now() takes in this page (Chromium coarsens it to 0.1 ms when the
   *  page is not cross-origin isolated), so readers know the granularity of the samples. */
  timerResolutionMs(): number {
    let min = Number.POSITIVE_INFINITY;
    let last = performance.now();
    const end = last + 50;
    while (last < end) {
      const t = performance.now();
      if (t > last) {
        min = Math.min(min, t - last);
        last = t;
      }
    }
    return min;
  },

  /** Plain boots (snapshot: null, spares: 0): the worker's own boot time per call. */
  async plainBoots(c: BenchCase, n: number): Promise<number[]> {
    const p = await prepare(c);
    return withHost({ snapshot: null, spares: 0 }, async (host) => {
      const boots: number[] = [];
      for (let i = 0; i < n; i++) {
        await timedCall(host, p);
        boots.push(host.stats().lastBootMs ?? Number.NaN);
      }
      return boots;
    });
  },

  /** Make (or load) the memory snapshot in Cache Storage, as the app's first start does. */
  async makeSnapshot(): Promise<RunnerHostStats["snapshot"]> {
    return withHost({ spares: 0 }, async (host) => {
      await host.warm();
      return host.stats().snapshot;
    });
  },

  /** Warm calls: a spare is booted and idle when each call starts. */
  async warm(
    c: BenchCase,
    n: number,
  ): Promise<{ calls: number[]; boots: number[]; sandbox: { fetchMs: number; frameMs: number; compileMs: number } }> {
    const p = await prepare(c);
    return withHost({ spares: 1 }, async (host) => {
      const calls: number[] = [];
      const boots: number[] = [];
      for (let i = 0; i < n; i++) {
        await host.warm();
        await sleep(30); // let the booted worker settle (as in the Node bench)
        calls.push(await timedCall(host, p));
        boots.push(host.stats().lastBootMs ?? Number.NaN);
      }
      if (host.stats().snapshot !== "ready") throw new Error(`warm host snapshot: ${host.stats().snapshot}`);
      return { calls, boots, sandbox: { ...host.timings } };
    });
  },

  /** Cold calls: no spare; each call boots a worker from the snapshot. */
  async cold(c: BenchCase, n: number): Promise<number[]> {
    const p = await prepare(c);
    return withHost({ spares: 0 }, async (host) => {
      await host.warm(); // snapshot loaded, nothing booted
      const calls: number[] = [];
      for (let i = 0; i < n; i++) calls.push(await timedCall(host, p));
      return calls;
    });
  },

  /** `rounds` bursts of 4 back-to-back calls per pool size (each call starts when the previous returned). */
  async bursts(c: BenchCase, pools: number[], rounds: number): Promise<Record<string, number[]>> {
    const p = await prepare(c);
    const out: Record<string, number[]> = {};
    for (const size of pools) {
      out[size] = await withHost({ spares: size }, async (host) => {
        const calls: number[] = [];
        for (let r = 0; r < rounds; r++) {
          await host.warm();
          await sleep(50);
          for (let i = 0; i < 4; i++) calls.push(await timedCall(host, p));
        }
        return calls;
      });
    }
    return out;
  },

  /** Keep a host with `spares` idle booted spares (for the RSS measurement from outside). */
  async hold(spares: number): Promise<RunnerHostStats> {
    if (held) throw new Error("a host is already held");
    held = await createBrowserRunnerHost({ spares });
    await held.warm();
    const stats = held.stats();
    if (stats.sparesReady !== spares) throw new Error(`expected ${spares} ready spares, got ${stats.sparesReady}`);
    return stats;
  },
  async release(): Promise<void> {
    await held?.close();
    held = undefined;
  },

  /** Host-side overhead per call with the IndexedDB receipt store (bench/loop-core.ts). */
  async loopOverhead(n: number): Promise<OverheadStats> {
    const store = createIdbReceiptStore(await openEdgeDb());
    return measureHostOverhead(store, n);
  },

  /** The bare runner call with a spare ready: the loop bench's baseline. */
  async runnerBaseline(tools: string, n: number): Promise<number[]> {
    const bytes = new TextEncoder().encode(tools);
    const sha = await sha256Bytes(bytes);
    return withHost({ spares: 1 }, async (host) => {
      await host.warm();
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        await host.warm();
        const t = performance.now();
        const r = await host.call({
          bytes,
          expectedSha256: sha,
          filename: "tools.py",
          toolName: "fee_quote",
          args: { amount: 100 + i },
          outputSchema: null,
        });
        out.push(performance.now() - t);
        if (!r.ok) throw new Error(`runner call failed: ${JSON.stringify(r.error)}`);
      }
      return out;
    });
  },
};

export type BenchApi = typeof api;

declare global {
  interface Window {
    __bench?: BenchApi;
  }
}
window.__bench = api;
document.getElementById("status")!.textContent = "ready";
