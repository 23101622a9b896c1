// Steps the Firefox and WebKit journeys share (journeys.ts, real-model-journey.ts), as a visitor
// takes them: boot the playground, send a message, load a GGUF model, pick a file; and the checks
// every journey ends with.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { CROSS_ORIGIN_ISOLATION } from "../../vite.config.ts";
import { ROOT, startStaticServer, type StaticServer } from "../widget-servers.ts";
import { fill, until, untilText, type BrowserName, type Driver } from "./driver.ts";

/** Per-browser slowness: WebKitGTK here took 80 s to boot the playground under load, 28 s per answer. */
export interface Pace {
  boot: number;
  model: number;
  /** One question to the real-weight model (real-model-journey.ts), from Send to its receipt. */
  realRun: number;
}

export interface Journey {
  name: string;
  /** The browsers it runs in (default: every one run.ts is asked for). */
  browsers?: readonly BrowserName[];
  /** Why the journey cannot run here (e.g. a model that is not on this machine); undefined: it can. */
  skip?(): string | undefined;
  run(driver: Driver, pace: Pace, log: (step: string) => void): Promise<void>;
}

const WORK = path.join(ROOT, ".cache", "browsers");

let workFiles = 0;
/** A file to pick, in a folder of its own: the browsers run side by side (run.ts). */
export function workFile(name: string, body: string | Uint8Array): string {
  const dir = path.join(WORK, `${process.pid}-${++workFiles}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, body);
  return file;
}

export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected))
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** No console or uncaught error so far. */
export async function noConsoleErrors(driver: Driver): Promise<void> {
  const errors = await driver.errors();
  if (errors.length) throw new Error(`console errors in ${driver.name}:\n  ${errors.join("\n  ")}`);
}

export async function bootPlayground(driver: Driver, pace: Pace): Promise<void> {
  await until(driver, "the playground to be ready", () => document.body.dataset.ready === "1", null, pace.boot);
}

/** Send a chat message the way a person does: type it, press Send. */
export async function send(driver: Driver, text: string): Promise<void> {
  await fill(driver, "#prompt", "");
  await driver.type("#prompt", text);
  await driver.click("#send");
}

/** Load a GGUF model through the llama.cpp row, from a URL or a file; `timeoutMs` for a real-weight
 *  model's download and check (default: the browser's pace for the generated model). */
export async function loadModel(
  driver: Driver,
  pace: Pace,
  how: { url: string } | { file: string },
  timeoutMs = pace.model,
): Promise<void> {
  if ("url" in how) {
    await fill(driver, "#llama-url", how.url);
    await driver.click("#llama-url-load");
  } else {
    await driver.chooseFile("#llama-file-input", how.file);
  }
  await untilText(driver, "#engine-status", "(llama.cpp, CPU) ready; new session started.", timeoutMs);
}

/** The app's build: dist/, or EDGE_APP_DIST (a build of one's own, when others serve dist/). */
const APP_DIST = process.env.EDGE_APP_DIST ? path.resolve(process.env.EDGE_APP_DIST) : path.join(ROOT, "dist");

/** The built app served as `npm start` serves it (`vite preview`): the same cross-origin isolation
 *  headers (vite.config.ts), plus the driver's page script. */
export function startAppServer(driver: Driver, lifetimeMs: number, dir = APP_DIST): Promise<StaticServer> {
  return startStaticServer({ dir, lifetimeMs, headScript: driver.pageScript, headers: CROSS_ORIGIN_ISOLATION });
}

/** The page is cross-origin isolated, as the README's command serves it. */
export async function expectIsolated(driver: Driver): Promise<void> {
  expectEqual(
    await driver.run<boolean>("self.crossOriginIsolated"),
    true,
    `${driver.name}: the playground is cross-origin isolated`,
  );
}
