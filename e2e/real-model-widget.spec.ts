// Real weights in the <edge-chat> widget (Chromium), as a docs page uses it: SmolLM2-135M-Instruct
// (a trained model, 98 MB, pinned by sha256; `npm run setup:models`) from a URL on a third server,
// the widget from an asset origin, the page from another (e2e/widget-servers.ts), engine auto (no
// WebGPU here: llama.cpp on the CPU), tool choice "required". The model downloads with the first
// question; then the checks of real-model-checks.ts (a valid call, run once in the runner, a chained
// receipt naming the real file's sha256, model text shown while generated, a run that ends by
// itself). Then the visitor picks their own copy of the file: it loads at once and the widget reads
// the tools into it before the next question (its first generation evaluates only the question's
// turn). What the model chooses and says is never asserted. Then a page that leaves tool choice to
// the widget's default, "auto": a greeting no tool fits is weighed in the page and answered without a
// call, and the receipt says so (real-model-checks.ts, checkWeighedNoCall). The playground:
// real-model.spec.ts.
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import type { Receipt } from "../src/receipts/types.ts";
import type { ModelServer } from "../test/engines/model-server.ts";
import { realModel } from "../test/real-models.ts";
import {
  checkRealRun,
  checkWeighedNoCall,
  NO_TOOL_QUESTION,
  runSummary,
  REAL_MODEL,
  REAL_MODEL_PATH,
  REAL_QUESTION,
  REAL_TOOLS,
  serveRealModel,
  type ToolChoice,
} from "./real-model-checks.ts";
import { readStoredReceipts, readWidgetRun, watchWidgetStream } from "./real-model-page.ts";
import { askWidget } from "./widget-helpers.ts";
import {
  docsPage,
  ensureWidgetBuild,
  startStaticServer,
  startWidgetSites,
  type StaticServer,
} from "./widget-servers.ts";

/** The first question: the model's download and load, then the run (real-model.spec.ts says why it is slow). */
const RUN_MS = 900_000;
const BOOT_MS = 180_000;

// Undefined when setup:models has not run (the test is skipped); under EDGE_REQUIRE_REAL_MODELS=1 (CI) it throws.
const real = realModel("smollm2-135m-instruct-q4_1");
let server: ModelServer | undefined;
let sites: Awaited<ReturnType<typeof startWidgetSites>> | undefined;
let docs: StaticServer | undefined;

test.beforeAll(async () => {
  if (!real) return;
  test.setTimeout(BOOT_MS);
  server = await serveRealModel(real.path);
  sites = await startWidgetSites({ widgetDir: ensureWidgetBuild() });
  docs = await startStaticServer();
  docs.route("/tools.py", REAL_TOOLS);
  docs.route(
    "/page.html",
    docsPage({
      widgetUrl: sites.assets.url("/edge-chat.js"),
      attrs: `tools-src="./tools.py" model="${server.url(REAL_MODEL_PATH)}" tool-choice="required"`,
    }),
  );
  docs.route(
    "/page-auto.html",
    docsPage({
      widgetUrl: sites.assets.url("/edge-chat.js"),
      attrs: `tools-src="./tools.py" model="${server.url(REAL_MODEL_PATH)}"`,
    }),
  );
});
test.afterAll(async () => {
  await server?.close();
  await docs?.close();
  await sites?.close();
});

/** The docs page at `path`, once its widget shows the model; its <edge-chat>. */
async function openDocsPage(page: Page, path: string): Promise<Locator> {
  await page.goto(docs!.url(path));
  const widget = page.locator("edge-chat");
  await expect(widget.getByText(`${REAL_MODEL.file} · on-device model (llama.cpp, CPU)`)).toBeVisible({
    timeout: BOOT_MS,
  });
  return widget;
}

/** `question` asked in the widget, and the checks of real-model-checks.ts once its run has ended; its receipt. */
async function askAndCheck(
  page: Page,
  widget: Locator,
  question: string,
  choice: ToolChoice = "required",
): Promise<Receipt> {
  const start = await page.evaluate(watchWidgetStream);
  await askWidget(widget, question, BOOT_MS);
  const seen = await (await page.waitForFunction(readWidgetRun, start, { timeout: RUN_MS, polling: 500 })).jsonValue();
  return checkRealRun(seen!, await page.evaluate(readStoredReceipts), null, choice);
}

test("real weights in the <edge-chat> widget: SmolLM2 from a URL (engine auto, no WebGPU), valid calls run once, a receipt naming the file", async ({
  page,
}) => {
  test.skip(!real, "SmolLM2-135M-Instruct is not in .cache/models/ (npm run setup:models)");
  test.setTimeout(2 * RUN_MS + 2 * BOOT_MS);
  const widget = await openDocsPage(page, "/page.html");
  const receipt = await askAndCheck(page, widget, REAL_QUESTION);
  console.log(`[real weights] widget: ${runSummary(receipt)}`);
  expect(server!.hits(REAL_MODEL_PATH)).toBe(1);

  // The visitor's own copy of the file: loaded at once, and the tools are read into it before the
  // next question, which then evaluates only its own turn.
  await widget.getByLabel("Use a GGUF model file from this device").setInputFiles(real!.path);
  await expect(widget.getByRole("status").filter({ hasText: "Ready: the model has read your 2 tools" })).toBeVisible({
    timeout: BOOT_MS,
  });
  const warmed = await askAndCheck(page, widget, REAL_QUESTION);
  console.log(`[real weights] widget, tools read ahead: ${runSummary(warmed)}`);
  expect(warmed.engine_stats?.first_prompt_tokens_evaluated).toBeLessThan(40);
});

test("real weights in the <edge-chat> widget, tool choice left to its default (auto): a greeting no tool fits is weighed and answered without a call; the receipt gives the score and SmolLM2's line", async ({
  page,
}) => {
  test.skip(!real, "SmolLM2-135M-Instruct is not in .cache/models/ (npm run setup:models)");
  test.setTimeout(RUN_MS + BOOT_MS);
  const widget = await openDocsPage(page, "/page-auto.html");
  const receipt = await askAndCheck(page, widget, NO_TOOL_QUESTION, "auto");
  console.log(`[real weights] widget, auto: call start ${checkWeighedNoCall(receipt)}; ${runSummary(receipt)}`);
});
