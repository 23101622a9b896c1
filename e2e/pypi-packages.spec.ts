// A tools file's own dependencies from PyPI, in real Chromium: the playground locks them in the
// page (PEP 723 → pylock.toml, the same text `edge packages lock` writes), offers the lock to save,
// asks before it downloads the wheels the lock pins (a tampered one refused, nothing of it stored),
// runs a tool that imports tabulate and six in the sandbox, and after an offline reload runs it
// again from Cache Storage; the widget takes a tools-src zip with its pylock.toml, fetches the pinned
// wheels once and then works with the index gone, and refuses a zip without a lock. The index is
// PyPI's real JSON Simple API and real wheels, fetched by Node from pypi.org and served on 127.0.0.1
// with CORS (test/pypi-mirror.ts: a proxy on this machine strips PyPI's own CORS headers, so the
// browser cannot read pypi.org itself). Needs pypi.org from Node: skipped without it, unless
// EDGE_REQUIRE_PYPI=1 makes that a failure.
import { readFileSync } from "node:fs";
import { zipSync } from "fflate";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import { storedReceipts, tryTool } from "./playground-helpers.ts";
import { askWidget } from "./widget-helpers.ts";
import { docsPage, ensureWidgetBuild, startWidgetSites } from "./widget-servers.ts";
import { lockInMemory, PypiMirror } from "../test/pypi-mirror.ts";
import { bytes } from "../src/app/dom.ts";
import { sha256Bytes } from "../src/contract/hash.ts";
import type { LockedRow } from "../src/packages/lock-project.ts";
import { PYPI_TOOLS } from "../test/fixtures/pypi-tools.ts";

const enc = new TextEncoder();
const reachable = await PypiMirror.reachable();
if (!reachable && process.env.EDGE_REQUIRE_PYPI === "1")
  throw new Error("EDGE_REQUIRE_PYPI=1 but https://pypi.org/simple/ cannot be reached from this machine.");
test.skip(!reachable, "pypi.org cannot be reached from this machine");

const mirror = new PypiMirror();
/** The lock `edge packages lock` writes for PYPI_TOOLS against the mirror (the CLI's own code, in Node). */
let cliLock = "";
let pins: LockedRow[] = [];

test.beforeAll(async () => {
  test.setTimeout(120_000);
  await mirror.start();
  const { outcome } = await lockInMemory(
    { files: { "tools.py": enc.encode(PYPI_TOOLS) }, entry: "tools.py" },
    mirror.url,
  );
  cliLock = outcome.text!;
  pins = outcome.packages;
  expect(pins.map((p) => [p.name, p.status, p.source]).sort()).toEqual([
    ["six", "added", "pypi"],
    ["tabulate", "added", "pypi"],
  ]);
  mirror.requests.length = 0;
});

test.afterAll(() => mirror.close());

const pin = (name: string): LockedRow => pins.find((p) => p.name === name)!;

async function open(page: Page): Promise<void> {
  await page.goto(`/?package-index=${encodeURIComponent(mirror.url)}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
}

async function storedKeys(page: Page): Promise<string[]> {
  return page.evaluate(async () =>
    (await (await caches.open("edge-python-packages")).keys()).map((r) => new URL(r.url).pathname),
  );
}

test("playground: declared dependencies locked in the page, the lock saved, the wheels downloaded after asking (a tampered one refused), a tool using tabulate run, then run again offline", async ({
  page,
  context,
}) => {
  test.setTimeout(300_000);
  await open(page);
  await page
    .locator("#file-input")
    .setInputFiles({ name: "tools.py", mimeType: "text/x-python", buffer: Buffer.from(PYPI_TOOLS) });
  const missing = page.locator("#tools-errors [data-code=python_lock_missing]");
  await expect(missing).toBeVisible({ timeout: 60_000 });
  await expect(missing).toContainText("“Lock dependencies” resolves what tools.py declares");
  expect(mirror.requests, "nothing is asked of the index before the person locks").toEqual([]);

  // Lock: resolved in the page against the index (its pages and each chosen wheel's metadata, no wheel).
  const t0 = Date.now();
  await page.locator("#packages-lock-button").click();
  await expect(page.locator("#packages-lockfile")).toContainText("Locked 2 package(s) for tools.py (PEP 723)", {
    timeout: 60_000,
  });
  const lockMs = Date.now() - t0;
  expect(mirror.wheelGets(), "locking downloads no wheel when the index serves their metadata").toEqual([]);
  await expect(page.locator("#project-files [data-path='pylock.toml']")).toBeVisible();
  const [saved] = await Promise.all([page.waitForEvent("download"), page.locator("#packages-save").click()]);
  expect(saved.suggestedFilename()).toBe("pylock.toml");
  const lockText = readFileSync(await saved.path(), "utf8");
  expect(lockText, "the page writes the very lock the CLI writes").toBe(cliLock);

  // The ask: what the lock pins that this browser lacks, sizes from the lock, nothing fetched yet.
  await expect(page.locator("#tools-errors [data-code=python_package_missing]")).toBeVisible({ timeout: 60_000 });
  const plan = page.locator("#packages-plan li");
  await expect(plan).toHaveText(pins.map((p) => `${p.name} ${p.version} · ${bytes(p.bytes!)} · pypi`));
  const total = pins.reduce((n, p) => n + p.bytes!, 0);
  await expect(page.locator("#packages-download")).toHaveText(`Download 2 wheel(s), ${bytes(total)}`);
  expect(mirror.wheelGets()).toEqual([]);

  // A tampered tabulate: refused by the lock's sha256, nothing of it stored, the ask stays.
  const tabulate = pin("tabulate");
  mirror.tamper.add(tabulate.file_name);
  await page.locator("#packages-download").click();
  await expect(page.locator("#packages-status")).toContainText("python_package_hash_mismatch", { timeout: 60_000 });
  await expect(page.locator("#packages-status")).toContainText(`${tabulate.file_name} from ${mirror.origin}/files/`);
  await expect(page.locator("#packages-download")).toBeEnabled();
  expect((await storedKeys(page)).some((k) => k.endsWith(tabulate.file_name))).toBe(false);

  // The real bytes: downloaded, checked, stored; inspected again; the tool runs in the sandbox.
  mirror.tamper.clear();
  const t1 = Date.now();
  await page.locator("#packages-download").click();
  await expect(page.locator("#tools-status")).toContainText("Inspected project/tools.py: 1 tool(s)", {
    timeout: 90_000,
  });
  const downloadMs = Date.now() - t1;
  await expect(page.locator("#packages-ask")).toBeHidden();
  expect((await storedKeys(page)).filter((k) => k.startsWith("/__edge/python-index-wheels/")).sort()).toEqual(
    pins.map((p) => `/__edge/python-index-wheels/${p.file_name}`).sort(),
  );
  const ran = await tryTool(page, "stock");
  expect(ran.state, ran.text).toBe("ok");
  const result = JSON.parse((await page.locator("#try-result").textContent())!) as { table: string; py3: boolean };
  expect(result.table.split("\n")).toEqual([
    "fruit      count",
    "-------  -------",
    "apples         3",
    "pears          5",
  ]);
  expect(result.py3).toBe(true);
  const receipt = (await storedReceipts(page)).at(-1)!;
  expect(receipt.python_packages).toEqual(
    pins.map((p) => ({ name: p.name, version: p.version, file_name: p.file_name, sha256: p.sha256, source: "pypi" })),
  );
  expect(receipt.python_lock_sha256).toBe(await sha256Bytes(enc.encode(lockText)));
  await expect(page.locator("#packages-stored summary")).toHaveText(
    `Python packages in this browser: 2 (${bytes(total)})`,
  );
  await expect(page.locator("#packages-stored li[data-source=pypi]")).toHaveCount(2);
  console.log(
    JSON.stringify({
      lock_ms: lockMs,
      download_and_inspect_ms: downloadMs,
      wheels: pins.map((p) => [p.file_name, p.bytes]),
    }),
  );

  // Offline (the index unreachable too): a reload and the saved project (tools.py + pylock.toml)
  // run with the stored wheels, without asking and without the index.
  await page.evaluate(async () => void (await navigator.serviceWorker.ready));
  const before = mirror.requests.length;
  await context.setOffline(true);
  try {
    await page.reload();
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
    const zip = zipSync({ "fruit/tools.py": enc.encode(PYPI_TOOLS), "fruit/pylock.toml": enc.encode(lockText) });
    await page
      .locator("#zip-input")
      .setInputFiles({ name: "fruit.zip", mimeType: "application/zip", buffer: Buffer.from(zip) });
    await expect(page.locator("#tools-status")).toContainText("Inspected fruit/tools.py: 1 tool(s)", {
      timeout: 90_000,
    });
    const offline = await tryTool(page, "stock");
    expect(offline.state, offline.text).toBe("ok");
    expect(mirror.requests.length, "offline: the index was not reached").toBe(before);
  } finally {
    await context.setOffline(false);
  }

  // Remove tabulate: the next inspect asks for it alone.
  await page.locator("#packages-stored summary").click();
  await page.getByRole("button", { name: `Remove tabulate ${tabulate.version} (pypi)` }).click();
  await expect(page.locator("#packages-stored summary")).toHaveText(/^Python packages in this browser: 1 \(/);
  await page.locator("#inspect").click();
  await expect(plan).toHaveText([`tabulate ${tabulate.version} · ${bytes(tabulate.bytes!)} · pypi`], {
    timeout: 60_000,
  });
});

test("playground: a hand-edited or stale lock offers Lock again; a package without a wheel Pyodide installs is refused with its reason", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await open(page);
  // A lock edited by hand (a version changed): refused, and Lock is offered.
  const edited = cliLock.replace(`version = "${pin("six").version}"`, 'version = "1.16.0"');
  expect(edited).not.toBe(cliLock);
  const handEdited = zipSync({ "fruit/tools.py": enc.encode(PYPI_TOOLS), "fruit/pylock.toml": enc.encode(edited) });
  await page
    .locator("#zip-input")
    .setInputFiles({ name: "fruit.zip", mimeType: "application/zip", buffer: Buffer.from(handEdited) });
  await expect(page.locator("#tools-errors [data-code=python_lock_invalid]")).toContainText("edited by hand", {
    timeout: 60_000,
  });
  await expect(page.locator("#packages-lock")).toContainText("The project's pylock.toml cannot be used (see above).");
  await expect(page.locator("#packages-lock-button")).toBeEnabled();
  // The declarations moved past the lock (six dropped): stale, and Lock resolves again.
  const fewer = PYPI_TOOLS.replace(', "six"]', "]").replace("import six\n", "").replace(', "py3": six.PY3', "");
  const zip = zipSync({ "fruit/tools.py": enc.encode(fewer), "fruit/pylock.toml": enc.encode(cliLock) });
  await page
    .locator("#zip-input")
    .setInputFiles({ name: "fruit.zip", mimeType: "application/zip", buffer: Buffer.from(zip) });
  await expect(page.locator("#tools-errors [data-code=python_lock_stale]")).toBeVisible({ timeout: 60_000 });
  await expect(page.locator("#packages-lock")).toContainText(
    "The declared dependencies changed since pylock.toml was written.",
  );
  await page.locator("#packages-lock-button").click();
  await expect(page.locator("#packages-lockfile")).toContainText(
    `Locked 1 package(s) for tools.py (PEP 723) against ${mirror.url}: tabulate ${pin("tabulate").version}.`,
    { timeout: 60_000 },
  );
  await expect(page.locator("#packages-plan li")).toHaveText(
    [`tabulate ${pin("tabulate").version} · ${bytes(pin("tabulate").bytes!)} · pypi`],
    { timeout: 60_000 },
  );

  // psutil: wheels for Linux, macOS and Windows only, not in Pyodide's lock.
  const compiled = PYPI_TOOLS.replace('["tabulate>=0.9", "six"]', '["psutil"]');
  await page
    .locator("#file-input")
    .setInputFiles({ name: "tools.py", mimeType: "text/x-python", buffer: Buffer.from(compiled) });
  await expect(page.locator("#tools-errors [data-code=python_lock_missing]")).toBeVisible({ timeout: 60_000 });
  await page.locator("#packages-lock-button").click();
  const status = page.locator("#packages-lock-status");
  await expect(status).toContainText("Lock failed: python_package_unavailable", { timeout: 60_000 });
  await expect(status).toContainText("has wheels for other platforms only");
  await expect(page.locator("#packages-lock-button")).toBeEnabled();
});

test("widget: a tools-src zip with its pylock.toml fetches the pinned wheels once, then works with the index gone; a zip without the lock is refused with python_lock_missing", async ({
  page,
  context,
}) => {
  test.setTimeout(240_000);
  await context.addInitScript(() => {
    const seen: unknown[] = [];
    (window as typeof window & { __receipts: unknown[] }).__receipts = seen;
    document.addEventListener("edge-receipt", (e) => seen.push(JSON.parse(JSON.stringify((e as CustomEvent).detail))));
  });
  const lastReceipt = async (): Promise<{
    python_packages?: unknown;
    python_lock_sha256?: string;
    calls: { status: string }[];
  }> => {
    await expect
      .poll(() => page.evaluate(() => (window as typeof window & { __receipts: unknown[] }).__receipts.length), {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);
    return page.evaluate(() => (window as typeof window & { __receipts: unknown[] }).__receipts.at(-1)) as never;
  };
  const sites = await startWidgetSites({ widgetDir: ensureWidgetBuild() });
  try {
    const script = JSON.stringify([
      JSON.stringify({ tool_name: "stock", arguments: {} }),
      "Here is the stock.",
    ]).replace(/'/g, "&#39;");
    sites.docs.route("/fruit.zip", {
      body: zipSync({ "fruit/tools.py": enc.encode(PYPI_TOOLS), "fruit/pylock.toml": enc.encode(cliLock) }),
      type: "application/zip",
    });
    sites.docs.route(
      "/fruit.html",
      docsPage({
        widgetUrl: sites.assets.url("/edge-chat.js"),
        attrs: `tools-src="./fruit.zip" engine="scripted" script='${script}'`,
      }),
    );
    const before = mirror.wheelGets().length;
    await page.goto(sites.docs.url("/fruit.html"));
    const widget = page.locator("edge-chat");
    await askWidget(widget, "What is in stock?");
    await expect(widget.getByText("Here is the stock.")).toBeVisible({ timeout: 120_000 });
    await expect(widget).toContainText("apples         3");
    const receipt = await lastReceipt();
    expect(receipt.calls[0]!.status).toBe("ok");
    expect(receipt.python_packages).toEqual(
      pins.map((p) => ({ name: p.name, version: p.version, file_name: p.file_name, sha256: p.sha256, source: "pypi" })),
    );
    expect(receipt.python_lock_sha256).toBe(await sha256Bytes(enc.encode(cliLock)));
    expect(mirror.wheelGets().slice(before).sort()).toEqual(
      pins.map((p) => `GET /files/${encodeURIComponent(p.file_name)}`).sort(),
    );

    // The index gone: a new visit uses the stored wheels.
    mirror.online = false;
    const seen = mirror.requests.length;
    try {
      await page.reload();
      await askWidget(widget, "And now?");
      await expect(widget.getByText("Here is the stock.")).toBeVisible({ timeout: 120_000 });
      expect((await lastReceipt()).calls[0]!.status).toBe("ok");
      expect(mirror.requests.length, "the index was not asked again").toBe(seen);
    } finally {
      mirror.online = true;
    }

    // Declarations without a lock: refused, with what to do.
    sites.docs.route("/nolock.zip", {
      body: zipSync({ "fruit/tools.py": enc.encode(PYPI_TOOLS) }),
      type: "application/zip",
    });
    sites.docs.route(
      "/nolock.html",
      docsPage({
        widgetUrl: sites.assets.url("/edge-chat.js"),
        attrs: `tools-src="./nolock.zip" engine="scripted" script='${script}'`,
      }),
    );
    await page.goto(sites.docs.url("/nolock.html"));
    await askWidget(widget, "What is in stock?");
    await expect(widget.getByText("Not answered (python_lock_missing)")).toBeVisible({ timeout: 120_000 });
    await expect(widget).toContainText(
      "The widget does not resolve dependencies: lock them once with `edge packages lock`",
    );
  } finally {
    await sites.close();
  }
});
