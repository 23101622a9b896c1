// Cross-origin isolation (COOP/COEP on every response of the app, vite.config.ts): the playground
// gets SharedArrayBuffer, so llama.cpp (wllama) can run several threads, and what already worked
// keeps working under it — the opaque-origin runner sandbox (a srcdoc frame with data: workers)
// runs tools, and a guided call through a multi-threaded model goes through it. A runner that
// cannot start says why, and a remedy a browser has.
import { expect, test } from "./fixtures.ts";
import { buildTestModel } from "../test/fixtures/gguf.ts";
import { startModelServer, type ModelServer } from "../test/engines/model-server.ts";

let server: ModelServer;
test.beforeAll(async () => {
  server = await startModelServer(buildTestModel());
});
test.afterAll(() => server.close());

test("the playground is cross-origin isolated and its sandboxed runner still runs a tool", async ({ page }) => {
  test.setTimeout(180_000);
  const response = await page.goto("/?nosw");
  expect(response?.headers()).toMatchObject({
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-embedder-policy": "require-corp",
  });
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await page.getByRole("tab", { name: "Try a tool" }).click();
  await page.getByLabel("Tool", { exact: true }).selectOption("fee_quote");
  await page.locator("#try-form input[data-field=amount]").fill("250");
  await page.getByRole("button", { name: "Run tool" }).click();
  await expect(page.locator("#try-result")).toContainText('"fee": 0.75', { timeout: 90_000 });
  // The sandbox frame is still an opaque origin; being cross-origin to the page it is not isolated
  // itself, so tool code gets no SharedArrayBuffer (nor the high-resolution timers that come with it).
  const frame = page.frames().find((f) => f !== page.mainFrame());
  expect(await frame?.evaluate(() => [self.origin, crossOriginIsolated, typeof SharedArrayBuffer])).toEqual([
    "null",
    false,
    "undefined",
  ]);
});

test("on an isolated page llama.cpp runs two threads when asked, one by default for a tiny model, and a guided call runs the real tool", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.goto("/e2e/pages/llamacpp.html");
  await expect(page.locator("#status")).toHaveText("ready", { timeout: 60_000 });
  const run = (threads?: number) =>
    page.evaluate(([u, t]) => window.__llama!.isolatedCall(u, t), [server.url("/model.gguf"), threads] as const);
  const two = await run(2);
  expect(two).toMatchObject({
    isolated: true,
    threads: 2,
    outcome: "return_direct",
    calls: [{ tool_name: "fee_quote", status: "ok", runner_secret_verified: true }],
  });
  // The generated model is under a megabyte: the threads' per-token synchronisation would cost more
  // than they share (docs/engines.md, "Threads"), so the default gives it one.
  expect(await run()).toMatchObject({ isolated: true, threads: 1, outcome: "return_direct" });
});

test("a runner whose worker cannot start says why and what to do in a browser", async ({ page }) => {
  await page.goto("/?debug&nosw");
  await page.waitForFunction(() => window.__edge !== undefined, null, { timeout: 90_000 });
  const error = await page.evaluate(async () => {
    // A worker script that throws as it starts: the frame reports it, the job cannot boot.
    const host = await window.__edge!.createHost({
      workerCode: 'throw new Error("no runner in this worker")',
      spares: 0,
      snapshot: null,
    });
    try {
      const bytes = new TextEncoder().encode("x = 1\n");
      const outcome = await host.discover({ bytes, expectedSha256: `sha256:${"0".repeat(64)}`, filename: "tools.py" });
      return outcome.errors[0];
    } finally {
      await host.close();
    }
  });
  expect(error?.code).toBe("runner_boot_failed");
  // The cause the browser gave, then what a person can do in a page (never "reinstall the package").
  expect(error?.message).toMatch(
    /^The Python runner could not start: runner worker error: .*no runner in this worker\. Reload the page; .*developer console/,
  );
  expect(error?.message).not.toMatch(/reinstall/);
  // Chromium starts the frame's workers from blob: URLs (WebKit, isolated, from data: ones).
  expect(await page.evaluate(() => window.__edge!.host.sandbox.health.workerScheme)).toBe("blob");
});
