// Where wllama's time goes in Chromium: one bench:session session (the example tools' contract,
// the first turn's prefill, decode free and guided) on a real model through LlamaCppEngine → worker →
// wllama, sampled by Linux `perf` across the renderer process (every thread: the page, Edge's
// worker, wllama's worker and its wasm). Chromium runs with `--js-flags=--perf-basic-prof`, so V8
// writes /tmp/perf-<pid>.map and perf names wasm functions (from the module's name section: ggml's
// kernels), JavaScript functions (with their script URL) and V8's builtins.
//
//   flock /tmp/edge-cpu.lock node --import tsx bench/wasm-profile.ts [--model ID] [--threads N] [--tokens N] [--json] [--keep FILE]
//
// Prints one JSON object: the session's numbers, the top functions with their share of the samples,
// and the shares by kind — wasm (llama.cpp/ggml), wllama's worker glue, the app's own bundles (Edge's
// page and worker code, which also carry wllama's JS API and comlink), V8, Chromium, the kernel.
// Needs `perf` (linux-perf) and permission to profile (perf_event_paranoid ≤ 1, or root).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startModelServer } from "../test/engines/model-server.ts";
import { realModel, type RealModelId } from "../test/real-models.ts";
import { CROSS_ORIGIN_ISOLATION } from "../vite.config.ts";
import { startChromiumBench, type ChromiumBench } from "./chromium.ts";
import { round, type SessionSamples } from "./session-core.ts";
import { examplePlan } from "./session-plan.ts";

const { values: args } = parseArgs({
  options: {
    model: { type: "string" },
    threads: { type: "string" },
    tokens: { type: "string" },
    json: { type: "boolean" },
    keep: { type: "string" },
  },
});
const MODEL = (args.model ?? "smollm2-135m-instruct-q4_1") as RealModelId;
const THREADS = Number(args.threads ?? 1);
const log = (...a: unknown[]): void => {
  if (!args.json) console.error(...a);
};

type Kind = "wasm" | "wllama_glue_js" | "app_js" | "v8" | "chromium" | "kernel";
interface Row {
  percent: number;
  thread: string;
  symbol: string;
  kind: Kind;
}

/** perf's symbol for V8 code: "JS:<name>-<index>-<tier>" for wasm functions, "JS:*<name> <url>:l:c" for JS. */
function kindOf(symbol: string, kernel: boolean): Kind {
  if (kernel) return "kernel";
  if (symbol.startsWith("JS:") && /-(turbofan|liftoff)$/.test(symbol) && !/(https?|blob):/.test(symbol)) return "wasm";
  if (symbol.includes("blob:")) return "wllama_glue_js";
  if (/https?:\/\//.test(symbol)) return "app_js";
  if (/^(JS:|Builtin:|BytecodeHandler:|Stub:|RegExp:)/.test(symbol)) return "v8";
  return "chromium";
}

function perfReport(data: string): Row[] {
  const out = spawnSync(
    "perf",
    ["report", "-i", data, "--no-children", "--sort", "comm,sym", "--stdio", "-g", "none", "--percent-limit", "0"],
    { encoding: "utf8", maxBuffer: 256 << 20 },
  );
  if (out.status !== 0) throw new Error(`perf report failed: ${out.stderr}`);
  const rows: Row[] = [];
  for (const line of out.stdout.split("\n")) {
    const m = /^\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$/.exec(line);
    if (!m) continue;
    const symbol = m[4]!.replace(/\s+-\s+-\s*$/, "").trim();
    rows.push({ percent: Number(m[1]), thread: m[2]!, symbol, kind: kindOf(symbol, m[3] === "k") });
  }
  return rows;
}

async function rendererPids(bench: ChromiumBench): Promise<number[]> {
  const pids: number[] = [];
  for (const pid of await bench.processIds()) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer")) pids.push(pid);
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** Runs the session under `perf record` (its samples written to `data`); returns the session's numbers. */
async function profiledSession(
  bench: ChromiumBench,
  url: string,
  sha256: string,
  data: string,
): Promise<SessionSamples & { runtime: string; isolated: boolean }> {
  const plan = await examplePlan({ tokens: Number(args.tokens ?? 24), samples: 1 });
  const page = await bench.openBenchPage();
  const pids = await rendererPids(bench);
  const perf = spawn("perf", ["record", "-F", "499", "-g", "-o", data, "-p", pids.join(",")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => perf.on("exit", resolve));
  await new Promise((r) => setTimeout(r, 1000)); // attached before the model loads
  try {
    return await page.evaluate(([m, p]) => window.__bench!.llamaSession(m, p), [
      { url, sha256, threads: THREADS },
      plan,
    ] as const);
  } finally {
    perf.kill("SIGINT");
    await exited;
  }
}

function summarize(rows: Row[]): Record<string, unknown> {
  const byKind: Record<string, number> = {};
  for (const r of rows) byKind[r.kind] = round((byKind[r.kind] ?? 0) + r.percent, 3);
  const top = [...rows].sort((a, b) => b.percent - a.percent).slice(0, 15);
  const appJs = rows.filter((r) => r.kind === "app_js").sort((a, b) => b.percent - a.percent);
  return {
    by_kind_percent: byKind,
    top_functions: top.map((r) => ({ percent: r.percent, thread: r.thread, kind: r.kind, symbol: r.symbol })),
    app_js_percent: round(
      appJs.reduce((n, r) => n + r.percent, 0),
      3,
    ),
    app_js_top: appJs.slice(0, 5).map((r) => ({ percent: r.percent, symbol: r.symbol })),
  };
}

const perfMaps = (): Set<string> => new Set(readdirSync("/tmp").filter((f) => /^perf-\d+\.map$/.test(f)));

/** V8's symbol maps that this run's browser processes wrote (new since `before`, their process gone):
 *  a short-lived helper process can write one too, so they are found by name, not by a pid list. */
function removeOurMaps(before: Set<string>): void {
  for (const f of perfMaps()) {
    const pid = /^perf-(\d+)\.map$/.exec(f)![1]!;
    if (!before.has(f) && !existsSync(`/proc/${pid}`)) rmSync(join("/tmp", f), { force: true });
  }
}

async function main(): Promise<Record<string, unknown>> {
  if (spawnSync("perf", ["--version"]).status !== 0)
    return { bench: "wasm_profile", skipped: "perf is not installed (apt-get install linux-perf)" };
  const model = realModel(MODEL);
  if (!model) return { bench: "wasm_profile", skipped: `${MODEL} is not in .cache/models/ (run npm run setup:models)` };
  const data = args.keep ?? join(tmpdir(), `edge-wasm-profile-${process.pid}.data`);
  const mapsBefore = perfMaps();
  const server = await startModelServer(new Uint8Array(0), { "/model.gguf": { path: model.path } });
  const bench = await startChromiumBench(
    log,
    { headers: CROSS_ORIGIN_ISOLATION, maxLifetimeMs: 60 * 60_000 },
    { extraArgs: ["--js-flags=--perf-basic-prof"] },
  );
  const loadStart = round(loadavg()[0]!);
  try {
    const s = await profiledSession(bench, server.url("/model.gguf"), model.sha256, data);
    const decode = (t: SessionSamples["free"]) => t.map((x) => round(x.decodeTokS ?? NaN));
    return {
      bench: "wasm_profile",
      model: MODEL,
      weights: "real",
      browser: `Chromium ${bench.version}`,
      runtime: s.runtime,
      threads: s.threads,
      cross_origin_isolated: s.isolated,
      load_avg_1m: { start: loadStart, end: round(loadavg()[0]!) },
      first_turn_ttft_ms: Math.round(s.first.ttftMs),
      first_turn_prefill_tok_s: round((s.first.evaluated / s.first.ttftMs) * 1000),
      decode_tok_s: { free: decode(s.free), guided: decode(s.guided) },
      ...summarize(perfReport(data)),
    };
  } finally {
    await bench.close();
    await server.close();
    removeOurMaps(mapsBefore);
    if (!args.keep) rmSync(data, { force: true });
  }
}

const result = await main();
console.log(JSON.stringify(result, null, args.json ? 0 : 2));
