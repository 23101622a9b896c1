// WebKitGTK (Debian's webkit2gtk-driver: WebKitWebDriver + MiniBrowser) with selenium-webdriver,
// under Xvfb (xvfb-run: MiniBrowser has no headless mode). Default WebKit settings, a fresh
// automation session per launch. WebKitWebDriver has no console log endpoint and no BiDi, so the
// console errors come from a capture in the page (page-capture.ts, which says what it sees),
// collected before every navigation and when errors() is asked.
import { spawn, type ChildProcess } from "node:child_process";
import { Builder, By, type WebDriver, type WebElement } from "selenium-webdriver";
import type { Driver } from "./driver.ts";
import { CAPTURE_KEY, PAGE_CAPTURE_SCRIPT } from "./page-capture.ts";
import { freePort } from "../../test/free-port.ts";

export const MINIBROWSER_PATH =
  process.env.EDGE_MINIBROWSER_PATH ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

async function startDriver(port: number, screen: string): Promise<ChildProcess> {
  // Its own process group, so closing ends Xvfb, the driver and the browser together.
  const child = spawn("xvfb-run", ["-a", "-s", `-screen 0 ${screen}x24`, "WebKitWebDriver", `--port=${port}`], {
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const end = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`WebKitWebDriver exited (${child.exitCode}): ${stderr}`);
    const up = await fetch(`http://127.0.0.1:${port}/status`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return child;
    if (Date.now() > end) throw new Error(`WebKitWebDriver did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A WebDriver session of MiniBrowser on an X screen of `screen` ("WxH"), with `args`; `stop`
 *  ends Xvfb, the driver and the browser (the journeys, scripts/screenshots-webkit.ts). */
export async function startWebKitSession(
  screen: string,
  args: readonly string[],
  binary = MINIBROWSER_PATH,
): Promise<{ driver: WebDriver; stop(): void }> {
  const port = await freePort();
  const child = await startDriver(port, screen);
  const stop = (): void => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  };
  try {
    const driver = await new Builder()
      .usingServer(`http://127.0.0.1:${port}`)
      .withCapabilities({
        browserName: "MiniBrowser",
        "webkitgtk:browserOptions": { binary, args: ["--automation", ...args] },
      })
      .build();
    await driver.manage().setTimeouts({ script: 300_000, pageLoad: 300_000 });
    return { driver, stop };
  } catch (e) {
    stop();
    throw e;
  }
}

export async function launchWebKit(): Promise<Driver> {
  const { driver, stop } = await startWebKitSession("1600x1200", []);
  try {
    await driver.manage().window().setRect({ x: 0, y: 0, width: 1400, height: 1100 });
  } catch (e) {
    await driver.quit().catch(() => undefined);
    stop();
    throw e;
  }
  const find = (css: string) => driver.findElement(By.css(css));
  const errors: string[] = [];
  /** What the page's capture recorded since the last collection (a page without it: nothing). */
  const collect = async () => {
    const got = await driver
      .executeScript<string[] | null>(
        `const e = window[${JSON.stringify(CAPTURE_KEY)}]; return e ? [location.href, ...e.splice(0)] : null;`,
      )
      .catch(() => null);
    if (got && got.length > 1) errors.push(...got.slice(1).map((e) => `${e} — on ${got[0]}`));
  };
  return {
    name: "webkit",
    pageScript: PAGE_CAPTURE_SCRIPT,
    goto: async (url) => {
      await collect();
      await driver.get(url);
    },
    reload: async () => {
      await collect();
      await driver.navigate().refresh();
    },
    run: (expression) => driver.executeScript(`return ${expression};`),
    async click(css) {
      const el = await find(css);
      // WebKitWebDriver refuses an element outside the viewport instead of scrolling to it.
      await driver.executeScript("arguments[0].scrollIntoView({ block: 'center' })", el);
      await el.click();
    },
    type: async (css, text) => (await find(css)).sendKeys(text),
    async chooseFile(css, path, shadowHost) {
      if (shadowHost) {
        // An element in a shadow root, handed back by the page (a WebDriver element reference).
        const el = await driver.executeScript<WebElement>(
          `return document.querySelector(arguments[0]).shadowRoot.querySelector(arguments[1]);`,
          shadowHost,
          css,
        );
        await el.sendKeys(path);
        return;
      }
      // A hidden input (the page opens it from a button) is shown for the driver to reach it.
      await driver.executeScript(
        `const el = document.querySelector(${JSON.stringify(css)}); el.dataset.wasHidden = el.hidden ? "1" : ""; el.hidden = false;`,
      );
      await (await find(css)).sendKeys(path);
      await driver.executeScript(
        `const el = document.querySelector(${JSON.stringify(css)}); if (el && el.dataset.wasHidden) el.hidden = true;`,
      );
    },
    errors: async () => {
      await collect();
      return [...errors];
    },
    async close() {
      await driver.quit().catch(() => undefined);
      stop();
    },
  };
}
