// `node --import tsx e2e/browsers/run.ts [--browser firefox|webkit]… [--only NAME] [--json FILE]`:
// the journeys (journeys.ts) in Firefox ESR and WebKitGTK, one fresh browser per journey, against
// the production build in dist/ (the one the Chromium run builds; built here only when missing).
// Prints one line per journey and step; --json writes {passed, failed, skipped, results} for
// scripts/test.mjs. A browser that is not installed is skipped with what to install, and fails
// instead under CI (=true) or EDGE_REQUIRE_BROWSERS=1.
import { spawnSync } from "node:child_process";
import { existsSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { newestMtime, ROOT } from "../widget-servers.ts";
import type { BrowserName, Driver } from "./driver.ts";
import { FIREFOX_PATH, launchFirefox } from "./firefox.ts";
import { JOURNEYS, type Pace } from "./journeys.ts";
import { MINIBROWSER_PATH, launchWebKit } from "./webkit.ts";

const BROWSERS: Record<BrowserName, { launch: () => Promise<Driver>; missing: () => string | undefined; pace: Pace }> = {
  firefox: {
    launch: launchFirefox,
    missing: () => (existsSync(FIREFOX_PATH) ? undefined : `no Firefox at ${FIREFOX_PATH} (Debian: apt-get install firefox-esr)`),
    pace: { boot: 180_000, model: 240_000 },
  },
  webkit: {
    launch: launchWebKit,
    missing: () =>
      !existsSync(MINIBROWSER_PATH) || spawnSync("sh", ["-c", "command -v WebKitWebDriver && command -v xvfb-run"]).status !== 0
        ? "no WebKitWebDriver/MiniBrowser or xvfb-run (Debian: apt-get install webkit2gtk-driver xvfb)"
        : undefined,
    pace: { boot: 300_000, model: 420_000 },
  },
};

const { values } = parseArgs({ options: { browser: { type: "string", multiple: true }, only: { type: "string" }, json: { type: "string" } } });
const browsers = (values.browser ?? ["firefox", "webkit"]) as BrowserName[];
const required = process.env.CI === "true" || process.env.EDGE_REQUIRE_BROWSERS === "1";
const results: Array<{ browser: BrowserName; journey: string; status: "passed" | "failed" | "skipped"; seconds: number; error?: string }> = [];

/** dist/ is the Chromium run's build; rebuilt only when missing or older than a source. */
function buildIsCurrent(): boolean {
  const index = path.join(ROOT, "dist", "index.html");
  if (!existsSync(index)) return false;
  const skip = /(__pycache__|[\\/]tests[\\/]|\.test\.ts$)/;
  const newest = Math.max(...["src", "workers", "runner-pyodide", "public"].map((d) => newestMtime(path.join(ROOT, d), skip)), ...["index.html", "vite.config.ts"].map((f) => statSync(path.join(ROOT, f)).mtimeMs));
  return statSync(index).mtimeMs > newest;
}

if (!buildIsCurrent()) {
  console.log("dist/ is missing or older than the sources: building it (npx vite build)…");
  const r = spawnSync("npx", ["vite", "build", "--logLevel", "warn"], { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) throw new Error("vite build failed");
}

/** One browser's journeys, in order; each line says which browser it is about. */
async function runBrowser(name: BrowserName): Promise<void> {
  const browser = BROWSERS[name];
  const journeys = JOURNEYS.filter((j) => !values.only || j.name.startsWith(values.only));
  const missing = browser.missing();
  if (missing) {
    for (const j of journeys) results.push({ browser: name, journey: j.name, status: required ? "failed" : "skipped", seconds: 0, error: missing });
    console.log(`${required ? "✘" : "-"} ${name}: ${missing}`);
    return;
  }
  for (const journey of journeys) {
    const start = Date.now();
    const seconds = () => Math.round((Date.now() - start) / 100) / 10;
    console.log(`… ${name} › ${journey.name}`);
    let driver: Driver | undefined;
    try {
      driver = await browser.launch();
      console.log(`    ${name} ${seconds()} s  started`);
      await journey.run(driver, browser.pace, (step) => console.log(`    ${name} ${seconds()} s  ${step}`));
      results.push({ browser: name, journey: journey.name, status: "passed", seconds: seconds() });
      console.log(`✓ ${name} › ${journey.name} (${seconds()} s)`);
    } catch (e) {
      // What the visitor saw at that moment (the page's text, and the widget's), for the report.
      const seen = await driver
        ?.run<string>(`[document.body.innerText, ...[...document.querySelectorAll("edge-chat")].map((w) => w.shadowRoot?.textContent ?? "")].join("\\n---\\n").replace(/\\s+/g, " ").slice(-3000)`)
        .catch(() => "");
      const error = `${e instanceof Error ? (e.stack ?? e.message) : String(e)}${seen ? `\nThe page showed: ${seen}` : ""}`;
      results.push({ browser: name, journey: journey.name, status: "failed", seconds: seconds(), error });
      console.log(`✘ ${name} › ${journey.name} (${seconds()} s)\n${error.replace(/^/gm, "    ")}`);
    } finally {
      await driver?.close().catch(() => undefined);
    }
  }
}

// The browsers side by side (each its own process, one journey at a time): on two cores this
// takes about the longer browser's time instead of the sum. EDGE_BROWSERS_SERIAL=1 runs them one
// after the other.
if (process.env.EDGE_BROWSERS_SERIAL === "1") for (const name of browsers) await runBrowser(name);
else await Promise.all(browsers.map(runBrowser));

const count = (s: string) => results.filter((r) => r.status === s).length;
const summary = { passed: count("passed"), failed: count("failed"), skipped: count("skipped"), results };
if (values.json) writeFileSync(values.json, JSON.stringify(summary, null, 1));
console.log(`\nFirefox/WebKit journeys: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`);
process.exit(summary.failed ? 1 : 0);
