// The playground with real weights in Firefox and WebKit, as a person uses it: SmolLM2-135M-Instruct
// (trained, 98 MB, pinned by sha256; `npm run setup:models`) loaded from a file the person picks,
// then from a URL (downloaded once into the device's store: OPFS in Firefox, IndexedDB in WebKit),
// then — with the network gone (both servers closed) — after a reload from the service worker, from
// the store with no new download. A question with tool choice "required" to the file's model and to
// the stored copy (the URL's download is checked through the copy it stored: one run less at wasm
// speed), each with the checks of e2e/real-model-checks.ts: valid calls, each run once
// in the runner, a chained receipt naming the real file's sha256, streamed model text, a run that
// ends by itself. What the model chooses and says is never asserted. Then, with tool choice "auto", a
// greeting no tool fits: the first turn is weighed in the page and answered without a call, and the
// receipt gives the score under SmolLM2's line (real-model-checks.ts, checkWeighedNoCall). The
// Chromium spec (e2e/real-model.spec.ts) makes the same journey with Playwright, with a question
// after each load.
import { realModel, type RealModel } from "../../test/real-models.ts";
import type { Receipt } from "../../src/receipts/types.ts";
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
} from "../real-model-checks.ts";
import {
  readPlaygroundRun,
  readPlaygroundSchemas,
  readStoredReceipts,
  watchPlaygroundStream,
} from "../real-model-page.ts";
import { evaluate, fill, until, untilText, type Driver } from "./driver.ts";
import {
  bootPlayground,
  expectEqual,
  loadModel,
  noConsoleErrors,
  send,
  startAppServer,
  workFile,
  type Journey,
  type Pace,
} from "./steps.ts";

/** The question's turn in SmolLM2's template (~20 tokens), far below the tool contract (~170). */
const WARM_QUESTION_TOKENS = 40;
/** Downloading the real file into the store, or hashing it from disk: a minute or more in WebKit. */
const LOAD_FACTOR = 3;

/** The tools file, inspected (after every page load: the playground starts on its example). */
async function openTools(driver: Driver, pace: Pace): Promise<void> {
  await driver.chooseFile("#file-input", workFile("tools.py", REAL_TOOLS));
  await untilText(driver, "#tools-status", `Inspected tools.py: ${REAL_TOOL_COUNT} tool(s)`, pace.boot);
}

/** The tool choice, the question, and every check once the run has ended by itself; the receipt and
 *  how it went, in one line. */
async function ask(
  driver: Driver,
  pace: Pace,
  choice: ToolChoice = "required",
  question = REAL_QUESTION,
): Promise<{ receipt: Receipt; summary: string }> {
  await fill(driver, "#tool-choice", choice);
  await untilText(driver, "#session-info", `${REAL_TOOL_COUNT} active tool(s)`);
  // The tool contract is read into the model before the question (chat/warm-start.ts).
  const warm = await untilText(driver, "#chat-warm", /^(Ready: |The model could not read)/, pace.realRun);
  if (!warm.startsWith("Ready: ")) throw new Error(`${driver.name}: the tools were not read ahead: ${warm}`);
  const start = await evaluate(driver, watchPlaygroundStream, null);
  await send(driver, question);
  const seen = await until(driver, "the run with the real model to end", readPlaygroundRun, start, pace.realRun);
  const receipt = await checkRealRun(
    seen,
    await evaluate(driver, readStoredReceipts, null),
    await evaluate(driver, readPlaygroundSchemas, null),
    choice,
  );
  const evaluated = receipt.engine_stats?.first_prompt_tokens_evaluated;
  if (evaluated === undefined || evaluated >= WARM_QUESTION_TOKENS)
    throw new Error(
      `${driver.name}: the first generation evaluated ${evaluated} prompt tokens: the contract read ahead was not reused`,
    );
  return { receipt, summary: `${warm} ${runSummary(receipt)}` };
}

async function loadReal(driver: Driver, pace: Pace, how: { url: string } | { file: string }): Promise<void> {
  await loadModel(driver, pace, how, LOAD_FACTOR * pace.model);
  await untilText(driver, "#engine-select option:checked", `${REAL_MODEL.file} (llama.cpp, CPU)`);
}

async function journey(driver: Driver, pace: Pace, log: (step: string) => void, real: RealModel): Promise<void> {
  const app = await startAppServer(driver, 60 * 60_000);
  const models = await serveRealModel(real.path);
  const url = models.url(REAL_MODEL_PATH);
  try {
    await driver.goto(app.url("/"));
    await bootPlayground(driver, pace);
    await until(
      driver,
      "the service worker to have precached the app",
      () => document.body.dataset.offlineReady === "1",
      null,
      pace.boot,
    );
    await openTools(driver, pace);

    await loadReal(driver, pace, { file: real.path });
    log("the real model from a file: hashed and loaded");
    log(`from a file: ${(await ask(driver, pace)).summary}`);
    expectEqual(models.hits(REAL_MODEL_PATH), 0, "downloads of a model picked as a file");

    // A URL: downloaded once, checked and stored. Its question is asked offline, below, of the
    // stored copy: the same bytes (the receipt's sha256 says so), and one run less at wasm speed.
    // Replacing the file's model unloads it, and its llama.cpp threads with it: no console
    // error in Firefox either (docs/engines.md, "Known faults").
    await noConsoleErrors(driver);
    await loadReal(driver, pace, { url });
    await noConsoleErrors(driver);
    expectEqual(models.hits(REAL_MODEL_PATH), 1, "downloads of the model from a URL");
    await untilText(driver, "#stored-models summary", "Stored models: 1 (98 MB)");
    log("the real model from a URL: downloaded once, stored");

    // The network goes away: the service worker serves the app, the device's store the model.
    await app.close();
    await models.close();
    await driver.reload();
    await bootPlayground(driver, pace);
    await openTools(driver, pace);
    await loadReal(driver, pace, { url });
    log("offline reload: the stored copy loaded");
    log(`from the store, offline: ${(await ask(driver, pace)).summary}`);
    expectEqual(models.hits(REAL_MODEL_PATH), 1, "downloads after the offline reload");
    const auto = await ask(driver, pace, "auto", NO_TOOL_QUESTION);
    log(`tool choice auto, no tool fits: call start ${checkWeighedNoCall(auto.receipt)}; ${auto.summary}`);

    await driver.click("#tab-receipts");
    await driver.click("#receipts-verify");
    await untilText(driver, "#receipts-verdict", "chain OK — 3 receipt(s)");
    log("the three runs' receipts: chain verified");
    await noConsoleErrors(driver);
  } finally {
    await models.close();
    await app.close();
  }
}

export const realModelJourney: Journey = {
  name: "real weights: SmolLM2 in the playground from a file, from a URL, offline from the store",
  skip: () =>
    realModel("smollm2-135m-instruct-q4_1")
      ? undefined
      : "SmolLM2-135M-Instruct is not in .cache/models/ (npm run setup:models)",
  run: (driver, pace, log) => journey(driver, pace, log, realModel("smollm2-135m-instruct-q4_1")!),
};
