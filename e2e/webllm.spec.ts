// The web-llm engine's chat path in real Chromium, without a GPU: WebLLMEngine, web-llm's own
// client and worker handler in a real module worker, the sandboxed Python runner — only the model
// is a fake (e2e/pages/webllm-fake.worker.ts, test/engines/webllm-fake.ts). The page is
// /e2e/pages/webllm.html (a build input with EDGE_E2E_PAGES=1).
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

const PAGE = "/e2e/pages/webllm.html";

async function openPage(page: Page): Promise<void> {
  // Nothing leaves the test server (the fake never fetches; this makes sure of it).
  await page.context().route(
    (url) => url.hostname !== "127.0.0.1" && url.hostname !== "localhost",
    (route) => route.abort(),
  );
  await page.goto(PAGE);
  await expect(page.locator("#status")).toHaveText("ready", { timeout: 60_000 });
}

test("10 turns with a ~20 KB tool result each all complete by dropping old turns; an oversized turn is refused before the model is asked", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await openPage(page);
  expect(await page.evaluate(() => window.__webllm!.open({ tools: true, contextWindow: 16384 }))).toEqual({
    ok: true,
    contextWindow: 16384,
  });
  for (let i = 0; i < 10; i++) {
    const run = await page.evaluate((n) => window.__webllm!.chat(`Report ${n}, please.`), i);
    expect(run, JSON.stringify(run)).toMatchObject({
      outcome: "answered",
      calls: [{ tool_name: "report", status: "ok" }],
      context: { window: 16384, counted_by: "engine" },
    });
    expect(run.answer).toMatch(/^Here is the summary of \d{2,} rows\.$/);
    expect(run.engine_stats?.generations).toBe(2);
    if (i >= 1) expect(run.context!.turns_dropped).toBeGreaterThan(0);
    expect(run.context!.prompt_tokens! + run.context!.max_tokens).toBeLessThanOrEqual(16384);
  }
  const oversized = await page.evaluate(() => window.__webllm!.chat("x".repeat(80_000)));
  expect(oversized).toMatchObject({
    outcome: "failed_closed",
    code: "context_window_exceeded",
    generations: 0,
    calls: [],
  });
  expect(oversized.message).toMatch(/context window is 16384 tokens/);
  // The conversation goes on after the refusal.
  expect(await page.evaluate(() => window.__webllm!.chat("Report 10, please."))).toMatchObject({ outcome: "answered" });
});

test("a worker that dies mid-stream fails the answer with engine_lost; a reload works; Stop ends a generation and the engine stays usable", async ({
  page,
}) => {
  await openPage(page);
  expect(await page.evaluate(() => window.__webllm!.open({ crashAtStep: 5, tokenDelayMs: 5 }))).toMatchObject({
    ok: true,
  });
  const lost = await page.evaluate(() => window.__webllm!.chat("Tell me something."));
  expect(lost).toMatchObject({ outcome: "failed_closed", code: "engine_lost" });
  expect(lost.message).toMatch(/Reload the model/);
  expect(await page.evaluate(() => window.__webllm!.loaded())).toBe(false);

  expect(await page.evaluate(() => window.__webllm!.open({ tokenDelayMs: 5 }))).toMatchObject({ ok: true });
  const stopped = await page.evaluate(() => window.__webllm!.chat("Tell me something long.", 3));
  expect(stopped).toMatchObject({ outcome: "failed_closed", code: "aborted" });
  const after = await page.evaluate(() => window.__webllm!.chat("Still there?"));
  expect(after).toMatchObject({ outcome: "answered", truncated: false });
  expect(after.answer).toMatch(/^You said: Still there\?/);
  await expect(page.getByTestId("engine-stats")).toHaveText(
    /^first token (\d+ ms|[\d.]+ s) · [\d.]+ tokens\/s · \d+ tokens$/,
  );
  await expect(page.getByTestId("truncated")).toHaveCount(0);

  // An answer cut off at max_tokens is marked, in the run and where it is shown.
  expect(await page.evaluate(() => window.__webllm!.open({ maxTokens: 16 }))).toMatchObject({ ok: true });
  expect(await page.evaluate(() => window.__webllm!.chat("Tell me everything."))).toMatchObject({
    outcome: "answered",
    truncated: true,
  });
  await expect(page.getByTestId("truncated")).toHaveText(/Incomplete: the answer was cut off at the token limit/);
});

test("a model record with a wrong integrity hash → model_integrity_failed, and the unverified file is not left in web-llm's cache", async ({
  page,
}) => {
  await openPage(page);
  expect(await page.evaluate(() => window.__webllm!.open({ wrongIntegrity: true }))).toEqual({
    ok: false,
    code: "model_integrity_failed",
  });
  expect(await page.evaluate(() => window.__webllm!.configCached())).toBe(false);
  expect(await page.evaluate(() => window.__webllm!.open())).toMatchObject({ ok: true });
  expect(await page.evaluate(() => window.__webllm!.configCached())).toBe(true);
});
