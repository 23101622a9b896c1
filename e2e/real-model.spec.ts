// Real weights in the Chromium playground, as a person uses them: SmolLM2-135M-Instruct (a trained
// model, 98 MB, pinned by sha256 in models/real-models.json; `npm run setup:models` puts it in
// .cache/models/) loaded from a file the person picks, then from a URL (the local model server),
// then, after an offline reload, from the device's store with no new download. Each time a question
// with tool choice "required" and the checks of real-model-checks.ts (valid calls, each run once in
// the runner, a chained receipt that names the real file's sha256, streamed model text, a run that
// ends by itself); the Receipts tab verifies the chain and exports it. What the model chooses and
// says is never asserted. The widget: real-model-widget.spec.ts; Firefox and WebKit:
// e2e/browsers/real-model-journey.ts.
//
// Last, offline, tool choice "auto", where a checked turn weighs SmolLM2's first reply before it
// proposes a call (src/chat/model-turn.ts, docs/contract.md §4 step 2), in wllama's probabilities: a
// greeting no tool fits sits far below the model's measured line (real-model-checks.ts,
// NO_TOOL_QUESTION), so the page must answer without a call and its receipt must say why, with the
// score and the line (checkWeighedNoCall).
//
// Slow by nature: llama.cpp in WebAssembly on one thread, and SmolLM2 repeats its call after each
// result until the call budget (five generations a question: 80–100 s here on a busy machine); the
// timeouts allow a loaded CI machine several times that.
import { readFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import type { ModelServer } from "../test/engines/model-server.ts";
import { realModel } from "../test/real-models.ts";
import type { Receipt } from "../src/receipts/types.ts";
import { parseJsonLines, verifyReceipts } from "../src/receipts/chain.ts";
import { openToolsFile, loadModelFromUrl } from "./playground-helpers.ts";
import {
  checkRealRun,
  checkWeighedNoCall,
  NO_TOOL_QUESTION,
  runSummary,
  REAL_MODEL,
  REAL_MODEL_PATH,
  REAL_QUESTION,
  REAL_TOOL_COUNT,
  REAL_TOOLS,
  serveRealModel,
  type ToolChoice,
} from "./real-model-checks.ts";
import {
  readPlaygroundRun,
  readPlaygroundSchemas,
  readStoredReceipts,
  watchPlaygroundStream,
} from "./real-model-page.ts";

/** A question's run, from Send to its receipt. */
const RUN_MS = 600_000;
/** Loading the model (from a file: hashing 98 MB; from a URL: the download too). */
const LOAD_MS = 300_000;
const BOOT_MS = 120_000;
/** The question's turn in SmolLM2's template (~20 tokens), far below the tool contract (~300). */
const WARM_QUESTION_TOKENS = 40;

// Undefined when setup:models has not run (the tests are skipped); under EDGE_REQUIRE_REAL_MODELS=1 (CI) it throws.
const real = realModel("smollm2-135m-instruct-q4_1");
let server: ModelServer;

test.beforeAll(async () => {
  if (real) server = await serveRealModel(real.path);
});
test.afterAll(() => server?.close());

async function boot(page: Page): Promise<void> {
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: BOOT_MS });
  await openToolsFile(page, "tools.py", REAL_TOOLS, REAL_TOOL_COUNT);
}

/** The tool choice, the question, and every check once the run has ended by itself. The session's
 *  tool contract was read ahead, before the question (chat/warm-start.ts): the line above the
 *  message box says so, and the first generation evaluates only the question's turn. */
async function askPlayground(page: Page, choice: ToolChoice = "required", question = REAL_QUESTION): Promise<Receipt> {
  await page.locator("#tool-choice").selectOption(choice);
  await expect(page.locator("#session-info")).toContainText(`${REAL_TOOL_COUNT} active tool(s)`);
  await expect(page.locator("#chat-warm")).toHaveAttribute("data-state", /^(ready|failed)$/, { timeout: LOAD_MS });
  await expect(page.locator("#chat-warm")).toContainText(`Ready: the model has read your ${REAL_TOOL_COUNT} tools`, {
    timeout: 1,
  });
  console.log(`[real weights] playground: ${await page.locator("#chat-warm").textContent()}`);
  const start = await page.evaluate(watchPlaygroundStream);
  await page.getByLabel("Message").fill(question);
  await page.getByRole("button", { name: "Send", exact: true }).click();
  const seen = await (
    await page.waitForFunction(readPlaygroundRun, start, { timeout: RUN_MS, polling: 500 })
  ).jsonValue();
  const receipt = await checkRealRun(
    seen!,
    await page.evaluate(readStoredReceipts),
    await page.evaluate(readPlaygroundSchemas),
    choice,
  );
  expect(receipt.engine_stats?.first_prompt_tokens_evaluated).toBeLessThan(WARM_QUESTION_TOKENS);
  console.log(`[real weights] playground: ${runSummary(receipt)}`);
  // Send is back: the page is ready for the next question.
  await expect(page.locator("#send")).toBeEnabled();
  return receipt;
}

/** The Receipts tab: the chain verifies there, and its JSON Lines export verifies here, every chat
 *  receipt naming the real file. */
async function checkExport(page: Page, chats: number): Promise<void> {
  await page.getByRole("tab", { name: "Receipts" }).click();
  await page.locator("#receipts-verify").click();
  await expect(page.locator("#receipts-verdict")).toContainText(`chain OK — ${chats} receipt(s)`);
  const download = page.waitForEvent("download");
  await page.locator("#receipts-export").click();
  const text = readFileSync(await (await download).path(), "utf8");
  expect(await verifyReceipts(text)).toMatchObject({ ok: true, count: chats });
  expect(parseJsonLines(text).map((r) => r.model_fingerprint?.sha256)).toEqual(
    Array(chats).fill(`sha256:${REAL_MODEL.sha256}`),
  );
  await page.getByRole("tab", { name: "Chat" }).click();
}

test("real weights in the playground: SmolLM2 from a file, from a URL, then offline from the device's store; every call valid, run once, in a receipt naming the file; with tool choice auto, a greeting weighed and answered without a call", async ({
  page,
  context,
}) => {
  test.skip(!real, "SmolLM2-135M-Instruct is not in .cache/models/ (npm run setup:models)");
  test.setTimeout(4 * RUN_MS + 3 * LOAD_MS + 3 * BOOT_MS);
  const url = server.url(REAL_MODEL_PATH);
  // Any uncaught error or unhandled rejection in the page, its frames or workers, for the whole run
  // (a rejection without a reason shows as "Error: undefined").
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(`${e.name}: ${e.message}`));
  await page.goto("/");
  await expect(page.locator("body")).toHaveAttribute("data-offline-ready", "1", { timeout: BOOT_MS });
  await boot(page);

  // From a file the person picks: hashed here, never stored, nothing downloaded.
  await page.locator("#llama-file-input").setInputFiles(real!.path);
  await expect(page.locator("#engine-status")).toContainText("(llama.cpp, CPU) ready; new session started.", {
    timeout: LOAD_MS,
  });
  await expect(page.locator("#engine-select option:checked")).toHaveText(`${REAL_MODEL.file} (llama.cpp, CPU)`);
  await askPlayground(page);
  expect(server.hits(REAL_MODEL_PATH)).toBe(0);

  // From a URL: downloaded once, checked, stored.
  await loadModelFromUrl(page, url, REAL_MODEL.file, LOAD_MS);
  expect(server.hits(REAL_MODEL_PATH)).toBe(1);
  await expect(page.locator("#stored-models summary")).toHaveText("Stored models: 1 (98 MB)");
  await askPlayground(page);
  await checkExport(page, 2);

  // Offline: the service worker serves the app, the device's store the model (no request reaches
  // the server).
  await context.setOffline(true);
  await page.reload();
  await boot(page);
  await loadModelFromUrl(page, url, REAL_MODEL.file, LOAD_MS);
  expect(server.hits(REAL_MODEL_PATH)).toBe(1);
  await askPlayground(page);
  // Tool choice "auto": the greeting is weighed and answered without a call (the comment at the top).
  const receipt = await askPlayground(page, "auto", NO_TOOL_QUESTION);
  console.log(`[real weights] auto: call start ${checkWeighedNoCall(receipt)}`);
  await checkExport(page, 4);
  await context.setOffline(false);
  expect(pageErrors).toEqual([]);
});
