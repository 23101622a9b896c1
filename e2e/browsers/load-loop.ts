// `xvfb-run -a node --import tsx e2e/browsers/load-loop.ts --browser firefox --loads 100
//   [--model toy|smollm2-135m-instruct-q4_1|qwen2.5-coder-0.5b-instruct-q4_k_m|gemma-3-270m-q4_k_m]
//   [--from url|file] [--dist DIR] [--json FILE]`
// Loads a model again and again in the built playground (dist/, built by the Chromium run or
// `npx vite build`) in a page its service worker controls (load-journey.ts), in Firefox, WebKit
// or Chromium. One line per load: its time, each attempt's outcome (a stall is retried once) and
// the longest silence between two signs of life, which the stall limit (30 s) is set against.
// Ends with a summary; exits 1 when a load failed or stalled. Default: SmolLM2 from a URL (the
// first load downloads it into the store, the others load the stored copy).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "../widget-servers.ts";
import { BROWSERS, isBrowserName } from "./browsers.ts";
import { loadLoop, loopProblems, type LoadRecord, type LoopModel } from "./load-journey.ts";

const { values } = parseArgs({
  options: {
    browser: { type: "string", default: "firefox" },
    loads: { type: "string", default: "100" },
    model: { type: "string", default: "smollm2-135m-instruct-q4_1" },
    from: { type: "string", default: "url" },
    dist: { type: "string", default: path.join(ROOT, "dist") },
    json: { type: "string" },
  },
});
const name = values.browser;
if (!isBrowserName(name)) throw new Error(`--browser: firefox, webkit or chromium, not ${name}`);
if (values.from !== "url" && values.from !== "file") throw new Error(`--from: url or file, not ${values.from}`);
const missing = BROWSERS[name].missing();
if (missing) throw new Error(missing);

const seconds = (ms: number) => (ms / 1000).toFixed(1);

function summary(records: readonly LoadRecord[]): string {
  const times = records.map((r) => r.ms).sort((a, b) => a - b);
  const silences = records.flatMap((r) =>
    r.attempts.filter((a) => a.outcome !== "stalled").map((a) => a.longestSilenceMs),
  );
  const median = times[Math.floor(times.length / 2)] ?? 0;
  const stalls = records.filter((r) => r.attempts.some((a) => a.outcome === "stalled")).length;
  return [
    `${records.length} loads in ${name}: ${records.filter((r) => r.ok).length} ready, ${stalls} with a stall (retried), ${records.filter((r) => !r.ok).length} failed`,
    `load time: median ${seconds(median)} s, min ${seconds(times[0] ?? 0)} s, max ${seconds(times[times.length - 1] ?? 0)} s`,
    `longest silence in a load that did not stall: max ${seconds(Math.max(0, ...silences))} s`,
  ].join("\n");
}

const driver = await BROWSERS[name].launch();
let records: LoadRecord[] = [];
try {
  records = await loadLoop(
    driver,
    BROWSERS[name].pace,
    { loads: Number(values.loads), model: values.model as LoopModel, from: values.from, dist: values.dist },
    (line) => console.log(line),
  );
} finally {
  await driver.close().catch(() => undefined);
}
console.log(`\n${summary(records)}`);
if (values.json)
  writeFileSync(
    values.json,
    JSON.stringify({ browser: name, model: values.model, from: values.from, records }, null, 1),
  );
const problems = loopProblems(records);
if (problems.length) console.log(problems.join("\n"));
process.exit(problems.length ? 1 : 0);
