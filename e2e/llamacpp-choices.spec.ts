// Engine.scoreChoices in Chromium on real weights: wllama's top log-probabilities (llama.cpp's server
// core in WebAssembly) against node-llama-cpp's logits in Node, for the same model file and the same
// conversations — the two signals a checked turn weighs (src/chat/weighing.ts): how likely a free
// reply starts a call, and "yes" against "no" to the check. SmolLM2-135M-Instruct, pinned by
// models/real-models.json.
import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures.ts";
import { renderCallCheck, renderToolContract } from "../src/chat/contract.ts";
import type { ChatMessage, ChoiceRequest, ChoiceScores } from "../src/engines/engine.ts";
import { CALL_START, NO, YES } from "../src/chat/weighing.ts";
import { createNodeLlamaCppEngine } from "../src/engines/llamacpp/node/index.ts";
import { startModelServer, type ModelServer } from "../test/engines/model-server.ts";
import { PARIS_CALL, WEATHER } from "../test/fixtures/weather-tool.ts";
import { realModel } from "../test/real-models.ts";

const PAGE = "/e2e/pages/llamacpp.html";
const SYSTEM: ChatMessage = { role: "system", content: renderToolContract([WEATHER]) };
const ASKED = ["What is the weather in Paris?", "Hi! Who are you?", ""];
const CHECKS: ChoiceRequest[] = ASKED.map((request) => ({
  messages: [
    SYSTEM,
    { role: "user", content: request || "Hello." },
    { role: "assistant", content: PARIS_CALL },
    { role: "user", content: renderCallCheck(request, false, WEATHER) },
  ],
  choices: [YES, NO],
}));
const STARTS: ChoiceRequest[] = ASKED.slice(0, 2).map((request) => ({
  messages: [SYSTEM, { role: "user", content: request }],
  choices: [CALL_START],
}));

// Undefined when setup:models has not run (the test is skipped); under EDGE_REQUIRE_REAL_MODELS=1 (CI) it throws.
const real = realModel("smollm2-135m-instruct-q4_1");
let server: ModelServer;

test.beforeAll(async () => {
  if (real) server = await startModelServer(readFileSync(real.path));
});
test.afterAll(() => server?.close());

/** WebAssembly's kernels and the native AVX-512 ones round differently: log-odds and
 *  log-probabilities differed by up to 0.26 here (docs/engines.md, "Weighing answers"). */
const ROUNDING = 0.4;

test("wllama weighs the check's answers and a call's start as llama.cpp in Node does, on the same real model", async ({
  page,
}) => {
  test.skip(!real, "needs npm run setup:models");
  // SmolLM2 loads twice (Node, then wllama on one thread) and wllama evaluates five ~200-token
  // prompts at ~13 tok/s: 1.3 min alone here, 2.2 min under the full suite's load.
  test.setTimeout(900_000);
  const node = createNodeLlamaCppEngine({ model: { kind: "file", path: real!.path }, threads: 1 });
  await node.load();
  const expected: ChoiceScores[] = [];
  try {
    for (const r of [...CHECKS, ...STARTS]) expected.push(await node.scoreChoices!(r));
  } finally {
    await node.unload();
  }
  await page.goto(PAGE);
  await expect(page.locator("#status")).toHaveText("ready", { timeout: 60_000 });
  const got = await page.evaluate(([u, r]) => window.__llama!.choiceScores(u, r), [
    server.url("/model.gguf"),
    [...CHECKS, ...STARTS],
  ] as const);
  expect(got).toHaveLength(CHECKS.length + STARTS.length);
  CHECKS.forEach((_, i) => {
    const [yes, no] = got[i]!.logProbs;
    const [nodeYes, nodeNo] = expected[i]!.logProbs;
    expect(Number.isFinite(yes! - no!), `check ${i}: ${JSON.stringify(got[i])}`).toBe(true);
    expect(Math.abs(yes! - no! - (nodeYes! - nodeNo!)), `check ${i}`).toBeLessThan(ROUNDING);
  });
  STARTS.forEach((_, k) => {
    const i = CHECKS.length + k;
    const [start] = got[i]!.logProbs;
    const [nodeStart] = expected[i]!.logProbs;
    expect(expected[i]!.floor).toBe(-Infinity);
    if (start === -Infinity) {
      // Not among wllama's top tokens: Node must find it below the least of them.
      expect(got[i]!.floor, `start ${k}`).toBeGreaterThan(-Infinity);
      expect(nodeStart!, `start ${k}`).toBeLessThan(got[i]!.floor + ROUNDING);
    } else expect(Math.abs(start! - nodeStart!), `start ${k}`).toBeLessThan(ROUNDING);
  });
});
