// The llama.cpp engine's own cost: tokens/s and time to first token through LlamaCppEngine vs the
// bare runtime call in the same run — node-llama-cpp in Node, wllama in Chromium — on the
// generated test model (random weights: speed of the plumbing, not of a real model), samples
// interleaved; and the prompt tokens a follow-up evaluates against the first turn (prefix reuse).
//   npm run bench:engine -- --json
// Prints one JSON array: the "node" entry, then the "chromium" entry (e2e/pages/llama-bench.ts).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeLlamaBackend } from "../src/engines/llamacpp/node/backend.ts";
import { llamaBinding, type NlcHistoryItem } from "../src/engines/llamacpp/node/binding.ts";
import { LlamaCppEngine } from "../src/engines/llamacpp/engine.ts";
import { buildTestModel, writeTestModel } from "../test/fixtures/gguf.ts";
import { startModelServer } from "../test/engines/model-server.ts";
import { chromiumMissing, startChromiumBench, type ChromiumBench } from "./chromium.ts";
import {
  adapterSample,
  engineEntry,
  GRAMMAR,
  prefixReuse,
  promptFor,
  SYSTEM,
  TOKENS,
  type GenSample,
} from "./engine-core.ts";

const JSON_ONLY = process.argv.includes("--json");
const RUNS = 9;
const log = (...a: unknown[]): void => {
  if (!JSON_ONLY) console.error(...a);
};
const model = writeTestModel();
const modelInfo = {
  model: "generated test model (test/fixtures/gguf.ts: llama, 2 blocks, n_embd 64, random weights)",
  model_sha256: `sha256:${model.sha256}`,
  model_bytes: model.size,
};

/** Node: LlamaCppEngine vs node-llama-cpp used directly (same template, prefix reuse and grammar). */
async function measureNode(): Promise<Record<string, unknown>> {
  let rt: Awaited<ReturnType<typeof llamaBinding>>;
  try {
    rt = await llamaBinding();
  } catch (e) {
    return { env: "node", skipped: (e as Error).message };
  }
  const dir = await mkdtemp(join(tmpdir(), "edge-bench-engine-"));
  const engine = new LlamaCppEngine({
    backend: createNodeLlamaBackend({ cacheDir: dir }),
    model: { kind: "file", path: model.path },
    threads: 1,
  });
  try {
    await engine.load();
    const llm = await rt.llama.loadModel({ modelPath: model.path, gpuLayers: 0 });
    const context = await llm.createContext({ contextSize: 4096, sequences: 1, threads: 1 });
    const sequence = context.getSequence();
    const wrapper = rt.module.resolveChatWrapper(llm);
    const grammar = await rt.llama.createGrammar({ grammar: GRAMMAR });
    const bare = async (i: number): Promise<GenSample> => {
      const t = performance.now();
      const history: NlcHistoryItem[] = [
        { type: "system", text: SYSTEM },
        { type: "user", text: promptFor(i)[1]!.content },
        { type: "model", response: [] },
      ];
      const tokens = wrapper.generateContextState({ chatHistory: history }).contextText.tokenize(llm.tokenizer);
      const last = tokens.pop()!;
      await sequence.adaptStateToTokens(tokens, false);
      const state = new rt.module.LlamaGrammarEvaluationState({ model: llm, grammar });
      let first: number | undefined;
      let n = 0;
      let text = "";
      for await (const token of sequence.evaluate([...tokens.slice(sequence.nextTokenIndex), last], {
        temperature: 0,
        grammarEvaluationState: state,
      })) {
        first ??= performance.now();
        if (llm.isEogToken(token)) break;
        text += llm.detokenize([token]);
        if (++n >= TOKENS + 8) break;
      }
      const end = performance.now();
      if (text.length === 0) throw new Error("the bare generation produced nothing");
      return { ttftMs: (first ?? end) - t, totalMs: end - t, tokens: n };
    };
    const adapter: GenSample[] = [];
    const bareSamples: GenSample[] = [];
    await adapterSample(engine, -1);
    await bare(-1);
    for (let i = 0; i < RUNS; i++) {
      if (i % 2) {
        bareSamples.push(await bare(i));
        adapter.push(await adapterSample(engine, i));
      } else {
        adapter.push(await adapterSample(engine, i));
        bareSamples.push(await bare(i));
      }
    }
    const prefix = await prefixReuse(engine);
    await context.dispose();
    await llm.dispose();
    return engineEntry("node", adapter, bareSamples, prefix, { ...modelInfo, runtime: rt.name, threads: 1 });
  } finally {
    await engine.unload().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

/** Chromium: the same on the bench page, the model served from a local server (CORS). */
async function measureChromium(): Promise<Record<string, unknown>> {
  const missing = chromiumMissing();
  if (missing) return { env: "chromium", skipped: missing };
  let bench: ChromiumBench | undefined;
  const server = await startModelServer(buildTestModel());
  try {
    bench = await startChromiumBench(log);
    const page = await bench.openBenchPage();
    const r = await page.evaluate(([url, runs]) => window.__bench!.llamaEngineBench(url, runs), [
      server.url("/model.gguf"),
      RUNS,
    ] as const);
    return engineEntry("chromium", r.adapter, r.bare, r.prefix, {
      ...modelInfo,
      runtime: r.runtime,
      threads: 1,
      browser: `Chromium ${bench.version}`,
    });
  } catch (err) {
    process.exitCode = 1;
    return { env: "chromium", error: err instanceof Error ? err.message : String(err) };
  } finally {
    await bench?.close();
    await server.close();
  }
}

const result = [await measureNode(), await measureChromium()];
console.log(JSON.stringify(result, null, JSON_ONLY ? 0 : 2));
