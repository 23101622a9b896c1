// `node --import tsx e2e/browsers/run.ts [--browser firefox|webkit]… [--only NAME] [--json FILE]`:
// the journeys (journeys.ts) in Firefox ESR and WebKitGTK, one fresh browser per journey, against
// the production build in dist/ (the one the Chromium run builds; built here only when missing),
// served as `npm start` serves it (cross-origin isolated: steps.ts, startAppServer).
// Prints one line per journey and step; --json writes {passed, failed, skipped, results} for
// scripts/test.mjs. A browser that is not installed is skipped with what to install, and fails
// instead under CI (=true) or EDGE_REQUIRE_BROWSERS=1.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { buildIsCurrent } from "../../scripts/start.mjs";
import { ROOT } from "../widget-servers.ts";
import { BROWSERS } from "./browsers.ts";
import type { BrowserName, Driver } from "./driver.ts";
import { JOURNEYS } from "./journeys.ts";
import type { Journey } from "./steps.ts";

const { values } = parseArgs({
  options: { browser: { type: "string", multiple: true }, only: { type: "string" }, json: { type: "string" } },
});
const browsers = (values.browser ?? ["firefox", "webkit"]) as BrowserName[];
const required = process.env.CI === "true" || process.env.EDGE_REQUIRE_BROWSERS === "1";
const results: Array<{
  browser: BrowserName;
  journey: string;
  status: "passed" | "failed" | "skipped";
  seconds: number;
  error?: string;
}> = [];

// dist/ is the Chromium run's build, rebuilt only when missing or older than a source (as
// `npm start` decides); a build of one's own (EDGE_APP_DIST, steps.ts) is served as it is.
if (!process.env.EDGE_APP_DIST && !buildIsCurrent(ROOT)) {
  console.log("dist/ is missing or older than the sources: building it (npx vite build)…");
  const r = spawnSync("npx", ["vite", "build", "--logLevel", "warn"], { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) throw new Error("vite build failed");
}

/** One journey in one browser, in a fresh browser; its lines say which browser they are about. */
async function runJourney(name: BrowserName, journey: Journey): Promise<void> {
  const browser = BROWSERS[name];
  const start = Date.now();
  const seconds = () => Math.round((Date.now() - start) / 100) / 10;
  console.log(`… ${name} › ${journey.name}`);
  let driver: Driver | undefined;
  try {
    // A journey that cannot run here (a real-weight model not set up) is skipped; under
    // EDGE_REQUIRE_REAL_MODELS=1 its check throws instead, and it fails below.
    const skip = journey.skip?.();
    if (skip) {
      results.push({ browser: name, journey: journey.name, status: "skipped", seconds: 0, error: skip });
      console.log(`- ${name} › ${journey.name}: ${skip}`);
      return;
    }
    driver = await browser.launch();
    console.log(`    ${name} ${seconds()} s  started`);
    await journey.run(driver, browser.pace, (step) => console.log(`    ${name} ${seconds()} s  ${step}`));
    results.push({ browser: name, journey: journey.name, status: "passed", seconds: seconds() });
    console.log(`✓ ${name} › ${journey.name} (${seconds()} s)`);
  } catch (e) {
    // What the visitor saw at that moment (the page's text, and the widget's), for the report.
    const seen = await driver
      ?.run<string>(
        `[document.body.innerText, ...[...document.querySelectorAll("edge-chat")].map((w) => w.shadowRoot?.textContent ?? "")].join("\\n---\\n").replace(/\\s+/g, " ").slice(-3000)`,
      )
      .catch(() => "");
    const error = `${e instanceof Error ? (e.stack ?? e.message) : String(e)}${seen ? `\nThe page showed: ${seen}` : ""}`;
    results.push({ browser: name, journey: journey.name, status: "failed", seconds: seconds(), error });
    console.log(`✘ ${name} › ${journey.name} (${seconds()} s)\n${error.replace(/^/gm, "    ")}`);
  } finally {
    await driver?.close().catch(() => undefined);
  }
}

// Every (journey, browser) pair, in JOURNEYS' order, one browser after the other for each journey;
// a browser that is not installed gets its journeys skipped (failed when required) here.
const queue: Array<{ name: BrowserName; journey: Journey }> = [];
const runsIn = (j: Journey, name: BrowserName) => !j.browsers || j.browsers.includes(name);
const journeys = JOURNEYS.filter((j) => !values.only || j.name.startsWith(values.only));
for (const name of browsers) {
  const missing = BROWSERS[name].missing();
  if (!missing) continue;
  for (const j of journeys.filter((j) => runsIn(j, name)))
    results.push({
      browser: name,
      journey: j.name,
      status: required ? "failed" : "skipped",
      seconds: 0,
      error: missing,
    });
  console.log(`${required ? "✘" : "-"} ${name}: ${missing}`);
}
for (const journey of journeys)
  for (const name of browsers) if (!BROWSERS[name].missing() && runsIn(journey, name)) queue.push({ name, journey });

// Two lanes take from the queue, one journey each at a time (each its own browser process): on two
// cores that takes about half the sum. Not one lane per browser: WebKit's journeys take several
// times Firefox's (its wasm runs the real-weight model ~3× slower), so Firefox's lane would
// idle for most of the run. The real-weight journey comes early in JOURNEYS, so the short ones
// fill the other lane meanwhile. EDGE_BROWSERS_SERIAL=1: one lane.
const lanes = process.env.EDGE_BROWSERS_SERIAL === "1" ? 1 : 2;
await Promise.all(
  Array.from({ length: lanes }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await runJourney(next.name, next.journey);
  }),
);

const count = (s: string) => results.filter((r) => r.status === s).length;
const summary = { passed: count("passed"), failed: count("failed"), skipped: count("skipped"), results };
if (values.json) writeFileSync(values.json, JSON.stringify(summary, null, 1));
console.log(
  `\nFirefox/WebKit journeys: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`,
);
process.exit(summary.failed ? 1 : 0);
