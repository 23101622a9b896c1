// Shared set-up of the Chromium halves of the benches: build the bench page with the project's Vite
// config into a temp dir (only e2e/pages/bench.html as input), serve it with our own
// loopback static server (no `vite preview`: Vite's per-project lock would clash with other
// previews of this checkout), launch the system Chromium with the project's flags, and open
// /e2e/pages/bench.html, which exposes window.__bench (e2e/pages/bench.ts).
import { readdir, readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM_ARGS, findChromium } from "../scripts/chromium.mjs";
import { serveStatic, type StaticServerOptions } from "./static-server.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BENCH_PAGE = "e2e/pages/bench.html";

export interface ChromiumBench {
  readonly browser: Browser;
  readonly executablePath: string;
  readonly version: string;
  readonly baseUrl: string;
  /** A fresh tab on the bench page, with window.__bench installed. */
  openBenchPage(): Promise<Page>;
  /** Sum of VmRSS (bytes) over the browser process and all its descendants. */
  treeRssBytes(): Promise<number>;
  /** Process ids of the browser and all its descendants (renderers, GPU and utility processes). */
  processIds(): Promise<number[]>;
  close(): Promise<void>;
}

/** Why Chromium cannot be used here, or undefined when it can. */
export function chromiumMissing(): string | undefined {
  return findChromium()
    ? undefined
    : "no Chromium found ($CHROMIUM_PATH, /usr/bin/chromium, /usr/lib/chromium/chromium)";
}

/**
 * Build the bench page (and what it imports: the runner sandbox, the worker bundle, Pyodide's
 * files) with the project's own vite.config.ts into `outDir`. Only e2e/pages/bench.html is an
 * input: the bench then does not depend on the rest of the app building (other work in progress
 * in this checkout must not break a benchmark of the runner), and the build is faster.
 */
async function buildBenchPage(outDir: string): Promise<void> {
  process.env.EDGE_E2E_PAGES = "1"; // the config's switch for test pages (inputs are replaced below)
  const { build } = await import("vite");
  await build({
    configFile: join(ROOT, "vite.config.ts"),
    root: ROOT,
    logLevel: "error",
    build: { outDir, emptyOutDir: true },
    plugins: [
      {
        name: "edge-bench-page-only",
        config(config) {
          config.build ??= {};
          config.build.rolldownOptions = {
            ...config.build.rolldownOptions,
            input: { "e2e-bench": join(ROOT, BENCH_PAGE) },
          };
        },
      },
    ],
  });
}

/** Direct children of `pid`. */
export async function childrenOf(pid: number): Promise<number[]> {
  return (await parentMap()).get(pid) ?? [];
}

async function parentMap(): Promise<Map<number, number[]>> {
  const children = new Map<number, number[]>();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  return children;
}

/** Process ids of `root` and all its descendants (from /proc/<pid>/stat). */
export async function processTree(root: number): Promise<number[]> {
  const children = await parentMap();
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

export async function vmRssBytes(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface ChromiumLaunchOptions {
  /** Flags after the project's own (e.g. `--js-flags=--perf-basic-prof` for a `perf` profile). */
  extraArgs?: readonly string[];
}

/** The bench page, built and served (for Chromium here, and for Firefox and WebKit in
 *  bench/session-browsers.ts). */
export interface ServedBenchPage {
  readonly baseUrl: string;
  /** The bench page's URL. */
  readonly pageUrl: string;
  close(): Promise<void>;
}

/** Build the bench page and serve it (with `serve.headers` on every file). The caller must `close()`. */
export async function serveBenchPage(
  log: (...a: unknown[]) => void,
  serve: StaticServerOptions = {},
): Promise<ServedBenchPage> {
  const outDir = await mkdtemp(join(tmpdir(), "edge-bench-dist-"));
  try {
    const t = performance.now();
    await buildBenchPage(outDir);
    log(`bench page built in ${Math.round(performance.now() - t)} ms`);
    const server = await serveStatic(outDir, serve);
    return {
      baseUrl: server.url,
      pageUrl: server.url + BENCH_PAGE,
      async close() {
        await server.close();
        await rm(outDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(outDir, { recursive: true, force: true });
    throw err;
  }
}

/** Launch Chromium on a served bench page; closing it leaves the page served. */
export async function launchChromiumBench(
  log: (...a: unknown[]) => void,
  served: ServedBenchPage,
  launch: ChromiumLaunchOptions = {},
): Promise<ChromiumBench> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(chromiumMissing());
  // Playwright's Browser does not expose its process: the browser is the child process of
  // this Node process that appears during launch (the Debian wrapper execs the binary).
  const before = new Set(await childrenOf(process.pid));
  const browser = await chromium.launch({ executablePath, args: [...CHROMIUM_ARGS, ...(launch.extraArgs ?? [])] });
  try {
    const launched = (await childrenOf(process.pid)).filter((p) => !before.has(p));
    if (launched.length !== 1)
      throw new Error(`could not identify the launched Chromium process (${launched.length} new child processes)`);
    const pid = launched[0]!;
    const context = await browser.newContext();
    log(`chromium: ${browser.version()} at ${executablePath}, serving ${served.baseUrl}`);
    return {
      browser,
      executablePath,
      version: browser.version(),
      baseUrl: served.baseUrl,
      async openBenchPage() {
        const page = await context.newPage();
        page.on("pageerror", (err) => log("chromium page error:", err.message));
        await page.goto(served.pageUrl);
        await page.waitForFunction(() => window.__bench !== undefined, null, { timeout: 60_000 });
        return page;
      },
      processIds: () => processTree(pid),
      async treeRssBytes() {
        let sum = 0;
        for (const p of await processTree(pid)) sum += await vmRssBytes(p);
        return sum;
      },
      close: () => browser.close().catch(() => undefined),
    };
  } catch (err) {
    await browser.close().catch(() => undefined);
    throw err;
  }
}

/** Build, serve (with `serve.headers` on every file), launch. The caller must `close()` (also on errors). */
export async function startChromiumBench(
  log: (...a: unknown[]) => void,
  serve: StaticServerOptions = {},
  launch: ChromiumLaunchOptions = {},
): Promise<ChromiumBench> {
  if (!findChromium()) throw new Error(chromiumMissing());
  const served = await serveBenchPage(log, serve);
  try {
    const bench = await launchChromiumBench(log, served, launch);
    return {
      ...bench,
      async close() {
        await bench.close();
        await served.close();
      },
    };
  } catch (err) {
    await served.close();
    throw err;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
