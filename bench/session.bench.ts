// What a person feels in a first real session, with public/examples/tools.py's tool contract as the
// system message: time to the first token of the first turn asked right after the model loaded
// (cold: the contract's prefill), and asked once the conversation start was warmed (warm:
// Engine.warmPrefix with the system message, what the app runs in the background once a model is
// loaded, and how long that warm took); the second turn; a new conversation in the same tab; decode
// tokens/s free and guided (the tool-call grammar); after a reload, the model's load from the
// device's store and the returning visitor's first turn. In Node (LlamaCppEngine on
// node-llama-cpp) and in the browsers (LlamaCppEngine on wllama, the page served cross-origin
// isolated: Chromium at 1 thread and at every core; Firefox ESR and WebKitGTK at the thread count
// the worker picks, bench/session-browsers.ts), each against native llama.cpp at the same thread
// count in the same run, measured just before it: node-llama-cpp's bare API (sequence.evaluate on
// the same template's tokens, free and under the same grammar: llama.cpp's own x86 build, no Edge code).
//
// Subjects (bench/session-subjects.ts): real models — trained weights from PyPI, SmolLM2-135M-Instruct
// Q4_1 (the planned CPU default: the first-turn goals are its) and Qwen2.5-Coder-0.5B-Instruct
// "Q4_K_M", and SmolLM2's weights rewritten as Q8_0 (Chromium and Node) — and, when asked for,
// random-weight stand-ins: random twins (the real file with random weights in its own quant types)
// and real shapes (a real tokenizer at a catalog model's dimensions, random Q4_0 weights). A random
// subject that stands for a real model is compared with it per environment and thread count: do
// random weights distort the wasm/native ratio?
//
//   flock /tmp/edge-cpu.lock npm run bench:session -- --json
//     SmolLM2 and Qwen2.5-Coder-0.5B in Node and Chromium at 1 thread and every core, and in Firefox
//     and WebKit; SmolLM2 as Q8_0 in Node and Chromium; 3 samples per kind (about an hour here)
//   flock /tmp/edge-cpu.lock npm run bench:session -- --quick --json
//     SmolLM2 real and its random twin, Node and Chromium, 1 thread, 1 sample (minutes)
//   npm run bench:session -- --models smollm2-135m-instruct-q4_1 --twins smollm2-135m-instruct-q4_1 --requantized none \
//       --shapes qwen2.5-0.5b --quant q4_0 --threads 1,2 --browsers chromium,firefox --samples 2
//     any subset ("none" for an empty list)
//
// Prints one JSON array: an entry per environment, subject and thread count (bench/session-core.ts),
// then one "threads" comparison per environment and subject measured at several thread counts, one
// "random_vs_real_weights" comparison per random subject that stands for a real one, and last the
// "first_turn" summary (the first-turn numbers and goals, one row per entry). Every number from a random
// subject is marked `weights: "random"`: speed, never quality.
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { SessionModel } from "../e2e/pages/session-bench.ts";
import type { PromptMessage } from "../src/engines/llamacpp/backend.ts";
import { chatTemplateRenderer } from "../src/engines/llamacpp/chat-template.ts";
import { gbnfForResponseFormat } from "../src/engines/llamacpp/format.ts";
import { LlamaCppEngine } from "../src/engines/llamacpp/engine.ts";
import { defaultThreads } from "../src/engines/llamacpp/browser/threads.ts";
import { createNodeLlamaBackend } from "../src/engines/llamacpp/node/backend.ts";
import {
  llamaBinding,
  type NlcHistoryItem,
  type NlcModel,
  type LlamaBinding,
  type Token,
} from "../src/engines/llamacpp/node/binding.ts";
import { startModelServer, type ModelServer } from "../test/engines/model-server.ts";
import type { RealModelId } from "../test/real-models.ts";
import type { RealShapeName, RealShapeQuant } from "../test/fixtures/real-shape.ts";
import { CROSS_ORIGIN_ISOLATION } from "../vite.config.ts";
import { serveBenchPage, type ServedBenchPage } from "./chromium.ts";
import { examplePlan } from "./session-plan.ts";
import { BROWSER_ENVS, browserMissing, openBenchTab, type BrowserEnv } from "./session-browsers.ts";
import {
  afterReload,
  DEFAULT_CPU_MODEL,
  firstTurnSummary,
  QUESTIONS,
  round,
  sessionEntry,
  sessionTurns,
  threadComparisons,
  weightComparisons,
  type EntryContext,
  type NativeBaseline,
  type SessionPlan,
} from "./session-core.ts";
import { realSubject, requantizedSubject, shapeSubject, twinSubject, type Subject } from "./session-subjects.ts";

const { values: args } = parseArgs({
  options: {
    json: { type: "boolean" },
    quick: { type: "boolean" },
    models: { type: "string" },
    twins: { type: "string" },
    requantized: { type: "string" },
    shapes: { type: "string" },
    quant: { type: "string" },
    threads: { type: "string" },
    browsers: { type: "string" },
    samples: { type: "string" },
  },
});
const QUICK = args.quick === true;
const SMOLLM2 = DEFAULT_CPU_MODEL satisfies RealModelId;
const QWEN: RealModelId = "qwen2.5-coder-0.5b-instruct-q4_k_m";
/** A comma list; "none" for an empty one. */
const list = (value: string | undefined, fallback: string): string[] =>
  (value ?? fallback).split(",").filter((x) => x && x !== "none");
// --quick: SmolLM2 (real, the smallest) and its random twin at one thread in Node and Chromium, so
// that the whole path (and the random-weights comparison) is checked in minutes; the full run adds
// Qwen2.5-Coder-0.5B, SmolLM2 as Q8_0, every core, Firefox and WebKit. Random stand-ins only when
// asked for (--twins, --shapes). Gemma 3 270M is a base model without a chat template: a
// tool-contract session is not what it is for (--models can still name it).
const MODELS = list(args.models, QUICK ? SMOLLM2 : `${SMOLLM2},${QWEN}`) as RealModelId[];
const TWINS = list(args.twins, QUICK ? SMOLLM2 : "none") as RealModelId[];
const SHAPES = list(args.shapes, "none") as RealShapeName[];
// SmolLM2's file is Q4_1, whose dot product wllama's wasm runs without SIMD: the full run adds the
// same weights as Q8_0 (docs/engines.md, "Benchmark of a real session").
const REQUANTIZED = list(args.requantized, QUICK ? "none" : SMOLLM2) as RealModelId[];
const QUANT = (args.quant ?? "q4_0") as RealShapeQuant;
const BROWSERS = list(args.browsers, QUICK ? "chromium" : BROWSER_ENVS.join(",")) as BrowserEnv[];
for (const b of BROWSERS)
  if (!BROWSER_ENVS.includes(b)) throw new Error(`--browsers: ${b} is not one of ${BROWSER_ENVS.join(", ")}`);
const CORES = cpus().length;
// --quick: one thread count (1: what a page without cross-origin isolation gets, and Node's default
// for small models), so that it finishes in minutes; the full run adds every core. Firefox and
// WebKit run at the count the worker picks for the page (browser/threads.ts).
const THREADS = args.threads ? args.threads.split(",").map(Number) : QUICK ? [1] : [...new Set([1, CORES])];
const SAMPLES = Number(args.samples ?? (QUICK ? 1 : 3));
const log = (...a: unknown[]): void => {
  if (!args.json) console.error(...a);
};
const load = () => loadavg().map((n) => round(n));
const load1 = () => round(loadavg()[0]!);

/** The prompt's tokens as Edge's Node backend builds them: the model's own template (Jinja) with its
 *  markers as special tokens, else node-llama-cpp's wrapper. */
function nativePrompt(rt: LlamaBinding, llm: NlcModel): (messages: PromptMessage[]) => Token[] {
  const template = chatTemplateRenderer(llm.fileInfo.metadata.tokenizer?.chat_template, {
    bos: llm.tokens.bosString,
    eos: llm.tokens.eosString,
  });
  const wrapper = rt.module.resolveChatWrapper(llm);
  return (messages) => {
    if (template) return llm.tokenize(template.render(messages), true);
    const history: NlcHistoryItem[] = [
      ...messages.map(
        (m): NlcHistoryItem =>
          m.role === "system" ? { type: "system", text: m.content } : { type: "user", text: m.content },
      ),
      { type: "model", response: [] },
    ];
    return wrapper.generateContextState({ chatHistory: history }).contextText.tokenize(llm.tokenizer);
  };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** node-llama-cpp's bare API at `threads`: the first turn's prefill, then decode free and under the
 *  tool-call grammar (new conversations sharing the contract, as the engines' samples are). */
async function nativeBaseline(subject: Subject, threads: number, plan: SessionPlan): Promise<NativeBaseline> {
  const rt = await llamaBinding();
  const llm = await rt.llama.loadModel({ modelPath: subject.path, gpuLayers: 0 });
  const context = await llm.createContext({ contextSize: 4096, sequences: 1, threads });
  try {
    const sequence = context.getSequence();
    const prompt = nativePrompt(rt, llm);
    const grammar = await rt.llama.createGrammar({ grammar: gbnfForResponseFormat(plan.guided)! });
    const run = async (question: string, guided: boolean) => {
      const tokens = prompt([
        { role: "system", content: plan.system },
        { role: "user", content: question },
      ]);
      const last = tokens.pop()!;
      await sequence.adaptStateToTokens(tokens, false);
      const input = [...tokens.slice(sequence.nextTokenIndex), last];
      const options = {
        temperature: 0,
        ...(guided
          ? { grammarEvaluationState: new rt.module.LlamaGrammarEvaluationState({ model: llm, grammar }) }
          : {}),
      };
      const t = performance.now();
      let first: number | undefined;
      let n = 0;
      // Until the end of the turn (not counted) or the sample's length, as the engines decode.
      for await (const token of sequence.evaluate(input, options)) {
        first ??= performance.now();
        if (llm.isEogToken(token) || ++n >= plan.tokens) break;
      }
      const end = performance.now();
      // Decode speed after the first token, from samples of at least 4 tokens (as the engines' samples).
      return {
        promptTokens: tokens.length + 1,
        ttftMs: first! - t,
        decodeTokS: n >= 4 ? ((n - 1) / (end - first!)) * 1000 : undefined,
      };
    };
    // The first turn from an empty context, repeated (it is the anchor of every prefill ratio and
    // costs native well under a second): the median.
    const firsts: { promptTokens: number; ttftMs: number }[] = [];
    for (let i = 0; i < Math.max(3, plan.samples); i++) {
      await sequence.clearHistory();
      firsts.push(await run(QUESTIONS[0], false));
    }
    const firstTurn = { promptTokens: firsts[0]!.promptTokens, ttftMs: median(firsts.map((f) => f.ttftMs)) };
    const free: number[] = [];
    const guided: number[] = [];
    for (let i = 0; i < plan.samples; i++) {
      // Alternate the order so machine noise hits both kinds alike.
      for (const g of i % 2 ? [true, false] : [false, true]) {
        const r = await run(`${QUESTIONS[3]} (${g ? "guided" : "free"} ${i})`, g);
        if (r.decodeTokS !== undefined) (g ? guided : free).push(r.decodeTokS);
      }
    }
    return {
      threads,
      promptTokens: firstTurn.promptTokens,
      firstTurnTtftMs: firstTurn.ttftMs,
      decodeTokS: median(free),
      decodeTokSGuided: median(guided),
      loadAvg1m: load1(),
    };
  } finally {
    await context.dispose();
    await llm.dispose();
  }
}

const NODE_RETURNING =
  "a new engine evaluates the contract again: this bench attaches no saved start (edge chat --model restores the contract's saved state: docs/engines.md, \"Saved conversation starts across runs\"; an imprint's too, docs/imprint.md)";
const BROWSER_RETURNING =
  'after a reload the contract is evaluated again: wllama 3.13 can neither save nor restore llama.cpp\'s KV state (docs/engines.md, "A returning visitor")';
const QUICK_SKIPS_RETURNING =
  "--quick measures the reload and the model's load only; this turn repeats the first turn's full contract prefill (run without --quick to measure it)";

type Fields = Pick<EntryContext, "subject" | "weights" | "model">;
const fieldsOf = (subject: Subject): Fields => ({
  subject: subject.name,
  weights: subject.weights,
  model: subject.info,
});

async function nodeEntry(
  subject: Subject,
  threads: number,
  plan: SessionPlan,
  native: NativeBaseline,
): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), "edge-bench-session-"));
  /** A loaded engine, as a new process has it: the file loaded (hashed again), an empty prompt cache. */
  const loaded = async () => {
    const engine = new LlamaCppEngine({
      backend: createNodeLlamaBackend({ cacheDir: dir }),
      model: { kind: "file", path: subject.path, sha256: subject.sha256 },
      threads,
    });
    const t = performance.now();
    await engine.load();
    return { engine, loadMs: performance.now() - t };
  };
  const loadStart = load1();
  try {
    const first = await loaded();
    const s = await sessionTurns(first.engine, plan, first.loadMs);
    const runtime = first.engine.info().fingerprint?.runtime ?? "";
    await first.engine.unload();
    const reload = async (start: "cold" | "warm") => {
      const { engine, loadMs } = await loaded();
      try {
        return await afterReload(engine, plan, start, loadMs);
      } finally {
        await engine.unload();
      }
    };
    const returning = await reload("cold");
    const warm = await reload("warm");
    return sessionEntry(
      { ...s, threads },
      {
        env: "node",
        ...fieldsOf(subject),
        runtime,
        native,
        returning,
        warm,
        returningPath: NODE_RETURNING,
        loadAvg1m: { start: loadStart, end: load1() },
      },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One entry per thread count in a browser, each in a fresh browser (an empty store: the first load
 *  downloads from the model server), with native llama.cpp measured just before it. */
async function browserEntries(
  env: BrowserEnv,
  subject: Subject,
  plan: SessionPlan,
  served: ServedBenchPage,
  server: ModelServer,
): Promise<Record<string, unknown>[]> {
  const missing = browserMissing(env);
  if (missing) return [{ env, subject: subject.name, skipped: missing }];
  const out: Record<string, unknown>[] = [];
  // Chromium at every count asked for; Firefox and WebKit at the worker's default for the page.
  let counts = THREADS;
  for (let i = 0; i < counts.length; i++) {
    const tab = await openBenchTab(env, served, log);
    try {
      const chosen = defaultThreads({ cores: tab.cores, isolated: tab.isolated, modelBytes: subject.size });
      if (env !== "chromium" && i === 0) counts = [chosen];
      const threads = counts[i]!;
      // The anchor just before the browser's run (the page idle), so both meet the same machine load.
      let native = await nativeBaseline(subject, threads, plan);
      log(`${subject.name}: native llama.cpp at ${threads} thread(s) before ${env}: ${JSON.stringify(native)}`);
      const m: SessionModel = { url: server.url("/model.gguf"), sha256: subject.sha256, threads };
      log(`${env} ${subject.name}: ${threads} thread(s)…`);
      const loadStart = load1();
      const s = await tab.session(m, plan);
      // wllama runs fewer threads than asked where it cannot run more (its compat build in WebKit: one):
      // the anchor is then measured again at the count that ran.
      if (s.threads !== threads) {
        native = await nativeBaseline(subject, s.threads, plan);
        log(
          `${env} ran ${s.threads} thread(s) of the ${threads} asked: native llama.cpp again at ${s.threads}: ${JSON.stringify(native)}`,
        );
      }
      // Each reload: the page goes away with its worker and llama.cpp; the model stays in the store.
      // --quick: the returning visitor's turn is not run (it repeats the first turn's whole prefill).
      await tab.reload();
      const returning = await tab.returning(
        m,
        QUICK ? { ...plan, skipReturningTurn: QUICK_SKIPS_RETURNING } : plan,
        "cold",
      );
      await tab.reload();
      const warm = await tab.returning(m, plan, "warm");
      out.push(
        sessionEntry(s, {
          env,
          ...fieldsOf(subject),
          runtime: s.runtime,
          native,
          returning,
          warm,
          returningPath: BROWSER_RETURNING,
          loadAvg1m: { start: loadStart, end: load1() },
          extra: {
            browser: tab.version,
            user_agent: s.userAgent,
            cross_origin_isolated: s.isolated,
            page_cores: tab.cores,
            threads_asked: threads,
            default_threads: chosen,
          },
        }),
      );
      log(`${env} ${subject.name} at ${threads} thread(s) (load ${load().join(" ")}): ${JSON.stringify(out.at(-1))}`);
    } finally {
      await tab.close();
    }
  }
  thresholdDefault(out);
  return out;
}

/** The thread default chosen by measurement: never worse than the best explicit setting by > 10 %. */
function thresholdDefault(entries: Record<string, unknown>[]): void {
  const decode = (e: Record<string, unknown>) => e.decode_tok_s_free as number;
  const best = Math.max(...entries.map(decode));
  for (const e of entries) {
    if ((e.threads_asked ?? e.threads) !== e.default_threads) continue;
    const ratio = decode(e) / best;
    const goals = e.goals as Record<string, unknown>;
    goals.default_threads = {
      met: ratio >= 0.9,
      measured: round(ratio, 3),
      goal: "≥ 0.9× the best count's decode",
      ...(ratio >= 0.9
        ? {}
        : { reason: `the default (${e.threads} threads) decodes at ${round(ratio)}× the best explicit setting` }),
    };
  }
}

/** Real models first (the numbers that count), then the random stand-ins. */
function subjects(): (Subject | { skipped: string })[] {
  return [
    ...MODELS.map(realSubject),
    ...REQUANTIZED.map(requantizedSubject),
    ...TWINS.map(twinSubject),
    ...SHAPES.map((shape) => shapeSubject(shape, QUANT)),
  ];
}

/** Firefox and WebKit run the pinned real models only (the first-turn numbers, per browser). */
const browsersFor = (subject: Subject): BrowserEnv[] =>
  BROWSERS.filter((b) => b === "chromium" || (MODELS as string[]).includes(subject.name));

const started = load();
const startedAt = performance.now();
const plan = await examplePlan({ tokens: QUICK ? 16 : 32, samples: SAMPLES });
const all = subjects();
const ran = all.filter((s): s is Subject => "path" in s);
log(
  `contract: ${plan.system.length} characters; subjects ${ran.map((s) => s.name).join(", ")}; threads ${THREADS.join(", ")}; browsers ${BROWSERS.join(", ") || "none"}`,
);
const results: Record<string, unknown>[] = all.flatMap((s) => ("skipped" in s ? [{ skipped: s.skipped }] : []));
const served = BROWSERS.length
  ? await serveBenchPage(log, { headers: CROSS_ORIGIN_ISOLATION, maxLifetimeMs: 4 * 60 * 60_000 })
  : undefined;
try {
  for (const subject of ran) {
    log(`${subject.name}: ${subject.path} (${Math.round(subject.size / 1e6)} MB, ${subject.weights} weights)`);
    for (const threads of THREADS) {
      const native = await nativeBaseline(subject, threads, plan);
      log(
        `${subject.name}: native llama.cpp at ${threads} thread(s): ${JSON.stringify(native)} (load ${load().join(" ")})`,
      );
      results.push(await nodeEntry(subject, threads, plan, native));
      log(
        `${subject.name}: node at ${threads} thread(s) (load ${load().join(" ")}): ${JSON.stringify(results.at(-1))}`,
      );
    }
    if (!served) continue;
    // Streamed from disk: a 0.5B file is not held in this process's memory.
    const server = await startModelServer(new Uint8Array(0), { "/model.gguf": { path: subject.path } });
    try {
      for (const env of browsersFor(subject))
        results.push(...(await browserEntries(env, subject, plan, served, server)));
    } finally {
      await server.close();
    }
  }
} finally {
  await served?.close();
}
results.push(...threadComparisons(results), ...weightComparisons(ran, results), firstTurnSummary(results));
const seconds = Math.round((performance.now() - startedAt) / 1000);
const machine = {
  cores: CORES,
  cpu: cpus()[0]?.model ?? "",
  note: "shared cores: other work on the machine shows in the load averages",
};
for (const r of results)
  Object.assign(r, { load_avg: { start: started, end: load() }, run_seconds: seconds }, r.summary ? { machine } : {});
console.log(JSON.stringify(results, null, args.json ? 0 : 2));
