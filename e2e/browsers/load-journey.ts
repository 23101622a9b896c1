// Model loads one after another in the built playground, in a page its service worker controls, as
// a person makes them (the llama.cpp row: a URL, or a file), each timed and read back from the
// backend's own measures (src/engines/llamacpp/browser/stall-watch.ts: every attempt, how it ended,
// its longest silence between two signs of life). Firefox once hung a few loads in a hundred
// starting wllama's worker inside Edge's; a load that stalls is retried once, so a retry is a
// finding too. The Firefox journey makes 5 loads of the generated model; load-loop.ts makes as many
// as it is asked, of any model, in any browser.
import { buildTestModel } from "../../test/fixtures/gguf.ts";
import { startModelServer } from "../../test/engines/model-server.ts";
import { realModel, type RealModelId } from "../../test/real-models.ts";
import type { LoadMeasureDetail } from "../../src/engines/llamacpp/browser/stall-watch.ts";
import { evaluate, fill, until, type Driver } from "./driver.ts";
import { bootPlayground, noConsoleErrors, startAppServer, workFile, type Journey, type Pace } from "./steps.ts";

/** The generated test model, or a real one from .cache/models/ (npm run setup:models). */
export type LoopModel = "toy" | RealModelId;

export interface LoopOptions {
  loads: number;
  model: LoopModel;
  /** "url": downloaded into the device's store once, then the stored copy; "file": picked, hashed. */
  from: "url" | "file";
  /** The built playground (default dist/, or EDGE_APP_DIST). */
  dist?: string;
}

export interface Attempt extends LoadMeasureDetail {
  ms: number;
}

export interface LoadRecord {
  n: number;
  /** From the click (or the picked file) to the status saying ready or failed, seen from outside. */
  ms: number;
  ok: boolean;
  status: string;
  attempts: Attempt[];
}

const MEASURE = "edge:llama-load";
const DONE = /\(llama\.cpp, [^)]*\) ready; new session started\.|Could not load/;

/** The model's bytes or file, served: its URL, its path on disk. */
async function serveModel(model: LoopModel): Promise<{ url: string; file: string; close(): Promise<void> }> {
  if (model === "toy") {
    const bytes = buildTestModel();
    const server = await startModelServer(bytes);
    return { url: server.url("/model.gguf"), file: workFile("model.gguf", bytes), close: () => server.close() };
  }
  const real = realModel(model);
  if (!real) throw new Error(`${model} is not in .cache/models/ (npm run setup:models)`);
  const at = `/models/${real.file}`;
  const server = await startModelServer(new Uint8Array(), { [at]: { path: real.path } });
  return { url: server.url(at), file: real.path, close: () => server.close() };
}

/** The playground, loaded, precached, then reloaded so its service worker controls the page. */
async function controlledPlayground(driver: Driver, pace: Pace, url: string): Promise<void> {
  await driver.goto(url);
  await bootPlayground(driver, pace);
  await until(
    driver,
    "the service worker to have precached the app",
    () => document.body.dataset.offlineReady === "1",
    null,
    pace.boot,
  );
  await driver.reload();
  await bootPlayground(driver, pace);
  await until(
    driver,
    "the page to be controlled by the service worker",
    () => navigator.serviceWorker.controller !== null,
    null,
    pace.boot,
  );
}

/** The load's end, once the status says ready or failed and the backend has measured its last
 *  attempt (one more follows a first stall). */
function loadEnd({
  before,
  measure,
  done,
}: {
  before: number;
  measure: string;
  done: string;
}): { status: string; attempts: Attempt[] } | null {
  const attempts = performance
    .getEntriesByName(measure)
    .slice(before)
    .map((e) => ({ ms: Math.round(e.duration), ...((e as PerformanceMeasure).detail as LoadMeasureDetail) }));
  const status = document.querySelector("#engine-status")?.textContent ?? "";
  const last = attempts[attempts.length - 1];
  const final = last !== undefined && (last.outcome !== "stalled" || attempts.length >= 2);
  return final && new RegExp(done).test(status) ? { status, attempts } : null;
}

async function oneLoad(
  driver: Driver,
  pace: Pace,
  n: number,
  model: { url: string; file: string },
  from: LoopOptions["from"],
): Promise<LoadRecord> {
  const before = await evaluate(driver, (measure) => performance.getEntriesByName(measure).length, MEASURE);
  const start = Date.now();
  if (from === "url") {
    await fill(driver, "#llama-url", model.url);
    await driver.click("#llama-url-load");
  } else {
    await driver.chooseFile("#llama-file-input", model.file);
  }
  const end = await until(
    driver,
    `load ${n} to end`,
    loadEnd,
    { before, measure: MEASURE, done: DONE.source },
    2 * pace.model,
  );
  return {
    n,
    ms: Date.now() - start,
    ok: !end.status.startsWith("Could not load"),
    status: end.status,
    attempts: end.attempts,
  };
}

/** One line for a load: its time, and each attempt's outcome and longest silence. */
function loadLine(r: LoadRecord, of: number): string {
  const attempts = r.attempts.map(
    (a) =>
      `${a.outcome} in ${(a.ms / 1000).toFixed(1)} s, longest silence ${(a.longestSilenceMs / 1000).toFixed(1)} s after “${a.silentAfter.slice(0, 70)}” before “${a.silentBefore.slice(0, 70)}”`,
  );
  return `load ${r.n}/${of}: ${(r.ms / 1000).toFixed(1)} s ${r.ok ? "ready" : `FAILED (${r.status.slice(0, 300)})`}; ${attempts.join("; ")}`;
}

/** `options.loads` loads, one after another (each frees the model before); every record. */
export async function loadLoop(
  driver: Driver,
  pace: Pace,
  options: LoopOptions,
  log: (line: string) => void,
): Promise<LoadRecord[]> {
  const app = await startAppServer(driver, 24 * 60 * 60_000, options.dist);
  const model = await serveModel(options.model);
  try {
    await controlledPlayground(driver, pace, app.url("/"));
    log(
      `the playground is controlled by its service worker; ${options.loads} loads of ${options.model} from a ${options.from}`,
    );
    const records: LoadRecord[] = [];
    for (let n = 1; n <= options.loads; n++) {
      records.push(await oneLoad(driver, pace, n, model, options.from));
      log(loadLine(records[records.length - 1]!, options.loads));
    }
    return records;
  } finally {
    await model.close();
    await app.close();
  }
}

/** What went wrong in a loop, if anything: failed loads, stalled attempts. */
export function loopProblems(records: readonly LoadRecord[]): string[] {
  return records.flatMap((r) => [
    ...(r.ok ? [] : [`load ${r.n} failed: ${r.status}`]),
    ...r.attempts
      .filter((a) => a.outcome === "stalled")
      .map(() => `load ${r.n} stalled (then ${r.attempts.length > 1 ? "retried" : "gave up"})`),
  ]);
}

export const loadLoopJourney: Journey = {
  name: "load loop: the generated model loaded 5 times under the service worker, none stalled",
  browsers: ["firefox"],
  async run(driver, pace, log) {
    const records = await loadLoop(driver, pace, { loads: 5, model: "toy", from: "url" }, log);
    const problems = loopProblems(records);
    if (problems.length) throw new Error(`${driver.name}: ${problems.join("; ")}`);
    await noConsoleErrors(driver);
  },
};
