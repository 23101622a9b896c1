// The small layer the Firefox and WebKit journeys speak to (journeys.ts): one interface, one file
// per browser — firefox.ts (Firefox ESR over WebDriver BiDi, puppeteer-core) and webkit.ts
// (WebKitGTK's MiniBrowser through WebKitWebDriver, selenium-webdriver, under Xvfb). Playwright's
// own Firefox and WebKit builds cannot be downloaded here; Chromium keeps Playwright (e2e/*.spec.ts).
// Page code is passed as source text: the same function runs in both browsers, and whatever a
// TypeScript loader adds to a function's text (esbuild's `__name`) is defined before it.

/** The journeys run in Firefox and WebKit (run.ts); the load loop also in Chromium (load-loop.ts). */
export type BrowserName = "firefox" | "webkit" | "chromium";

export interface Driver {
  readonly name: BrowserName;
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  /** Evaluate a JavaScript expression in the page; a promise is awaited; the value comes back as JSON. */
  run<R>(expression: string): Promise<R>;
  /** A real click (the browser's own input events) on the first element matching `css`. */
  click(css: string): Promise<void>;
  /** Real key presses into the element matching `css` (focused first). */
  type(css: string, text: string): Promise<void>;
  /** Pick a file from disk in the file input matching `css` (inside the shadow root of the first
   *  `shadowHost` element, if given), as the file chooser would. */
  chooseFile(css: string, path: string, shadowHost?: string): Promise<void>;
  /** Console errors and uncaught errors so far: Firefox's console over BiDi; in WebKit what the
   *  page-side capture (pageScript) recorded in every page the session showed. */
  errors(): Promise<string[]>;
  /** A script the test servers must put first in every HTML page (WebKit: page-capture.ts, as
   *  its console cannot be read); none where the driver reads the console itself. */
  readonly pageScript?: string;
  close(): Promise<void>;
}

/** Call `fn(arg)` in the page. `fn` must be self-contained (it is sent as text). */
export function evaluate<A, R>(driver: Driver, fn: (arg: A) => R | Promise<R>, arg: A): Promise<R> {
  return driver.run<R>(`(() => { const __name = (f) => f; return (${fn.toString()})(${JSON.stringify(arg)}); })()`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll `fn(arg)` in the page until it returns a truthy value (returned), or fail after `timeoutMs`
 *  naming `what` and the last value seen. A condition, never a fixed wait. */
export async function until<A, R>(
  driver: Driver,
  what: string,
  fn: (arg: A) => R | Promise<R>,
  arg: A,
  timeoutMs = 60_000,
): Promise<NonNullable<R>> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      last = await evaluate(driver, fn, arg);
      if (last) return last as NonNullable<R>;
    } catch (e) {
      last = `error: ${(e as Error).message.split("\n")[0]}`;
    }
    if (Date.now() > end)
      throw new Error(
        `${driver.name}: timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what} (last: ${JSON.stringify(last)?.slice(0, 400)})`,
      );
    await sleep(250);
  }
}

/** The text of the element matching `css` contains `text` (or matches it, as a regex source).
 *  A timeout names the text the element showed last. */
export async function untilText(
  driver: Driver,
  css: string,
  text: string | RegExp,
  timeoutMs?: number,
): Promise<string> {
  const pattern = typeof text === "string" ? { s: text } : { r: text.source };
  try {
    return await until(
      driver,
      `${css} to show ${String(text)}`,
      ({ css, pattern }) => {
        const t = document.querySelector(css)?.textContent ?? "";
        return (pattern.s !== undefined ? t.includes(pattern.s) : new RegExp(pattern.r!).test(t)) ? t : "";
      },
      { css, pattern: pattern as { s?: string; r?: string } },
      timeoutMs,
    );
  } catch (e) {
    const shown = await evaluate(
      driver,
      (css) => document.querySelector(css)?.textContent ?? "(no such element)",
      css,
    ).catch((err: Error) => `(unreadable: ${err.message.split("\n")[0]})`);
    throw new Error(`${(e as Error).message}; it showed: ${JSON.stringify(shown.slice(0, 400))}`);
  }
}

/** Set a form field's value as typing would end (value + input and change events). */
export function fill(driver: Driver, css: string, value: string): Promise<void> {
  return evaluate(
    driver,
    ({ css, value }) => {
      const el = document.querySelector(css) as HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement | null;
      if (!el) throw new Error(`no element ${css}`);
      el.value = value;
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
    },
    { css, value },
  );
}
