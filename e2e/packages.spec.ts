// Python packages in the playground, in real Chromium. This machine cannot
// download Pyodide's real wheels, so the test builds two small pure-Python wheels (test/wheels.ts)
// and a pyodide-lock.json naming them (Pyodide's own ABI), served by a local HTTP server as a
// self-hosted package source (?package-lock=, ?package-source=). A person sees what is needed and
// its size before anything is fetched; a tampered wheel is refused and nothing is stored; the good
// one is stored in Cache Storage, handed to the sandboxed runner (which has no network) and
// imported; the receipt names the frozen set; an offline reload reuses the stored wheels without
// asking; Remove forgets them.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import { writeTestLock } from "../test/wheels.ts";
import { bytes } from "../src/app/dom.ts";
import { storedReceipts, tryTool } from "./playground-helpers.ts";

const TOOLS = `from edgestudio.tools import edge_tool
import edgealpha

@edge_tool(description="Multiply by the packaged rate.")
def scaled() -> dict:
    import edgebeta
    return {"value": edgealpha.rate(3), "base": edgebeta.base(), "where": edgealpha.__file__}
`;

const tmp = mkdtempSync(join(tmpdir(), "edge-e2e-packages-"));
const GOOD = join(tmp, "good");
const BAD = join(tmp, "bad");
mkdirSync(GOOD);
mkdirSync(BAD);
const built = writeTestLock(join(tmp, "lock.json"), GOOD, [
  {
    name: "edgepkg-alpha",
    version: "1.2.0",
    imports: ["edgealpha"],
    depends: ["edgepkg-beta"],
    files: { "edgealpha/__init__.py": "from edgebeta import base\n\ndef rate(x):\n    return base() * x\n" },
  },
  {
    name: "edgepkg-beta",
    version: "0.3.1",
    imports: ["edgebeta"],
    files: { "edgebeta.py": "def base():\n    return 7\n" },
  },
]);
const alpha = built["edgepkg-alpha"]!;
const beta = built["edgepkg-beta"]!;
// The "bad" source: the same file names, alpha's bytes changed by one byte at the end.
writeFileSync(join(BAD, beta.file_name), beta.bytes);
writeFileSync(
  join(BAD, alpha.file_name),
  Buffer.concat([Buffer.from(alpha.bytes.subarray(0, -1)), Buffer.from([alpha.bytes.at(-1)! ^ 1])]),
);

/** What the page asked the package server for: "METHOD /path". */
const requests: string[] = [];
let server: Server;
let origin = "";

test.beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const file = join(tmp, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch {
      res.writeHead(404, { "Access-Control-Allow-Origin": "*" }).end();
      return;
    }
    res.writeHead(200, {
      "Access-Control-Allow-Origin": "*",
      "Content-Type": "application/octet-stream",
      "Content-Length": body.byteLength,
    });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(tmp, { recursive: true, force: true });
});

async function openWithSource(page: Page, source: "good" | "bad"): Promise<void> {
  await page.goto(
    `/?package-lock=${encodeURIComponent(`${origin}/lock.json`)}&package-source=${encodeURIComponent(`${origin}/${source}/`)}`,
  );
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  await page
    .locator("#file-input")
    .setInputFiles({ name: "tools.py", mimeType: "text/x-python", buffer: Buffer.from(TOOLS) });
}

const wheelGets = (): string[] => requests.filter((r) => r.startsWith("GET") && r.endsWith(".whl"));

test("packages: asked with sizes before a download, a tampered wheel refused, then stored, imported in the sandbox, in the receipt, reused offline, removed", async ({
  page,
  context,
}) => {
  test.setTimeout(300_000);
  await openWithSource(page, "bad");
  const ask = page.locator("#packages-ask");
  await expect(page.locator("#tools-errors [data-code=python_package_missing]")).toBeVisible({ timeout: 60_000 });
  // Both are imported by tools.py, so both are asked for by name (beta is also alpha's dependency).
  await expect(ask.locator("#packages-plan li")).toHaveText([
    `edgepkg-beta 0.3.1 · ${bytes(beta.bytes.byteLength)}`,
    `edgepkg-alpha 1.2.0 · ${bytes(alpha.bytes.byteLength)}`,
  ]);
  await expect(page.locator("#packages-download")).toHaveText(/^Download 2 wheel\(s\), [0-9.]+ KB$/);
  await expect(ask).toContainText(`From ${origin}/bad/.`);
  expect(wheelGets(), "nothing is fetched before the person chooses Download").toEqual([]);

  // A tampered wheel: refused by its sha256, the ask stays, nothing of alpha is stored.
  await page.locator("#packages-download").click();
  await expect(page.locator("#packages-status")).toContainText("python_package_hash_mismatch", { timeout: 60_000 });
  await expect(page.locator("#packages-download")).toBeEnabled();
  expect(
    await page.evaluate(
      async (f) => (await (await caches.open("edge-python-packages")).keys()).some((r) => r.url.endsWith(f)),
      alpha.file_name,
    ),
  ).toBe(false);

  // The real source: Download, then the tools inspect and run with the packages, in the sandbox.
  await openWithSource(page, "good");
  await expect(page.locator("#packages-plan li").first()).toHaveText(`edgepkg-beta 0.3.1 · already stored`, {
    timeout: 60_000,
  });
  await page.locator("#packages-download").click();
  await expect(page.locator("#tools-status")).toContainText("Inspected tools.py: 1 tool(s)", { timeout: 90_000 });
  await expect(page.locator("#packages-ask")).toBeHidden();
  const ran = await tryTool(page, "scaled");
  expect(ran.state, ran.text).toBe("ok");
  expect(JSON.parse((await page.locator("#try-result").textContent())!)).toMatchObject({ value: 21, base: 7 });
  const frozen = [
    {
      name: "edgepkg-beta",
      version: "0.3.1",
      file_name: beta.file_name,
      sha256: `sha256:${beta.sha256}`,
      source: "pyodide-lock",
    },
    {
      name: "edgepkg-alpha",
      version: "1.2.0",
      file_name: alpha.file_name,
      sha256: `sha256:${alpha.sha256}`,
      source: "pyodide-lock",
    },
  ];
  expect((await storedReceipts(page)).at(-1)?.python_packages).toEqual(frozen);
  await expect(page.locator("#packages-stored summary")).toHaveText(/^Python packages in this browser: 2 \(/);

  // Offline (the package server unreachable too): a reload reuses the stored wheels, without asking.
  // The service worker was installed (the app precached) during the first visit above; an active
  // worker means the precache finished.
  await page.evaluate(async () => void (await navigator.serviceWorker.ready));
  const before = requests.length;
  await context.setOffline(true);
  try {
    await page.reload();
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
    await page
      .locator("#file-input")
      .setInputFiles({ name: "tools.py", mimeType: "text/x-python", buffer: Buffer.from(TOOLS) });
    await expect(page.locator("#tools-status")).toContainText("Inspected tools.py: 1 tool(s)", { timeout: 90_000 });
    const offline = await tryTool(page, "scaled");
    expect(offline.state, offline.text).toBe("ok");
    expect(requests.length, "offline: the package server was not reached").toBe(before);
  } finally {
    await context.setOffline(false);
  }

  // Remove both: the next inspect asks again.
  await page.locator("#packages-stored summary").click();
  await page.getByRole("button", { name: "Remove edgepkg-alpha" }).click();
  await expect(page.locator("#packages-stored summary")).toHaveText(/^Python packages in this browser: 1 \(/);
  await page.getByRole("button", { name: "Remove edgepkg-beta" }).click();
  await expect(page.locator("#packages-stored")).toBeHidden();
  await page.locator("#inspect").click();
  await expect(page.locator("#packages-download")).toBeVisible({ timeout: 60_000 });
});
