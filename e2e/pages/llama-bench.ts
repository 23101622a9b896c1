// The Chromium half of bench/engine.bench.ts, on the bench page: LlamaCppEngine (page → comlink →
// its worker → wllama) against the bare wllama call (Wllama on the page, its own worker) on the
// same generated model, samples interleaved, plus the prompt-cache reuse of a follow-up.
import { Wllama } from "@wllama/wllama";
import wasm from "@wllama/wllama/esm/wasm/wllama.wasm?url&no-inline";
import { createBrowserLlamaBackend } from "../../src/engines/llamacpp/browser/backend.ts";
import { LlamaCppEngine } from "../../src/engines/llamacpp/engine.ts";
import { GRAMMAR, prefixPrompt, promptFor, TOKENS, type GenSample, type PrefixReuse } from "../../bench/engine-core.ts";

async function adapterSample(engine: LlamaCppEngine, i: number): Promise<GenSample> {
  const t = performance.now();
  let first: number | undefined;
  const r = await engine.chat({ messages: promptFor(i), responseFormat: { type: "grammar", grammar: GRAMMAR }, maxTokens: TOKENS + 8, onToken: () => (first ??= performance.now()) });
  const end = performance.now();
  return { ttftMs: (first ?? end) - t, totalMs: end - t, tokens: r.usage?.completionTokens ?? 0 };
}

async function bareSample(w: Wllama, i: number): Promise<GenSample> {
  const t = performance.now();
  let first: number | undefined;
  let tokens = 0;
  await w.createChatCompletion({
    messages: promptFor(i).map((m) => ({ role: m.role as "system" | "user", content: m.content })),
    stream: true,
    onData: (chunk) => {
      if (chunk.choices[0]?.delta?.content) first ??= performance.now();
      if (chunk.timings) tokens = chunk.timings.predicted_n;
    },
    grammar: GRAMMAR,
    temperature: 0,
    max_tokens: TOKENS + 8,
    cache_prompt: true,
  });
  const end = performance.now();
  return { ttftMs: (first ?? end) - t, totalMs: end - t, tokens };
}

export async function llamaEngineBench(modelUrl: string, runs: number): Promise<{ adapter: GenSample[]; bare: GenSample[]; prefix: PrefixReuse; runtime: string }> {
  const engine = new LlamaCppEngine({ backend: createBrowserLlamaBackend({ device: "cpu" }), model: { kind: "url", url: modelUrl } });
  await engine.load();
  const bare = new Wllama({ default: new URL(wasm, location.href).href }, { suppressNativeLog: true });
  await bare.loadModel([await (await fetch(modelUrl)).blob()], { n_ctx: 4096, n_threads: 1, n_parallel: 1, n_gpu_layers: 0 });
  const out = { adapter: [] as GenSample[], bare: [] as GenSample[] };
  await adapterSample(engine, -1); // warm-up: first generations compile the grammar and warm caches
  await bareSample(bare, -1);
  for (let i = 0; i < runs; i++) {
    // Interleaved, alternating which goes first, so machine noise hits both alike.
    if (i % 2) {
      out.bare.push(await bareSample(bare, i));
      out.adapter.push(await adapterSample(engine, i));
    } else {
      out.adapter.push(await adapterSample(engine, i));
      out.bare.push(await bareSample(bare, i));
    }
  }
  const turn1 = prefixPrompt();
  const r1 = await engine.chat({ messages: turn1, responseFormat: { type: "grammar", grammar: 'root ::= "Paris."' } });
  const r2 = await engine.chat({ messages: [...turn1, { role: "assistant", content: r1.text }, { role: "user", content: "And the next one?" }], responseFormat: { type: "grammar", grammar: 'root ::= "Rome."' } });
  const prefix: PrefixReuse = {
    turn1_prompt_tokens: r1.usage!.promptTokens!,
    turn1_evaluated: r1.usage!.promptTokensEvaluated!,
    turn2_prompt_tokens: r2.usage!.promptTokens!,
    turn2_evaluated: r2.usage!.promptTokensEvaluated!,
  };
  const runtime = engine.info().fingerprint?.runtime ?? "";
  await engine.unload();
  await bare.exit();
  return { ...out, prefix, runtime };
}
