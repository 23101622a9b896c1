// Weighed checks on real weights (src/chat/model-turn.ts, src/chat/weighing.ts, Engine.scoreChoices):
// node-llama-cpp's logits of "yes" and "no" pick what greedy decoding under the check's yes|no
// grammar writes, and a checked turn on a model with a measured calibration records its weighed
// score against the threshold and goes ahead exactly when the score is above it. What the model
// decides is never asserted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCalibration } from "../src/chat/check-calibration.ts";
import { renderCallCheck } from "../src/chat/contract.ts";
import { checkedTurn } from "../src/chat/model-turn.ts";
import { callStartScore } from "../src/chat/weighing.ts";
import type { ChatMessage } from "../src/engines/engine.ts";
import { checkResponseFormat } from "../src/engines/grammar.ts";
import type { LlamaCppEngine } from "../src/engines/llamacpp/engine.ts";
import { createNodeLlamaCppEngine } from "../src/engines/llamacpp/node/index.ts";
import { PARIS_CALL, WEATHER } from "./fixtures/weather-tool.ts";
import { realModel, type RealModelId } from "./real-models.ts";

const SYSTEM =
  'Tools: get_weather(city: str) — Current weather for a city. Reply with {"tool_name": …, "arguments": {…}} to call one.';
const REQUESTS = ["What is the weather in Paris?", "Hi! Who are you?", "Tell me a joke about cats.", ""];
const checkOf = (request: string): ChatMessage[] => [
  { role: "system", content: SYSTEM },
  { role: "user", content: request || "Hello." },
  { role: "assistant", content: PARIS_CALL },
  { role: "user", content: renderCallCheck(request, false, WEATHER) },
];

for (const id of ["smollm2-135m-instruct-q4_1", "qwen2.5-coder-0.5b-instruct-q4_k_m"] as RealModelId[]) {
  // Undefined when setup:models has not run (skipped); under EDGE_REQUIRE_REAL_MODELS=1 (CI) it throws.
  const real = realModel(id);
  describe.skipIf(!real)(`the weighed check on ${id} (real weights)`, () => {
    let engine: LlamaCppEngine;
    beforeAll(async () => {
      engine = createNodeLlamaCppEngine({ model: { kind: "file", path: real!.path }, threads: 1, contextSize: 2048 });
      await engine.load();
    }, 120_000);
    afterAll(() => engine?.unload());

    it("a choice's log-probability is its own, whichever other choices are asked with it", async () => {
      const spellings = ["Yes", "No", '{"', "The"];
      // Each request below then evaluates only the prompt's last token, from the same cached prefix.
      await engine.scoreChoices!({ messages: checkOf(REQUESTS[0]!), choices: [["Yes"]] });
      const together = (
        await engine.scoreChoices!({ messages: checkOf(REQUESTS[0]!), choices: spellings.map((s) => [s]) })
      ).logProbs;
      for (const [i, s] of spellings.entries()) {
        const [alone] = (await engine.scoreChoices!({ messages: checkOf(REQUESTS[0]!), choices: [[s]] })).logProbs;
        expect(alone!, s).toBeLessThan(0);
        expect(alone!, s).toBeCloseTo(together[i]!, 5);
      }
      expect(together.reduce((sum, lp) => sum + Math.exp(lp), 0)).toBeLessThanOrEqual(1);
      expect(new Set(together.map((lp) => lp.toFixed(1))).size).toBe(spellings.length);
    }, 120_000);

    it("the logits of yes and no pick the word greedy decoding under the yes|no grammar writes", async () => {
      for (const request of REQUESTS) {
        const messages = checkOf(request);
        const [yes, no] = (await engine.scoreChoices!({ messages, choices: [["yes"], ["no"]] })).logProbs;
        expect(Number.isFinite(yes! - no!)).toBe(true);
        const written = await engine.chat({ messages, maxTokens: 2, responseFormat: checkResponseFormat() });
        expect(written.text.trim(), `${request}: yes ${yes}, no ${no}`).toBe(yes! > no! ? "yes" : "no");
      }
    }, 300_000);

    it("a checked turn records its weighed score against the model's threshold, and goes ahead exactly when it is above", async () => {
      const calibration = checkCalibration(engine.info().fingerprint?.sha256);
      let weighed = 0;
      for (const request of REQUESTS.slice(0, 2)) {
        const messages: ChatMessage[] = [
          { role: "system", content: SYSTEM },
          { role: "user", content: request },
        ];
        const turn = await checkedTurn({
          engine,
          messages,
          prompt: request,
          schemas: [WEATHER],
          kind: "checked",
          ranCalls: [],
          maxTokens: 48,
        });
        if (calibration?.signal === "call_start") {
          // Weighed before any proposal: no call unless the reply was likely enough to start one.
          const score = await callStartScore(engine, messages, calibration.threshold, undefined);
          const gated = score! <= calibration.threshold;
          expect(turn.check?.verdict === "no_call", `${request}: ${score}`).toBe(gated);
          if (gated)
            expect(turn.check).toEqual({ tool_name: "", verdict: "no_call", score, threshold: calibration.threshold });
          weighed++;
          continue;
        }
        if (turn.check?.verdict !== "yes" && turn.check?.verdict !== "no") continue; // a cut-off proposal
        if (calibration === undefined) {
          expect(turn.check.score).toBeUndefined();
          continue;
        }
        const { threshold } = calibration;
        expect(turn.check).toMatchObject({ tool_name: "get_weather", threshold });
        expect(turn.check.verdict).toBe(turn.check.score! > threshold ? "yes" : "no");
        expect(turn.answerOnly).toBe(turn.check.verdict === "no");
        weighed++;
      }
      if (calibration !== undefined) expect(weighed).toBeGreaterThan(0);
    }, 300_000);
  });
}
