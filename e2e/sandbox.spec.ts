// (c) The sandbox holds: tool code running in the browser runner cannot read the app's storage
// and cannot reach the network. Requests are counted at a server of our own (Playwright's request
// events do not show attempts a CSP blocked), with controls that prove the counter and the
// seeded secrets are real.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

interface Counter {
  server: Server;
  base: string;
  hits: string[];
}

async function countingServer(): Promise<Counter> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "Content-Type": "text/plain", "Access-Control-Allow-Origin": "*" });
    res.end("reached");
  });
  server.on("upgrade", (req, socket) => {
    hits.push(`UPGRADE ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://127.0.0.1:${port}/`, hits };
}

const fixture = (name: string) => readFile(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

async function openApp(page: Page): Promise<void> {
  await page.goto("/?debug");
  await page.waitForFunction(() => window.__edge !== undefined, null, { timeout: 90_000 });
}

let counter: Counter;
test.beforeEach(async () => {
  counter = await countingServer();
});
test.afterEach(async () => {
  await new Promise((resolve) => counter.server.close(resolve));
});

test("tool code cannot read the app's storage or reach the network", async ({ page }) => {
  const secret = `secret-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  await openApp(page);

  // Seed the app's origin with the secret everywhere a tool might look, and read it back (control).
  const seeded = await page.evaluate(async (s) => {
    localStorage.setItem("edge-secret", s);
    sessionStorage.setItem("edge-secret", s);
    // biome-ignore lint/suspicious/noDocumentCookie: the secret a tool must not read is planted in every store, cookies included
    document.cookie = `edge_secret=${s}; path=/`;
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open("edge-probe", 1);
      req.onupgradeneeded = () => req.result.createObjectStore("kv");
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction("kv", "readwrite");
      tx.objectStore("kv").put(s, "secret");
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
    });
    const cache = await caches.open("edge-probe");
    await cache.put("/edge-secret", new Response(s));
    return [
      localStorage.getItem("edge-secret"),
      document.cookie.includes(s),
      await (await cache.match("/edge-secret"))!.text(),
    ];
  }, secret);
  expect(seeded).toEqual([secret, true, secret]);

  // Control: an ordinary (unsandboxed) worker of this page reaches the counting server, even
  // while busy-looping right after starting the request, the way the probe tool does.
  await page.evaluate(async (base) => {
    const code = `fetch(${JSON.stringify(base + "control-worker")}, {mode: "no-cors"}).catch(() => {});
      const end = Date.now() + 1000; while (Date.now() < end) {} postMessage("done");`;
    const w = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
    await new Promise((resolve) => (w.onmessage = resolve));
    (window as typeof window & { __control: Worker }).__control = w;
  }, counter.base);
  // Ended only once its request arrived (on a loaded machine that may take a while).
  await expect.poll(() => counter.hits.filter((h) => h.includes("control-worker")).length, { timeout: 30_000 }).toBe(1);
  await page.evaluate(() => (window as typeof window & { __control: Worker }).__control.terminate());
  counter.hits.length = 0;

  const source = await fixture("escape_tools.py");
  const report = await page.evaluate(([src, base]) => window.__edge!.freezeAndCall(src, "escape", { base_url: base }), [
    source,
    counter.base,
  ] as const);
  await page.waitForTimeout(1500); // late asynchronous attempts would arrive here

  expect(report.ok, JSON.stringify(report.error)).toBe(true);
  expect(report.runner_secret_verified).toBe(true);
  const out = report.result as Record<string, string>;
  // Opaque origin; no storage of the app's origin is reachable.
  expect(out.origin).toBe("returned:null");
  expect(out.local_storage).toBe("absent");
  expect(out.session_storage).toBe("absent");
  expect(out.cookie).toBe("absent");
  expect(out.caches).toBe("absent");
  expect(out.storage_manager).toBe("absent");
  expect(out.locks).toBe("absent");
  expect(out.indexeddb_open).toBe("blocked:SecurityError");
  // No code from strings.
  expect(out.eval).toBe("blocked:EvalError");
  expect(out.function_ctor).toBe("blocked:EvalError");
  expect(out.run_js).toBe("blocked:EvalError");
  // Synchronous network attempts fail on the spot; script URLs from strings are refused by
  // Trusted Types before any request could start.
  expect(out.xhr_sync).toBe("blocked:NetworkError");
  expect(out.import_scripts).toBe("blocked:TypeError");
  expect(out.worker_http).toBe("blocked:TypeError");
  expect(out.nested_worker).toBe("blocked:TypeError");
  expect(out.beacon).toBe("absent");
  // No JavaScript from a string either: not through importScripts or a worker of a
  // blob: URL, not through setTimeout(string), and tool code cannot make a Trusted Types policy.
  expect(out.import_scripts_blob).toBe("blocked:TypeError");
  expect(out.worker_blob).toBe("blocked:TypeError");
  expect(out.set_timeout_string).toBe("blocked:TypeError");
  expect(out.trusted_types_runner_policy).toBe("blocked:TypeError");
  expect(out.trusted_types_default_policy).toBe("blocked:TypeError");
  expect(out.ran_from_string).toBe("absent");
  // Asynchronous ones can be started; what matters is that none arrives (counted below).
  for (const probe of ["fetch", "fetch_no_cors", "pyfetch", "xhr_async", "websocket", "event_source"]) {
    expect(out[probe], probe).toBe("started");
  }
  // Nothing reached the network, and the secret appears nowhere in what came back.
  expect(counter.hits).toEqual([]);
  expect(JSON.stringify(report)).not.toContain(secret);
});

test("a forged reply posted by tool code is never accepted", async ({ page }) => {
  await openApp(page);
  const source = await fixture("escape_tools.py");
  const report = await page.evaluate((src) => window.__edge!.freezeAndCall(src, "forge_reply", {}), source);
  expect(report.ok).toBe(false);
  expect(report.error?.code).toBe("runner_reply_unverified");
  expect(report.runner_secret_verified).toBe(false);
  expect(report.result).toBeUndefined();
  expect(JSON.stringify(report)).not.toContain("forged");
});
