// The browsers bench:session runs a session in, behind one small interface: Chromium with Playwright
// (bench/chromium.ts), Firefox ESR over WebDriver BiDi (puppeteer-core) and WebKitGTK through
// WebKitWebDriver under Xvfb (selenium-webdriver) — the e2e journeys' own drivers (e2e/browsers/).
// Each opens the served bench page (bench/chromium.ts, serveBenchPage) in a fresh browser and
// profile, so the model's first load is a download into an empty store. A session function of
// window.__bench (e2e/pages/session-bench.ts) is started in the page and its result polled: a
// session of many minutes outlives every driver's command timeout (puppeteer's 180 s, WebDriver's
// script timeout), and only the poll crosses the driver.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import type { Page } from "playwright-core";
import type { llamaReturning, llamaSession, SessionModel } from "../e2e/pages/session-bench.ts";
import { until, type Driver } from "../e2e/browsers/driver.ts";
import { FIREFOX_PATH, launchFirefox } from "../e2e/browsers/firefox.ts";
import { MINIBROWSER_PATH, launchWebKit } from "../e2e/browsers/webkit.ts";
import { chromiumMissing, launchChromiumBench, sleep, type ServedBenchPage } from "./chromium.ts";
import type { SessionPlan } from "./session-core.ts";

export type BrowserEnv = "chromium" | "firefox" | "webkit";
export const BROWSER_ENVS: readonly BrowserEnv[] = ["chromium", "firefox", "webkit"];

/** One browser with the bench page open. */
export interface BenchTab {
  readonly env: BrowserEnv;
  /** "Chromium 156.0…", or the user agent's browser and version. */
  readonly version: string;
  /** navigator.hardwareConcurrency and crossOriginIsolated of the page. */
  readonly cores: number;
  readonly isolated: boolean;
  session(m: SessionModel, plan: SessionPlan): ReturnType<typeof llamaSession>;
  returning(m: SessionModel, plan: SessionPlan, start: "cold" | "warm"): ReturnType<typeof llamaReturning>;
  /** Reload the page (its worker and llama.cpp go; the store stays) and wait for window.__bench. */
  reload(): Promise<void>;
  close(): Promise<void>;
}

/** Why a browser cannot run here (what to install), or undefined. */
export function browserMissing(env: BrowserEnv): string | undefined {
  if (env === "chromium") return chromiumMissing();
  if (env === "firefox")
    return existsSync(FIREFOX_PATH) ? undefined : `no Firefox at ${FIREFOX_PATH} (Debian: apt-get install firefox-esr)`;
  const tools = spawnSync("sh", ["-c", "command -v WebKitWebDriver && command -v xvfb-run"]).status === 0;
  return existsSync(MINIBROWSER_PATH) && tools
    ? undefined
    : "no WebKitWebDriver/MiniBrowser or xvfb-run (Debian: apt-get install webkit2gtk-driver xvfb)";
}

/** A page that evaluates expressions (a promise's value awaited) and reloads. */
interface PageHandle {
  run<R>(expression: string): Promise<R>;
  reload(): Promise<void>;
  close(): Promise<void>;
}

const SESSION_TIMEOUT_MS = 3 * 60 * 60_000;
let jobs = 0;

/** `window.__bench[fn](...args)` started in the page; its value (as JSON) polled every second. */
async function callInPage<R>(page: PageHandle, fn: string, args: unknown[]): Promise<R> {
  const k = JSON.stringify(`__benchJob${++jobs}`);
  await page.run(
    `(window[${k}] = { done: false }, window.__bench[${JSON.stringify(fn)}](...${JSON.stringify(args)}).then((value) => { window[${k}] = { done: true, value }; }, (e) => { window[${k}] = { done: true, error: String((e && e.stack) || e) }; }), true)`,
  );
  for (const end = Date.now() + SESSION_TIMEOUT_MS; ; ) {
    await sleep(1000);
    const got = await page.run<string>(`window[${k}] && window[${k}].done ? JSON.stringify(window[${k}]) : ""`);
    if (got) {
      const r = JSON.parse(got) as { value?: R; error?: string };
      if (r.error !== undefined) throw new Error(`window.__bench.${fn} failed in the page: ${r.error}`);
      return r.value as R;
    }
    if (Date.now() > end) throw new Error(`window.__bench.${fn} did not end within ${SESSION_TIMEOUT_MS / 60_000} min`);
  }
}

async function chromiumPage(
  served: ServedBenchPage,
  log: (...a: unknown[]) => void,
): Promise<{ page: PageHandle; version: string }> {
  const bench = await launchChromiumBench(log, served);
  try {
    const page: Page = await bench.openBenchPage();
    return {
      version: `Chromium ${bench.version}`,
      page: {
        run: <R>(expression: string) => page.evaluate(expression) as Promise<R>,
        async reload() {
          await page.reload();
          await page.waitForFunction(() => window.__bench !== undefined, null, { timeout: 60_000 });
        },
        close: () => bench.close(),
      },
    };
  } catch (e) {
    await bench.close();
    throw e;
  }
}

async function driverPage(
  env: "firefox" | "webkit",
  served: ServedBenchPage,
): Promise<{ page: PageHandle; version: string }> {
  const driver: Driver = env === "firefox" ? await launchFirefox() : await launchWebKit();
  const ready = () =>
    until(
      driver,
      "the bench page's window.__bench",
      () => (window as typeof window & { __bench?: unknown }).__bench !== undefined,
      null,
      120_000,
    );
  try {
    await driver.goto(served.pageUrl);
    await ready();
    const ua = await driver.run<string>("navigator.userAgent");
    const version =
      env === "firefox"
        ? (/Firefox\/[\d.]+/.exec(ua)?.[0]?.replace("/", " ") ?? ua)
        : `WebKitGTK (${/AppleWebKit\/[\d.]+/.exec(ua)?.[0] ?? ua}, MiniBrowser)`;
    return {
      version,
      page: {
        run: <R>(expression: string) => driver.run<R>(expression),
        async reload() {
          await driver.reload();
          await ready();
        },
        close: () => driver.close(),
      },
    };
  } catch (e) {
    await driver.close();
    throw e;
  }
}

/** A fresh browser (and profile) with the bench page open. The caller must `close()`. */
export async function openBenchTab(
  env: BrowserEnv,
  served: ServedBenchPage,
  log: (...a: unknown[]) => void,
): Promise<BenchTab> {
  const { page, version } = env === "chromium" ? await chromiumPage(served, log) : await driverPage(env, served);
  try {
    const [cores, isolated] = await page.run<[number, boolean]>("[navigator.hardwareConcurrency, crossOriginIsolated]");
    return {
      env,
      version,
      cores,
      isolated,
      session: (m, plan) => callInPage(page, "llamaSession", [m, plan]),
      returning: (m, plan, start) => callInPage(page, "llamaReturning", [m, plan, start]),
      reload: () => page.reload(),
      close: () => page.close(),
    };
  } catch (e) {
    await page.close();
    throw e;
  }
}
