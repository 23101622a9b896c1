// A tools file's dependencies from PyPI in Firefox ESR and WebKitGTK (Chromium: e2e/pypi-packages.spec.ts):
//   playground — a PEP 723 tools file locked in the page, the pinned wheels downloaded after asking,
//     a tool that imports tabulate and six run in the sandbox; then, with the app server and the
//     index gone, an offline reload, the project (tools.py + pylock.toml) picked as a zip and the tool
//     run again from Cache Storage.
//   widget — a tools-src zip and its pylock.toml on a docs page: the pinned wheels fetched on the first
//     visit, none on the next with the index gone (not checked where the browser keeps no Cache
//     Storage record across a reload of a page without a service worker: WebKitGTK under
//     WebKitWebDriver here; a probe says so).
// The index is test/pypi-mirror.ts (PyPI through 127.0.0.1, with CORS). Skipped without pypi.org,
// unless EDGE_REQUIRE_PYPI=1 (CI) makes that a failure.
import { zipSync } from "fflate";
import { evaluate, fill, until, untilText, type Driver } from "./driver.ts";
import {
  bootPlayground,
  expectEqual,
  expectIsolated,
  noConsoleErrors,
  startAppServer,
  workFile,
  type Journey,
  type Pace,
} from "./steps.ts";
import { lockInMemory, PypiMirror } from "../../test/pypi-mirror.ts";
import { docsPage, ensureWidgetBuild, startWidgetSites } from "../widget-servers.ts";
import { PYPI_TABLE, PYPI_TOOLS } from "../../test/fixtures/pypi-tools.ts";

async function runStock(driver: Driver, timeoutMs: number): Promise<void> {
  await driver.click("#tab-try");
  await fill(driver, "#try-tool-select", "stock");
  await driver.click("#try-run");
  await untilText(driver, "[data-testid=try-outcome]", "ok", timeoutMs);
  const result = await evaluate(
    driver,
    () => JSON.parse(document.querySelector("#try-result")?.textContent ?? "{}") as { table?: string; py3?: boolean },
    null,
  );
  expectEqual(result.table?.split("\n"), PYPI_TABLE, `${driver.name}: stock's table`);
  expectEqual(result.py3, true, `${driver.name}: six.PY3`);
}

/** The playground: locked in the page, downloaded after asking, run; then offline, from the stored wheels. */
async function playgroundPart(driver: Driver, pace: Pace, mirror: PypiMirror, log: (s: string) => void): Promise<void> {
  const lock = await cliLock(mirror);
  mirror.requests.length = 0;
  const app = await startAppServer(driver, 30 * 60_000);
  await driver.goto(`${app.origin}/?package-index=${encodeURIComponent(mirror.url)}`);
  await bootPlayground(driver, pace);
  await expectIsolated(driver);
  log("booted");
  await driver.chooseFile("#file-input", workFile("tools.py", PYPI_TOOLS));
  await untilText(driver, "#tools-errors", "python_lock_missing", pace.boot);
  await driver.click("#packages-lock-button");
  await untilText(driver, "#packages-lockfile", "Locked 2 package(s) for tools.py (PEP 723)", pace.boot);
  const download = await untilText(driver, "#packages-download", /^Download 2 wheel\(s\), \d+ KB$/, pace.boot);
  log(`locked in the page; asked: ${download}`);
  if (mirror.wheelGets().length) throw new Error(`wheels fetched before Download: ${mirror.wheelGets().join(", ")}`);
  await driver.click("#packages-download");
  await untilText(driver, "#tools-status", "Inspected project/tools.py: 1 tool(s)", pace.boot);
  await runStock(driver, pace.boot);
  log("downloaded, inspected, ran stock (tabulate + six) in the sandbox");

  // Offline: the app's server and the index gone; the service worker serves the app, Cache Storage the wheels.
  await until(
    driver,
    "the service worker to be active",
    () => navigator.serviceWorker.ready.then((r) => Boolean(r.active)),
    null,
    pace.boot,
  );
  await app.close();
  mirror.online = false;
  const seen = mirror.requests.length;
  try {
    await driver.reload();
    await bootPlayground(driver, pace);
    await expectIsolated(driver);
    const zip = zipSync({
      "fruit/tools.py": new TextEncoder().encode(PYPI_TOOLS),
      "fruit/pylock.toml": new TextEncoder().encode(lock),
    });
    await driver.chooseFile("#zip-input", workFile("fruit.zip", zip));
    await untilText(driver, "#tools-status", "Inspected fruit/tools.py: 1 tool(s)", pace.boot);
    await runStock(driver, pace.boot);
    if (mirror.requests.length !== seen)
      throw new Error(`the index was asked offline: ${mirror.requests.slice(seen).join(", ")}`);
    log("offline reload: the project with its pylock.toml ran from the stored wheels");
  } finally {
    mirror.online = true;
  }
  await noConsoleErrors(driver);
}

/** The widget on a docs page: a tools-src zip with its pylock.toml; the pinned wheels fetched once,
 *  then (the index gone) a new visit works from this page's storage. */
async function widgetPart(
  driver: Driver,
  mirror: PypiMirror,
  timeoutMs: number,
  log: (s: string) => void,
): Promise<void> {
  const lock = await cliLock(mirror);
  mirror.requests.length = 0;
  const sites = await startWidgetSites({ widgetDir: ensureWidgetBuild(), headScript: driver.pageScript });
  try {
    const enc = new TextEncoder();
    const script = JSON.stringify([
      JSON.stringify({ tool_name: "stock", arguments: {} }),
      "Here is the stock.",
    ]).replace(/'/g, "&#39;");
    sites.docs.route("/fruit.zip", {
      body: zipSync({ "fruit/tools.py": enc.encode(PYPI_TOOLS), "fruit/pylock.toml": enc.encode(lock) }),
      type: "application/zip",
    });
    sites.docs.route(
      "/fruit.html",
      docsPage({
        widgetUrl: sites.assets.url("/edge-chat.js"),
        attrs: `tools-src="./fruit.zip" engine="scripted" script='${script}'`,
      }),
    );
    for (const visit of ["first visit", "the index gone"]) {
      if (visit === "the index gone" && !(await cacheKeepsRecords(driver))) {
        log(
          `widget, the index gone: not checked — this ${driver.name} keeps no Cache Storage record across a reload of a page without a service worker (a 3-byte probe; localStorage is kept), so the wheels are fetched again on each visit`,
        );
        continue;
      }
      const wheels = mirror.wheelGets().length;
      if (visit === "the index gone") mirror.online = false;
      try {
        await driver.goto(sites.docs.url("/fruit.html"));
        await until(
          driver,
          "the widget's send button",
          () => {
            const root = document.querySelector("edge-chat")?.shadowRoot;
            const send = root?.querySelector("button[type=submit]") as HTMLButtonElement | null;
            if (!root || !send || send.disabled) return false;
            const input = root.querySelector("input[part=input]") as HTMLInputElement;
            input.value = "What is in stock?";
            input.dispatchEvent(new Event("input", { bubbles: true }));
            send.click();
            return true;
          },
          null,
          timeoutMs,
        );
        const shown = await until(
          driver,
          "the widget's answer",
          () => {
            const text = document.querySelector("edge-chat")?.shadowRoot?.textContent ?? "";
            return text.includes("Here is the stock.") || text.includes("Not answered")
              ? text.replace(/\s+/g, " ")
              : "";
          },
          null,
          timeoutMs,
        );
        if (!shown.includes("Here is the stock.") || !shown.includes("apples         3".replace(/\s+/g, " ")))
          throw new Error(`${visit}: the widget showed ${shown.slice(-600)}`);
        const fetched = mirror.wheelGets().length - wheels;
        if (fetched !== (visit === "first visit" ? 2 : 0)) throw new Error(`${visit}: ${fetched} wheel(s) fetched`);
        log(`widget, ${visit}: answered through stock (${fetched} wheel(s) fetched)`);
      } finally {
        mirror.online = true;
      }
    }
  } finally {
    await sites.close();
  }
}

/** Whether this browser keeps a Cache Storage record across a reload of the page it is on (WebKitGTK
 *  under WebKitWebDriver here does not, for a page no service worker controls). */
async function cacheKeepsRecords(driver: Driver): Promise<boolean> {
  await driver.run<void>(
    `caches.open("edge-probe").then((c) => c.put(location.origin + "/__edge/probe", new Response(new Uint8Array([1, 2, 3]))))`,
  );
  await driver.reload();
  return driver.run<boolean>(
    `caches.open("edge-probe").then(async (c) => { const kept = (await c.keys()).length === 1; await caches.delete("edge-probe"); return kept; })`,
  );
}

/** The lock `edge packages lock` writes for PYPI_TOOLS against the mirror (the page writes the same). */
async function cliLock(mirror: PypiMirror): Promise<string> {
  return (
    await lockInMemory(
      { files: { "tools.py": new TextEncoder().encode(PYPI_TOOLS) }, entry: "tools.py" },
      mirror.url,
      false,
    )
  ).outcome.text!;
}

const reachable = await PypiMirror.reachable();

/** Why the PyPI journeys cannot run here, or undefined; under EDGE_REQUIRE_PYPI=1 it throws instead. */
function pypiMissing(): string | undefined {
  if (reachable) return undefined;
  if (process.env.EDGE_REQUIRE_PYPI === "1")
    throw new Error("EDGE_REQUIRE_PYPI=1 but pypi.org cannot be reached from this machine");
  return "pypi.org cannot be reached from this machine";
}

/** A fresh mirror of PyPI for one journey, closed after it. */
async function withMirror(run: (mirror: PypiMirror) => Promise<void>): Promise<void> {
  const mirror = new PypiMirror();
  await mirror.start();
  try {
    await run(mirror);
  } finally {
    await mirror.close();
  }
}

export const pypiPlaygroundJourney: Journey = {
  name: "PyPI packages (playground)",
  skip: pypiMissing,
  run: (driver, pace, log) => withMirror((mirror) => playgroundPart(driver, pace, mirror, log)),
};

export const pypiWidgetJourney: Journey = {
  name: "PyPI packages (widget)",
  skip: pypiMissing,
  run: (driver, pace, log) =>
    withMirror(async (mirror) => {
      await widgetPart(driver, mirror, pace.boot, log);
      await noConsoleErrors(driver);
    }),
};
