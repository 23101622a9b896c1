// Node decode speed by thread count, and guided vs free decode, through LlamaCppEngine
// (node-llama-cpp) on the byte-level test model and the Qwen3-0.6B real shape (random weights:
// speed, never quality). The default (no `threads`) is measured beside every explicit count in
// the same run, samples interleaved, so `default_vs_best` says whether the default is the best
// setting on this machine (goal ≥ 0.9); `guided_vs_free` is the JSON-schema grammar's cost on a
// 151,936-token vocabulary (goal ≥ 0.9).
//   flock /tmp/edge-bench.lock npm run bench:threads -- --json [--quick]
import { statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import type { ResponseFormat } from "../src/engines/engine.ts";
import { toolCallResponseFormat, type GuidedTool } from "../src/engines/grammar.ts";
import { LlamaCppEngine } from "../src/engines/llamacpp/engine.ts";
import { createNodeLlamaBackend, defaultThreads } from "../src/engines/llamacpp/node/backend.ts";
import { llamaBinding } from "../src/engines/llamacpp/node/binding.ts";
import { writeTestModel } from "../test/fixtures/gguf.ts";
import { realShapeModel } from "../test/fixtures/real-shape.ts";

const JSON_ONLY = process.argv.includes("--json");
const QUICK = process.argv.includes("--quick");
const log = (...a: unknown[]): void => void (JSON_ONLY || console.error(...a));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;

/** The guided tools: the example tools' argument schemas (as discovered; bench:contract reads them too). */
const TOOLS: GuidedTool[] = [
  {
    name: "fee_quote",
    parameters: {
      type: "object",
      properties: {
        amount: { type: "number" },
        note: { type: ["string", "null"], default: null },
        tier: { type: "string", enum: ["basic", "pro"], default: "basic" },
      },
      required: ["amount"],
      additionalProperties: false,
    },
  },
  {
    name: "order_status",
    parameters: {
      type: "object",
      properties: { order_id: { type: "string" } },
      required: ["order_id"],
      additionalProperties: false,
    },
  },
  {
    name: "prepare_order",
    parameters: {
      type: "object",
      properties: {
        express: { type: "boolean", default: false },
        quantity: { type: "integer", default: 1 },
        sku: { type: "string" },
      },
      required: ["sku"],
      additionalProperties: false,
    },
  },
];

interface Subject {
  shape: string;
  path: string;
  tokens: number;
  runs: number;
}

async function decodeRate(
  engine: LlamaCppEngine,
  tokens: number,
  responseFormat?: ResponseFormat,
): Promise<number | undefined> {
  // A fresh conversation each time (the prompt differs), so the prompt cache never decides.
  const r = await engine.chat({
    messages: [{ role: "user", content: `Sample ${Math.random()}: say something long.` }],
    maxTokens: tokens,
    temperature: 0.8,
    ...(responseFormat ? { responseFormat } : {}),
  });
  return r.usage?.decodeTokensPerS;
}

async function measure(subject: Subject): Promise<Record<string, unknown>> {
  const backend = createNodeLlamaBackend({ cacheDir: "/nonexistent" });
  // undefined: Edge's default; 1 and every core: the explicit choices; max(4, cores): what
  // node-llama-cpp picks when it is given no count (Edge's default until it chose one).
  const cores = cpus().length;
  const runtimeDefault = Math.max(4, cores);
  const settings: Array<number | undefined> = [undefined, 1, ...(cores > 1 ? [cores] : [])];
  const engines = new Map<number | undefined, LlamaCppEngine>();
  for (const threads of settings) {
    const e = new LlamaCppEngine({
      backend,
      model: { kind: "file", path: subject.path },
      contextSize: 2048,
      ...(threads ? { threads } : {}),
    });
    await e.load();
    engines.set(threads, e);
  }
  const free = new Map<number | undefined, number[]>(settings.map((t) => [t, []]));
  const guided: number[] = [];
  const guidedFree: number[] = [];
  const grammar = toolCallResponseFormat(TOOLS);
  for (let i = 0; i < subject.runs; i++) {
    // Interleaved: each round measures every setting once.
    for (const threads of settings) {
      const rate = await decodeRate(engines.get(threads)!, subject.tokens);
      if (rate) free.get(threads)!.push(rate);
    }
    const best = engines.get(Math.max(cores, 1))!;
    const [g, f] = [await decodeRate(best, subject.tokens, grammar), await decodeRate(best, subject.tokens)];
    if (g && f) {
      guided.push(g);
      guidedFree.push(f);
    }
    log(`${subject.shape} round ${i + 1}/${subject.runs}`);
  }
  for (const e of engines.values()) await e.unload();
  // The runtime's own default is orders of magnitude slower where it oversubscribes the cores:
  // one short sample says enough.
  let runtimeRate: number | undefined;
  if (runtimeDefault !== cores) {
    const e = new LlamaCppEngine({
      backend,
      model: { kind: "file", path: subject.path },
      contextSize: 2048,
      threads: runtimeDefault,
    });
    await e.load();
    runtimeRate = await decodeRate(e, 12);
    await e.unload();
  }
  const rates = Object.fromEntries(
    settings.map((t) => [t === undefined ? "default" : `${t}`, round(median(free.get(t)!))]),
  );
  const explicit = [1, cores].map((t) => median(free.get(t)!));
  const bestExplicit = Math.max(...explicit);
  return {
    env: "node",
    model_shape: subject.shape,
    decode_tok_s_by_threads: rates,
    default_threads: defaultThreads(statSync(subject.path).size, cores),
    default_vs_best: round(median(free.get(undefined)!) / bestExplicit, 3),
    runtime_default_threads: runtimeDefault,
    runtime_default_tok_s: runtimeRate !== undefined ? round(runtimeRate) : rates[`${cores}`],
    runtime_default_vs_best: round((runtimeRate ?? median(free.get(cores)!)) / bestExplicit, 3),
    guided_threads: cores,
    decode_tok_s_free: round(median(guidedFree)),
    decode_tok_s_guided: round(median(guided)),
    guided_vs_free: round(median(guided) / median(guidedFree), 3),
    samples: subject.runs,
    tokens_per_sample: subject.tokens,
    load_avg_1m: round(loadavg()[0]!),
  };
}

try {
  await llamaBinding();
} catch (e) {
  console.log(JSON.stringify([{ env: "node", skipped: (e as Error).message }]));
  process.exit(0);
}
const subjects: Subject[] = [
  {
    shape: "byte-level test model (test/fixtures/gguf.ts)",
    path: writeTestModel().path,
    tokens: 200,
    runs: QUICK ? 3 : 7,
  },
  {
    shape: "qwen3-tiny (real vocabulary, 2 blocks of 64)",
    path: realShapeModel({ family: "qwen3", shape: "tiny" }).path,
    tokens: 100,
    runs: QUICK ? 3 : 5,
  },
  ...(QUICK
    ? []
    : [{ shape: "qwen3-0.6b (q8_0)", path: realShapeModel({ shape: "qwen3-0.6b" }).path, tokens: 24, runs: 3 }]),
];
const load = { load_avg_before: round(loadavg()[0]!), cores: cpus().length };
const entries = [];
for (const s of subjects) entries.push({ ...(await measure(s)), ...load });
console.log(JSON_ONLY ? JSON.stringify(entries) : JSON.stringify(entries, null, 2));
