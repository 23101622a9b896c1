// What a person feels in a first real session, on real-size shapes of the catalog models (a real
// tokenizer and chat template, the exact dimensions, random weights: test/fixtures/real-shape.ts —
// speed and tokenization, never quality), with public/examples/tools.py's tool contract as the
// system message: time to first token of the first turn (the contract's prefill), the second turn,
// a new conversation in the same tab, decode tokens/s free and guided (the tool-call grammar), and
// the first turn after a reload. In Node (LlamaCppEngine on node-llama-cpp) and in Chromium
// (LlamaCppEngine on wllama, at 1 thread and at every core on a cross-origin-isolated page), each
// against native llama.cpp at the same thread count in the same run: node-llama-cpp's bare API
// (sequence.evaluate on the template's tokens: llama.cpp's own x86 build, no Edge code).
//
//   flock /tmp/edge-bench.lock npm run bench:session -- --json            (two shapes, 3 samples)
//   npm run bench:session -- --quick --json                               (one shape, 1 thread, 1 sample, < 5 min)
//   npm run bench:session -- --shapes qwen2.5-0.5b,qwen3-0.6b,llama-3.2-1b --quant q4_0 --threads 1,2
//
// Prints one JSON array: an entry per environment, shape and thread count (bench/session-core.ts).
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createChatSession } from "../src/chat/session.ts";
import { toolCallResponseFormat } from "../src/engines/grammar.ts";
import { LlamaCppEngine } from "../src/engines/llamacpp/engine.ts";
import { defaultThreads } from "../src/engines/llamacpp/browser/threads.ts";
import { createNodeLlamaBackend } from "../src/engines/llamacpp/node/backend.ts";
import { nodeRuntime, type NlcHistoryItem } from "../src/engines/llamacpp/node/runtime.ts";
import { ScriptedEngine } from "../src/engines/scripted.ts";
import { createNodeRunnerHost, fileSource } from "../src/runner/node.ts";
import { activeSchemas } from "../src/toolset/freeze.ts";
import { startModelServer } from "../test/engines/model-server.ts";
import { realShapeModel, type RealShapeModel, type RealShapeName, type RealShapeQuant } from "../test/fixtures/real-shape.ts";
import { CROSS_ORIGIN_ISOLATION } from "../vite.config.ts";
import { chromiumMissing, startChromiumBench } from "./chromium.ts";
import { QUESTIONS, returningTurn, round, sessionEntry, sessionTurns, type NativeBaseline, type SessionPlan } from "./session-core.ts";

const { values: args } = parseArgs({
  options: { json: { type: "boolean" }, quick: { type: "boolean" }, shapes: { type: "string" }, quant: { type: "string" }, threads: { type: "string" }, "no-chromium": { type: "boolean" } },
});
const QUICK = args.quick === true;
const SHAPES = (args.shapes ?? (QUICK ? "qwen2.5-0.5b" : "qwen2.5-0.5b,qwen3-0.6b")).split(",") as RealShapeName[];
const QUANT = (args.quant ?? "q4_0") as RealShapeQuant;
const CORES = cpus().length;
// --quick: one thread count (1: what a page without cross-origin isolation gets, and Node's default
// for small models), so that it finishes in minutes; the full run adds every core.
const THREADS = args.threads ? args.threads.split(",").map(Number) : QUICK ? [1] : [...new Set([1, CORES])];
const log = (...a: unknown[]): void => {
  if (!args.json) console.error(...a);
};

/** The contract the chat loop sends for public/examples/tools.py, and its guided call format. */
async function examplePlan(): Promise<SessionPlan> {
  const host = createNodeRunnerHost({ spares: 0 });
  try {
    const session = await createChatSession({ engine: new ScriptedEngine([]), host, tools: { kind: "file", source: fileSource("public/examples/tools.py") } });
    if (!session.contract || !session.toolset) throw new Error("the example tools gave no contract");
    return { system: session.contract, guided: toolCallResponseFormat(activeSchemas(session.toolset)), tokens: QUICK ? 16 : 32, samples: QUICK ? 1 : 3 };
  } finally {
    await host.close();
  }
}

/** node-llama-cpp's bare API at `threads`: the first turn's prefill, then free decode. */
async function nativeBaseline(model: RealShapeModel, threads: number, plan: SessionPlan): Promise<NativeBaseline> {
  const rt = await nodeRuntime();
  const llm = await rt.llama.loadModel({ modelPath: model.path, gpuLayers: 0 });
  const context = await llm.createContext({ contextSize: 4096, sequences: 1, threads });
  try {
    const sequence = context.getSequence();
    const wrapper = rt.module.resolveChatWrapper(llm);
    const ttfts: number[] = [];
    const decodes: number[] = [];
    for (let i = 0; i <= plan.samples; i++) {
      const question = i === 0 ? QUESTIONS[0] : `${QUESTIONS[3]} (native ${i})`;
      const history: NlcHistoryItem[] = [{ type: "system", text: plan.system }, { type: "user", text: question }, { type: "model", response: [] }];
      const tokens = wrapper.generateContextState({ chatHistory: history }).contextText.tokenize(llm.tokenizer);
      const last = tokens.pop()!;
      await sequence.adaptStateToTokens(tokens, false);
      const t = performance.now();
      let first: number | undefined;
      let n = 0;
      // Decode speed alone: an end-of-generation token does not stop it (the engines' samples end there).
      for await (const _ of sequence.evaluate([...tokens.slice(sequence.nextTokenIndex), last], { temperature: 0 })) {
        first ??= performance.now();
        if (++n >= plan.tokens) break;
      }
      const end = performance.now();
      if (i === 0) ttfts.push(first! - t);
      else decodes.push(((n - 1) / (end - first!)) * 1000);
    }
    return { threads, decodeTokS: decodes.sort((a, b) => a - b)[Math.floor((decodes.length - 1) / 2)]!, firstTurnTtftMs: ttfts[0]! };
  } finally {
    await context.dispose();
    await llm.dispose();
  }
}

const modelInfo = (m: RealShapeModel) => ({ model: m.name, quant: m.quant, model_sha256: `sha256:${m.sha256}`, model_bytes: m.size, vocab: m.vocabSource });

async function nodeEntry(model: RealShapeModel, threads: number, plan: SessionPlan, native: NativeBaseline): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), "edge-bench-session-"));
  const make = () => new LlamaCppEngine({ backend: createNodeLlamaBackend({ cacheDir: dir }), model: { kind: "file", path: model.path, sha256: model.sha256 }, threads });
  try {
    let engine = make();
    let t = performance.now();
    await engine.load();
    const s = await sessionTurns(engine, plan, performance.now() - t);
    const runtime = engine.info().fingerprint?.runtime ?? "";
    await engine.unload();
    // "Reload": a new process would do exactly this — load the file (hashed again), then the first turn.
    engine = make();
    t = performance.now();
    await engine.load();
    const reloadMs = performance.now() - t;
    const returning = await returningTurn(engine, plan);
    await engine.unload();
    return sessionEntry(
      { ...s, threads },
      {
        env: "node",
        modelShape: model.shape,
        model: modelInfo(model),
        runtime,
        native,
        returning,
        returningPath: "a new process evaluates the contract again (a plain contract has no saved state in Node; an imprint's does, docs/imprint.md)",
        extra: { reload_load_ms: Math.round(reloadMs) },
      },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function chromiumEntries(model: RealShapeModel, plan: SessionPlan, natives: Map<number, NativeBaseline>): Promise<Record<string, unknown>[]> {
  const missing = chromiumMissing();
  if (missing) return [{ env: "chromium", model_shape: model.shape, skipped: missing }];
  const server = await startModelServer(readFileSync(model.path));
  const bench = await startChromiumBench(log, { headers: CROSS_ORIGIN_ISOLATION, maxLifetimeMs: 60 * 60_000 });
  const out: Record<string, unknown>[] = [];
  try {
    const page = await bench.openBenchPage();
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const chosen = defaultThreads({ cores, isolated: true, modelBytes: model.size });
    for (const threads of THREADS) {
      const m = { url: server.url("/model.gguf"), sha256: model.sha256, threads };
      log(`chromium ${model.shape}: ${threads} thread(s)…`);
      const s = await page.evaluate(([mm, p]) => window.__bench!.llamaSession(mm, p), [m, plan] as const);
      // The reload: the page goes away with its worker and llama.cpp; the model stays in the store.
      await page.reload();
      await page.waitForFunction(() => window.__bench !== undefined, null, { timeout: 60_000 });
      // --quick: the reload and the model's load from the store, not the turn after it — in
      // Chromium it repeats the first turn's whole prefill (the full run measures it).
      const returningPlan = QUICK ? { ...plan, skipReturningTurn: "--quick measures the reload and the model's load only; this turn repeats the first turn's full contract prefill (run without --quick to measure it)" } : plan;
      const returning = await page.evaluate(([mm, p]) => window.__bench!.llamaReturning(mm, p), [m, returningPlan] as const);
      out.push(
        sessionEntry(s, {
          env: "chromium",
          modelShape: model.shape,
          model: modelInfo(model),
          runtime: s.runtime,
          native: natives.get(threads)!,
          returning,
          returningPath: "after a reload the contract is evaluated again: wllama 3.13 can neither save nor restore llama.cpp's KV state (docs/engines.md, \"A returning visitor\")",
          extra: { browser: `Chromium ${bench.version}`, cross_origin_isolated: s.isolated, reload_load_ms: Math.round(returning.loadMs), default_threads: chosen },
        }),
      );
      log(`chromium ${model.shape} at ${threads} thread(s) (load ${load().join(" ")}): ${JSON.stringify(out.at(-1))}`);
    }
  } finally {
    await bench.close();
    await server.close();
  }
  thresholdDefault(out);
  return out;
}

/** The thread default chosen by measurement: never worse than the best explicit setting by > 10 %. */
function thresholdDefault(entries: Record<string, unknown>[]): void {
  const decode = (e: Record<string, unknown>) => e.decode_tok_s_free as number;
  const best = Math.max(...entries.map(decode));
  for (const e of entries) {
    if (e.threads !== e.default_threads) continue;
    const ratio = decode(e) / best;
    const goals = e.goals as Record<string, unknown>;
    goals.default_threads = ratio >= 0.9 ? { met: true } : { met: false, reason: `the default (${e.threads} threads) decodes at ${round(ratio)}× the best explicit setting (goal ≥ 0.9×)` };
  }
}

const load = () => loadavg().map((n) => round(n));
const started = load();
const plan = await examplePlan();
log(`contract: ${plan.system.length} characters; shapes ${SHAPES.join(", ")} (${QUANT}); threads ${THREADS.join(", ")}`);
const results: Record<string, unknown>[] = [];
for (const shape of SHAPES) {
  const model = realShapeModel({ shape, quant: QUANT });
  log(`${shape}: ${model.path} (${Math.round(model.size / 1e6)} MB)`);
  const natives = new Map<number, NativeBaseline>();
  for (const threads of THREADS) {
    natives.set(threads, await nativeBaseline(model, threads, plan));
    log(`${shape}: native llama.cpp at ${threads} thread(s): ${JSON.stringify(natives.get(threads))} (load ${load().join(" ")})`);
  }
  for (const threads of THREADS) {
    results.push(await nodeEntry(model, threads, plan, natives.get(threads)!));
    log(`${shape}: node at ${threads} thread(s) (load ${load().join(" ")}): ${JSON.stringify(results.at(-1))}`);
  }
  if (!args["no-chromium"]) results.push(...(await chromiumEntries(model, plan, natives)));
}
for (const r of results) r.load_avg = { start: started, end: load() };
console.log(JSON.stringify(results, null, args.json ? 0 : 2));
