// The Chromium half of bench/engine.bench.ts, on the bench page: LlamaCppEngine (the bytes from
// its worker, then wllama on the page) against the bare wllama call (Wllama on the page, its own
// worker) on the same generated model, samples interleaved, plus the prompt-cache reuse of a
// follow-up.
import { Wllama } from "@wllama/wllama";
import { createBrowserLlamaBackend } from "../../src/engines/llamacpp/browser/backend.ts";
import { WLLAMA_ASSETS } from "../../src/engines/llamacpp/browser/page-assets.ts";
import { LlamaCppEngine } from "../../src/engines/llamacpp/engine.ts";
import {
  adapterSample,
  GRAMMAR,
  prefixReuse,
  promptFor,
  TOKENS,
  type GenSample,
  type PrefixReuse,
} from "../../bench/engine-core.ts";

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

export async function llamaEngineBench(
  modelUrl: string,
  runs: number,
): Promise<{ adapter: GenSample[]; bare: GenSample[]; prefix: PrefixReuse; runtime: string }> {
  const engine = new LlamaCppEngine({
    backend: createBrowserLlamaBackend({ device: "cpu" }),
    model: { kind: "url", url: modelUrl },
  });
  await engine.load();
  const bare = new Wllama({ default: WLLAMA_ASSETS.wasm }, { suppressNativeLog: true });
  await bare.loadModel([await (await fetch(modelUrl)).blob()], {
    n_ctx: 4096,
    n_threads: 1,
    n_parallel: 1,
    n_gpu_layers: 0,
  });
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
  const prefix = await prefixReuse(engine);
  const runtime = engine.info().fingerprint?.runtime ?? "";
  await engine.unload();
  await bare.exit();
  return { ...out, prefix, runtime };
}
