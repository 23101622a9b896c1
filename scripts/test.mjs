// `npm test`: type-check, unit + Node integration tests (vitest), then the browser tests in
// real Chromium (Playwright). Finds Chromium at $CHROMIUM_PATH or /usr/bin/chromium; else tries
// Playwright's own browser download; else says exactly what to run. Installs the optional Node
// model runtime first (`npm run setup:llama`). Ends with one summary line.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { findChromium } from "./chromium.mjs";

const results = { passed: 0, failed: 0, skipped: 0 };
let failedStep = null;

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

mkdirSync(".cache", { recursive: true });
rmSync(".cache/vitest.json", { force: true });
rmSync(".cache/vitest-soak.json", { force: true });
rmSync(".cache/playwright.json", { force: true });

// The optional Node model runtime, so the llama.cpp tests run on a real model: `npm install` (or
// `npm ci`) removes its link from node_modules, and an installed runtime is only re-linked (~1 s).
if (!process.env.EDGE_SKIP_LLAMA_SETUP) run("model runtime", "node", ["scripts/setup-llama.mjs"]);

run("typecheck", "npx", ["tsc", "--noEmit", "-p", "tsconfig.json"]);

function vitest(label, report, env = {}) {
  run(label, "npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`], env);
  const v = readJson(report);
  if (v) {
    results.passed += v.numPassedTests ?? 0;
    results.failed += v.numFailedTests ?? 0;
    results.skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
  } else results.failed += 1;
}

vitest("unit and Node tests", ".cache/vitest.json");
// Memory soak: alone, so no other test's workers share the measured process or the cores.
vitest("Node memory soak", ".cache/vitest-soak.json", { EDGE_SOAK: "1" });

let chromium = findChromium();
if (!chromium && !process.env.EDGE_SKIP_BROWSER_INSTALL) {
  console.log("\nNo Chromium at $CHROMIUM_PATH or /usr/bin/chromium; trying Playwright's own download…");
  if (run("browser install", "npx", ["playwright", "install", "chromium"], {}, { optional: true })) chromium = "playwright";
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
  run("browser tests (Chromium)", "node", ["scripts/e2e.mjs"], { PLAYWRIGHT_JSON_OUTPUT_NAME: ".cache/playwright.json" });
  const p = readJson(".cache/playwright.json");
  if (p?.stats) {
    results.passed += p.stats.expected ?? 0;
    results.failed += (p.stats.unexpected ?? 0) + (p.stats.flaky ?? 0);
    results.skipped += p.stats.skipped ?? 0;
  } else results.failed += 1;
}

if (failedStep && results.failed === 0) results.failed = 1;
console.log(`\n${results.passed} passed, ${results.failed} failed, ${results.skipped} skipped`);
if (failedStep) console.error(`First failing step: ${failedStep}`);
process.exit(failedStep ? 1 : 0);
