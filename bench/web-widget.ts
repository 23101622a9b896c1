// Budget bench for the <edge-chat> widget; prints one JSON object.
//
//   node --import tsx bench/web-widget.ts [--runs N] [--out DIR]
//
// 1. Initial JavaScript (budget: ≤ 60 KB gzip): edge-chat.js plus every chunk it imports
//    STATICALLY, gzip level 9 — from the build output, and cross-checked in Chromium by what the
//    asset host actually served before anyone typed (the page loaded and idle, WebGPU notice shown).
// 2. Lazy chunks (loaded on first question): the chat core, the runner worker bundle, web-llm
//    (page half and worker half) — sizes only, for the record.
// 3. Times in real Chromium, the widget on its own asset origin and the docs page on another:
//    navigation → widget rendered; navigation → first answer through a real Python tool call with
//    the scripted demo (cold: fresh browser context each run; this includes fetching Pyodide and
//    booting the sandboxed runner). Median of N runs. The baseline measured in the same run is
//    the tool call's own duration (from its receipt, shown on the tool card):
//    `answer_over_tool_call` says how much start-up sits on top of the one call.
import { chromium } from "@playwright/test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { CHROMIUM_ARGS, findChromium } from "../scripts/chromium.mjs";
import { docsPage, ensureWidgetBuild, ROOT, startStaticServer, startWidgetSites } from "../e2e/widget-servers.ts";

const BUDGET_INITIAL_GZIP = 60 * 1024;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const gz = (bytes: Buffer): number => gzipSync(bytes, { level: 9 }).length;

/** Static import specifiers of an ES module (minified output: `import{..}from"./x.js"`, `import"./x.js"`). */
function staticImports(code: string): string[] {
  const out = new Set<string>();
  for (const m of code.matchAll(/(?:^|[;\s}])import\s*(?:[\w*{}\s,$]+from\s*)?["'`](\.[^"'`]+)["'`]/g)) out.add(m[1]!);
  for (const m of code.matchAll(/export\s*[\w*{}\s,$]*from\s*["'`](\.[^"'`]+)["'`]/g)) out.add(m[1]!);
  return [...out];
}

function initialGraph(dir: string, entry: string): Array<{ file: string; bytes: number; gzip: number }> {
  const seen = new Map<string, { file: string; bytes: number; gzip: number }>();
  const visit = (rel: string): void => {
    const norm = path.posix.normalize(rel);
    if (seen.has(norm)) return;
    const buf = readFileSync(path.join(dir, norm));
    seen.set(norm, { file: norm, bytes: buf.length, gzip: gz(buf) });
    for (const spec of staticImports(buf.toString("utf8"))) visit(path.posix.join(path.posix.dirname(norm), spec));
  };
  visit(entry);
  return [...seen.values()];
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const runs = Number(arg("--runs", "3"));
const widgetDir = ensureWidgetBuild(arg("--out", process.env.EDGE_WIDGET_DIR ?? "dist/widget"));

// ── 1 + 2: sizes from the build ─────────────────────────────────────────────────────────
const initial = initialGraph(widgetDir, "edge-chat.js");
const initialGzip = initial.reduce((n, f) => n + f.gzip, 0);
const allJs = readdirSync(widgetDir, { recursive: true, withFileTypes: true })
  .filter(
    (d) =>
      d.isFile() &&
      /\.m?js$/.test(d.name) &&
      !path.join(d.parentPath, d.name).includes(`${path.sep}pyodide${path.sep}`),
  )
  .map((d) => path.relative(widgetDir, path.join(d.parentPath, d.name)).split(path.sep).join("/"));
const lazy = allJs
  .filter((f) => !initial.some((i) => i.file === f))
  .map((f) => {
    const buf = readFileSync(path.join(widgetDir, f));
    return { file: f, bytes: buf.length, gzip: gz(buf) };
  })
  .sort((a, b) => b.bytes - a.bytes);

// ── 3: Chromium ─────────────────────────────────────────────────────────────────────────
const sites = await startWidgetSites({ widgetDir });
const docs = await startStaticServer();
docs.route("/tools.py", { body: readFileSync(path.join(ROOT, "public", "examples", "tools.py")) });
const script = JSON.stringify([
  JSON.stringify({ tool_name: "order_status", arguments: { order_id: "A-1001" } }),
  "Shipped.",
]);
docs.route(
  "/bench.html",
  docsPage({
    widgetUrl: sites.assets.url("/edge-chat.js"),
    attrs: `tools-src="./tools.py" engine="scripted" script='${script}'`,
  }),
);

const executablePath = findChromium();
const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
const served: Array<{ path: string; gzip: number }> = [];
const rendered: number[] = [];
const answered: number[] = [];
const runner: number[] = [];
try {
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const before = sites.assets.requests.length;
    const t0 = Date.now();
    await page.goto(docs.url("/bench.html"));
    const widget = page.locator("edge-chat");
    const input = widget.getByRole("textbox", { name: "Your question" });
    await input.waitFor({ state: "visible" });
    rendered.push(Date.now() - t0);
    await page.waitForLoadState("networkidle");
    if (i === 0) {
      for (const p of sites.assets.requests.slice(before)) {
        const file = path.join(widgetDir, "." + p);
        served.push({ path: p, gzip: gz(readFileSync(file)) });
      }
    }
    await input.fill("Where is A-1001?");
    await input.press("Enter");
    await widget.getByText("Shipped.").waitFor({ timeout: 120_000 });
    answered.push(Date.now() - t0);
    // The runner's share: the tool call's own duration plus discovery, as the receipt sees it.
    const toolMs = await widget.evaluate((el) => {
      const card = el.shadowRoot!.querySelector(".card.tool .muted");
      return Number(/(\d+) ms/.exec(card?.textContent ?? "")?.[1] ?? NaN);
    });
    runner.push(toolMs);
    await context.close();
  }
} finally {
  await browser.close();
  await docs.close();
  await sites.close();
}

const servedGzip = served.filter((s) => /\.m?js$/.test(s.path)).reduce((n, s) => n + s.gzip, 0);
console.log(
  JSON.stringify(
    {
      bench: "web-widget",
      widget_dir: path.relative(process.cwd(), widgetDir),
      initial_js: {
        files: initial,
        gzip_bytes: initialGzip,
        budget_gzip_bytes: BUDGET_INITIAL_GZIP,
        ratio_to_budget: Number((initialGzip / BUDGET_INITIAL_GZIP).toFixed(3)),
        within_budget: initialGzip <= BUDGET_INITIAL_GZIP,
        // What Chromium actually fetched from the asset host before the first question.
        served_before_first_question: served.map((s) => s.path),
        served_js_gzip_bytes: servedGzip,
      },
      lazy_chunks: lazy.slice(0, 8),
      chromium: {
        runs,
        navigation_to_widget_ms: { median: median(rendered), all: rendered },
        navigation_to_first_answer_cold_ms: { median: median(answered), all: answered },
        tool_call_duration_ms: { median: median(runner), all: runner },
        answer_over_tool_call: Number((median(answered) / median(runner)).toFixed(2)),
      },
    },
    null,
    2,
  ),
);
