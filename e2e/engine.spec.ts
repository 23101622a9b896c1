// WebLLMEngine in real headless Chromium. No GPU and no model weights exist here, so these tests
// prove the wiring up to the first point a real model would be needed:
//  * no WebGPU adapter → the llm worker starts, probes, and load() rejects webgpu_unavailable;
//  * SwiftShader adapter (--enable-unsafe-webgpu, no shader-f16) → the f32 variant is chosen and
//    web-llm gets as far as fetching the model, which fails → model_fetch_failed.
// Requests to any host but the test server are aborted, so this never downloads a model even on a
// machine with internet access. The page is /e2e/pages/engine.html (a build input).
import type { Browser, BrowserContext, BrowserType, Page, TestInfo } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import type { LoadOutcome } from "./pages/engine.ts";

const PAGE = "/e2e/pages/engine.html";
/** web-llm is ~6 MB per side; the page's own code is far below this. */
const BIG_SCRIPT = 2_000_000;

type LoadOptions = Parameters<Window["edgeEngineTest"]["load"]>[0];

/** Abort every request that leaves the test server; return the URLs that tried. */
async function blockExternal(context: BrowserContext): Promise<string[]> {
  const attempted: string[] = [];
  await context.route(
    (url) => url.hostname !== "127.0.0.1" && url.hostname !== "localhost",
    async (route) => {
      attempted.push(route.request().url());
      await route.abort("internetdisconnected");
    },
  );
  return attempted;
}

async function openEnginePage(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
}

function load(page: Page, options?: LoadOptions): Promise<LoadOutcome> {
  return page.evaluate((o) => window.edgeEngineTest.load(o), options);
}

function largestScript(page: Page): Promise<{ name: string; bytes: number }> {
  return page.evaluate(() => window.edgeEngineTest.largestScript());
}

/** A browser like the project's, plus --enable-unsafe-webgpu (SwiftShader adapter). */
async function launchWithWebGPU(chromium: BrowserType, info: TestInfo): Promise<Browser> {
  const base = info.project.use.launchOptions ?? {};
  return chromium.launch({ ...base, args: [...(base.args ?? []), "--enable-unsafe-webgpu"] });
}

test("no WebGPU adapter: the llm worker starts, load() rejects with webgpu_unavailable, web-llm never reaches the page", async ({
  page,
  context,
}) => {
  const attempted = await blockExternal(context);
  const workers: string[] = [];
  page.on("worker", (w) => workers.push(w.url()));
  await openEnginePage(page);
  expect((await largestScript(page)).bytes).toBeLessThan(BIG_SCRIPT);

  const r = await load(page);
  expect(r.ok).toBe(false);
  expect(r.code).toBe("webgpu_unavailable");
  // The verdict came from the probe inside the llm worker (where web-llm would run).
  expect(r.details).toMatchObject({ where: "worker", reason: "no_adapter" });
  expect(r.gpu).toMatchObject({ available: false, reason: "no_adapter" });
  expect(r.message).toMatch(/hardware acceleration|scripted demo/);
  expect(workers.some((u) => /llm\.worker/.test(u))).toBe(true);
  expect(r.progress).toEqual([]);
  // Nothing was downloaded: no model request, and web-llm's page half was never imported.
  expect(attempted).toEqual([]);
  expect((await largestScript(page)).bytes).toBeLessThan(BIG_SCRIPT);
});

test.describe("SwiftShader WebGPU adapter", () => {
  let browser: Browser;
  test.beforeAll(async ({ playwright }, info) => {
    browser = await launchWithWebGPU(playwright.chromium, info);
  });
  test.afterAll(async () => {
    await browser?.close();
  });

  async function freshPage(info: TestInfo): Promise<{ page: Page; attempted: string[]; context: BrowserContext }> {
    const context = await browser.newContext({ baseURL: info.project.use.baseURL });
    const attempted = await blockExternal(context);
    const page = await context.newPage();
    await openEnginePage(page);
    return { page, attempted, context };
  }

  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures a test uses from an object pattern, and this one uses none
  test("default model: picks the q4f32 variant, reaches the model download, rejects with model_fetch_failed", async ({}, info) => {
    const { page, attempted, context } = await freshPage(info);
    expect((await largestScript(page)).bytes).toBeLessThan(BIG_SCRIPT);

    const r = await load(page);
    // SwiftShader is a software adapter: Chromium reports it in adapter.info.isFallbackAdapter.
    expect(r.gpu).toMatchObject({ available: true, shaderF16: false, adapter: { isFallbackAdapter: true } });
    expect(r.info.kind).toBe("webllm");
    expect(r.info.label).toMatch(/fallback adapter/);
    expect(r.info.modelId).toBe("Qwen2.5-1.5B-Instruct-q4f32_1-MLC");
    expect(r.info.fingerprint).toMatchObject({
      modelId: "Qwen2.5-1.5B-Instruct-q4f32_1-MLC",
      modelUrl: "https://huggingface.co/mlc-ai/Qwen2.5-1.5B-Instruct-q4f32_1-MLC",
      runtimeVersion: "v0_2_86/base",
      shaderF16: false,
    });
    expect(r.code).toBe("model_fetch_failed");
    expect(String(r.details?.original)).toMatch(/Failed to fetch|Cache|fetch/i);
    // web-llm itself went for the model's config (the real path is wired).
    expect(
      attempted.some((u) => u.startsWith("https://huggingface.co/mlc-ai/Qwen2.5-1.5B-Instruct-q4f32_1-MLC/")),
    ).toBe(true);
    // web-llm's page half was loaded now, on demand, not before.
    expect((await largestScript(page)).bytes).toBeGreaterThan(BIG_SCRIPT);
    await context.close();
  });

  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures a test uses from an object pattern, and this one uses none
  test("self-hosted appConfig: 404 and an index.html fallback are model_fetch_failed; an f16 model is refused before any download", async ({}, info) => {
    const { page, context } = await freshPage(info);
    const origin = new URL(page.url()).origin;
    // Deterministic server answers for the self-hosted model files, whatever the dev/preview server does.
    const served: string[] = [];
    await context.route(/\/models-404\//, async (route) => {
      served.push(route.request().url());
      await route.fulfill({ status: 404, contentType: "text/plain", body: "not found" });
    });
    await context.route(/\/models-spa\//, async (route) => {
      served.push(route.request().url());
      await route.fulfill({
        status: 200,
        contentType: "text/html",
        body: "<!doctype html><html><body>app</body></html>",
      });
    });
    const record = (dir: string, id: string) => ({
      model: `${origin}/${dir}/${id}/`,
      model_id: id,
      model_lib: `${origin}/${dir}/${id}/lib.wasm`,
    });
    const appConfig = {
      model_list: [
        record("models-404", "Local-A-q4f32_1-MLC"),
        record("models-spa", "Local-B-q4f32_1-MLC"),
        record("models-404", "Local-C-q4f16_1-MLC"),
      ],
    };

    const missing = await load(page, { appConfig, modelId: "Local-A-q4f32_1-MLC" });
    expect(missing.code).toBe("model_fetch_failed");
    expect(missing.info.fingerprint?.modelUrl).toBe(`${origin}/models-404/Local-A-q4f32_1-MLC/`);
    // web-llm appends resolve/main/ to model URLs and fetches the chat config first.
    expect(served).toContain(`${origin}/models-404/Local-A-q4f32_1-MLC/resolve/main/mlc-chat-config.json`);

    const html = await load(page, { appConfig, modelId: "Local-B-q4f32_1-MLC" });
    expect(html.code).toBe("model_fetch_failed");
    expect(html.message).toMatch(/web page instead of the model's files/);

    const before = served.length;
    const f16 = await load(page, { appConfig, modelId: "Local-C-q4f16_1-MLC" });
    expect(f16.code).toBe("model_load_failed");
    expect(f16.details).toMatchObject({ reason: "shader_f16_missing" });
    expect(served.length).toBe(before);

    // Clean up what web-llm cached from the fallback answer (it stores 200 responses).
    await page.evaluate(async () => {
      for (const key of await caches.keys()) await caches.delete(key);
    });
    await context.close();
  });
});
