// The llama.cpp engine ends a prose reply caught in a loop (src/engines/repetition.ts), with a
// backend that writes what it is given piece by piece until it is aborted.
import { describe, expect, it } from "vitest";
import type { ResponseFormat } from "../engine.ts";
import { textAnswerResponseFormat, toolCallResponseFormat } from "../grammar.ts";
import type { LlamaBackend, LoadedModel } from "./backend.ts";
import { LlamaCppEngine } from "./engine.ts";

/** Writes `pieces`, one per step, and stops early when aborted (as both real backends do). */
function backend(pieces: readonly string[]): LlamaBackend {
  const loaded: LoadedModel = {
    model: {
      id: "loop-test",
      sha256: `sha256:${"0".repeat(64)}`,
      size: 1,
      summary: {
        version: 3,
        architecture: "llama",
        name: null,
        finetune: null,
        contextLength: 4096,
        hasChatTemplate: true,
        tensorCount: 0,
        expectedSize: null,
      },
    },
    runtime: "fake",
    device: "CPU",
    contextWindow: 4096,
    async generate(_request, onText, signal) {
      let text = "";
      let n = 0;
      for (const piece of pieces) {
        if (signal.aborted) break;
        await Promise.resolve();
        text += piece;
        n++;
        onText(piece);
      }
      const finishReason = n === pieces.length && !signal.aborted ? "length" : "stop";
      const times = { timeToFirstTokenMs: 1, promptMs: 1, decodeMs: 1 };
      return { text, finishReason, promptTokens: 10, promptTokensEvaluated: 10, completionTokens: n, ...times };
    },
    unload: async () => undefined,
  };
  return { load: async () => loaded };
}

const LOOP = ["Hello! ", ...Array.from({ length: 40 }, () => "She was a cat. ")];

async function reply(format: ResponseFormat | undefined, signal?: AbortSignal) {
  const engine = new LlamaCppEngine({ backend: backend(LOOP), model: { kind: "file", path: "/loop.gguf" } });
  await engine.load();
  const streamed: string[] = [];
  const r = await engine.chat({
    messages: [{ role: "user", content: "Tell me about the cat." }],
    ...(format ? { responseFormat: format } : {}),
    onToken: (d) => streamed.push(d),
    ...(signal ? { signal } : {}),
  });
  return { r, streamed };
}

describe("a prose reply caught in a loop", () => {
  it("ends once its tail is one span repeated (a plain reply, an answer-only turn's), as a reply the model stopped", async () => {
    for (const format of [undefined, { type: "text" } as const, textAnswerResponseFormat()]) {
      const { r, streamed } = await reply(format);
      // " She was a cat." is 15 characters: four copies make the 48 a loop takes.
      expect(r.text).toBe(`Hello! ${"She was a cat. ".repeat(4)}`);
      expect(r).toMatchObject({ finishReason: "stop", usage: { completionTokens: 5 } });
      expect(streamed.join("")).toBe(r.text);
    }
  });

  it("a call under its grammar is never cut short for repeating itself; the caller's abort stays an abort", async () => {
    const call = toolCallResponseFormat([
      { name: "note", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
    ]);
    const { r } = await reply(call);
    expect(r).toMatchObject({ finishReason: "length", text: LOOP.join("") });

    const aborted = new AbortController();
    aborted.abort();
    await expect(reply(undefined, aborted.signal)).rejects.toMatchObject({ code: "aborted" });
  });
});
