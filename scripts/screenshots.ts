// `npm run screenshots -- [--url URL] [--browser chromium|firefox|webkit]… [--out DIR] [--json FILE]`: the
// playground's first screen in Chromium, Firefox ESR and WebKitGTK at a laptop (1400×900) and a
// phone (390×844) viewport, written to docs/screenshots/first-screen/<browser>-<viewport>.png.
// Without --url it starts the dev server (Vite's API, this checkout's vite.config.ts) on a free
// port. Each shot is taken once the page is ready (body[data-ready]) and checked as the Chromium
// spec checks it (e2e/first-screen.spec.ts): the header is slim and the model picker, the load
// button and the question box lie inside the viewport; a shot that fails a check is still
// written, and the script exits 1 naming it. Firefox and WebKit are driven as in e2e/browsers/
// (puppeteer-core over BiDi; selenium-webdriver + WebKitWebDriver under Xvfb).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "@playwright/test";
import puppeteer from "puppeteer-core";
import { createServer } from "vite";
import { CHROMIUM_ARGS, findChromium } from "./chromium.mjs";
import { BROWSERS } from "../e2e/browsers/browsers.ts";
import { FIREFOX_PATH } from "../e2e/browsers/firefox.ts";
import { MINIBROWSER_PATH } from "../e2e/browsers/webkit.ts";
import { ROOT } from "../e2e/widget-servers.ts";

type BrowserName = "chromium" | "firefox" | "webkit";
interface Viewport {
  name: string;
  width: number;
  height: number;
}
/** What a shot measures in the page, and the PNG. */
interface Shot {
  png: Buffer;
  layout: Layout;
}
interface Layout {
  ready: string;
  viewport: { width: number; height: number };
  /** The viewport's width without a classic scrollbar (what a control must fit in). */
  client: number;
  header: number;
  boxes: Record<string, { top: number; bottom: number; left: number; right: number } | null>;
}

const VIEWPORTS: Viewport[] = [
  { name: "1400x900", width: 1400, height: 900 },
  { name: "390x844", width: 390, height: 844 },
];
const READY_MS = 240_000;

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    browser: { type: "string", multiple: true },
    out: { type: "string" },
    json: { type: "string" },
  },
});
const browsers = (values.browser ?? ["chromium", "firefox", "webkit"]) as BrowserName[];
const outDir = path.resolve(values.out ?? path.join(ROOT, "docs/screenshots/first-screen"));

/** Runs in the page: readiness, the viewport, the header's height, and where the key controls are. */
const MEASURE = `(() => {
  const box = (sel) => { const el = document.querySelector(sel); if (!el) return null; const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
  return {
    ready: document.querySelector("#chat-log .entry.divider") ? document.body.dataset.ready || "no" : "no session yet",
    viewport: { width: window.innerWidth, height: window.innerHeight },
    client: document.documentElement.clientWidth,
    header: document.querySelector(".app-header")?.getBoundingClientRect().height ?? -1,
    boxes: { "model picker": box("#engine-select"), "load button": box("#load-engine"), "question box": box("#prompt"), "Send": box("#send") },
  };
})()`;
// Ready, and the first session is in the chat (it lands just after data-ready).
const IS_READY = `!!(document.body && document.body.dataset.ready === "1" && document.querySelector("#chat-log .entry.divider"))`;

/** The checks of e2e/first-screen.spec.ts that a screenshot can make; what failed, in words. */
function problems(layout: Layout): string[] {
  const out: string[] = [];
  if (layout.ready !== "1") out.push(`the page was not ready (data-ready=${layout.ready})`);
  if (layout.header > 64) out.push(`the header is ${Math.round(layout.header)} px tall (at most 64)`);
  for (const [what, b] of Object.entries(layout.boxes)) {
    if (!b) out.push(`${what}: missing`);
    else if (b.top < 0 || b.left < 0 || b.bottom > layout.viewport.height || b.right > layout.client)
      out.push(
        `${what} is outside the ${layout.client}×${layout.viewport.height} viewport (${Math.round(b.left)},${Math.round(b.top)}–${Math.round(b.right)},${Math.round(b.bottom)})`,
      );
  }
  return out;
}

async function shootChromium(url: string, vp: Viewport): Promise<Shot> {
  const executablePath = findChromium();
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: vp.width, height: vp.height } });
    await page.goto(url);
    await page.waitForFunction(IS_READY, null, { timeout: READY_MS }).catch(() => undefined);
    return { layout: (await page.evaluate(MEASURE)) as Layout, png: await page.screenshot() };
  } finally {
    await browser.close();
  }
}

async function shootFirefox(url: string, vp: Viewport): Promise<Shot> {
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX_PATH,
    protocol: "webDriverBiDi",
    headless: true,
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: vp.width, height: vp.height });
    await page.goto(url, { waitUntil: "load", timeout: READY_MS });
    await page.waitForFunction(IS_READY, { timeout: READY_MS }).catch(() => undefined);
    return { layout: (await page.evaluate(MEASURE)) as Layout, png: Buffer.from(await page.screenshot()) };
  } finally {
    await browser.close();
  }
}

async function shootWebKit(url: string, vp: Viewport): Promise<Shot> {
  const { launchWebKitSession } = await import("./screenshots-webkit.ts");
  const session = await launchWebKitSession(MINIBROWSER_PATH, vp.width, vp.height);
  try {
    const driver = session.driver;
    await session.setViewport(vp.width, vp.height);
    await driver.get(url);
    const end = Date.now() + READY_MS;
    while (Date.now() < end && !(await driver.executeScript<boolean>(`return ${IS_READY};`))) await driver.sleep(250);
    return {
      layout: await driver.executeScript<Layout>(`return ${MEASURE};`),
      png: Buffer.from(await driver.takeScreenshot(), "base64"),
    };
  } finally {
    await session.close();
  }
}

const SHOOT: Record<BrowserName, (url: string, vp: Viewport) => Promise<Shot>> = {
  chromium: shootChromium,
  firefox: shootFirefox,
  webkit: shootWebKit,
};

type Result = { browser: BrowserName; journey: string; status: "passed" | "failed" | "skipped"; error?: string };

/** One shot, written and checked: what went wrong, in words (none: it passed). */
async function shoot(name: BrowserName, url: string, vp: Viewport): Promise<string[]> {
  const file = path.join(outDir, `${name}-${vp.name}.png`);
  const shot = await SHOOT[name](url, vp);
  writeFileSync(file, shot.png);
  const bad = problems(shot.layout);
  if (shot.layout.viewport.width !== vp.width || shot.layout.viewport.height !== vp.height)
    bad.push(
      `the viewport is ${shot.layout.viewport.width}×${shot.layout.viewport.height}, not ${vp.width}×${vp.height}`,
    );
  console.log(`${bad.length ? "✗" : "✓"} ${path.relative(ROOT, file)}${bad.length ? `: ${bad.join("; ")}` : ""}`);
  return bad;
}

async function main(): Promise<number> {
  const server = values.url
    ? undefined
    : await createServer({
        root: ROOT,
        configFile: path.join(ROOT, "vite.config.ts"),
        server: { port: 0, host: "127.0.0.1" },
        logLevel: "warn",
      });
  if (server) await server.listen();
  const base = values.url ?? server!.resolvedUrls!.local[0]!;
  // ?nosw: no service worker (a dev server has none; a build's would serve a stale shell later).
  const url = new URL("/?nosw", base).href;
  mkdirSync(outDir, { recursive: true });
  // A browser that is not installed is skipped, as in the journeys (e2e/browsers/run.ts), and fails under CI.
  const required = process.env.CI === "true" || process.env.EDGE_REQUIRE_BROWSERS === "1";
  const results: Result[] = [];
  try {
    for (const name of browsers) {
      const missing = BROWSERS[name].missing();
      for (const vp of VIEWPORTS) {
        const journey = `first screen at ${vp.name.replace("x", "×")}: slim header; model picker, load button, question box and Send in view`;
        if (missing) {
          results.push({ browser: name, journey, status: required ? "failed" : "skipped", error: missing });
          continue;
        }
        try {
          const bad = await shoot(name, url, vp);
          results.push({
            browser: name,
            journey,
            status: bad.length ? "failed" : "passed",
            ...(bad.length ? { error: bad.join("; ") } : {}),
          });
        } catch (e) {
          results.push({ browser: name, journey, status: "failed", error: (e as Error).message.split("\n")[0] });
          console.log(`✗ ${name} ${vp.name}: ${(e as Error).message.split("\n")[0]}`);
        }
      }
    }
  } finally {
    await server?.close();
  }
  const count = (status: string) => results.filter((r) => r.status === status).length;
  if (values.json)
    writeFileSync(
      values.json,
      JSON.stringify({ passed: count("passed"), failed: count("failed"), skipped: count("skipped"), results }, null, 1),
    );
  return count("failed") ? 1 : 0;
}

process.exitCode = await main();
