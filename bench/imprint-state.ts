// Part of bench:imprint — time to first token of a NEW conversation restored from an imprint, with
// its saved model state vs re-prefilling the same prefix, in the same run, with the real llama.cpp
// runtime (node-llama-cpp): on the larger generated test model (LARGER_TEST_MODEL: random weights, a
// byte vocabulary, 128 wide — its prefill is so cheap that the restore can hardly win) and on real
// models (trained weights, real tokenizers: the prefill a person would wait for).
//
// The first conversation is the learn run (it evaluates the prefix and saves the state). Each later
// conversation starts like a new `edge chat` process: the model is reloaded (an empty prompt cache;
// not timed), then — timed — the session is created (gate, then either the state file checked and
// loaded, or the prefix evaluated) and the first prompt runs to its first token (max 1 token).
// Modes alternate so machine load hits both alike.
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createChatSession } from "../src/chat/session.ts";
import { createNodeLlamaCppEngine } from "../src/engines/llamacpp/node/index.ts";
import { llamaBinding } from "../src/engines/llamacpp/node/binding.ts";
import { imprintBinding, learn, type LearnSample } from "../src/imprint/index.ts";
import { nodeStateRestorer, nodeStateSaver } from "../src/imprint/node-state.ts";
import { createNodeImprintStore } from "../src/imprint/store-node.ts";
import { LARGER_TEST_MODEL, writeTestModel } from "../test/fixtures/gguf.ts";
import { realModel, type RealModelId } from "../test/real-models.ts";

const CONVERSATIONS = 4; // conversations 2..5
const PROMPTS = [
  "Which tiers do you have?",
  "Is express shipping possible?",
  "How do I check an order?",
  "Thanks, that is all.",
];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (n: number): number => Math.round(n * 10) / 10;
const GOAL_RATIO = 5;

/** What the restore is measured on. */
export interface StateModel {
  path: string;
  /** "random": the generated test model; "real": trained weights. */
  weights: "random" | "real";
  /** Described in the row (options or pin, file size, sha256). */
  info: Record<string, unknown>;
}

/** The larger generated test model (written on first use). */
export function toyStateModel(): StateModel {
  const model = writeTestModel(LARGER_TEST_MODEL);
  return {
    path: model.path,
    weights: "random",
    info: { ...LARGER_TEST_MODEL, file_bytes: model.size, sha256: `sha256:${model.sha256}` },
  };
}

/** A real model from setup:models, or why it is not there. */
export function realStateModel(id: RealModelId): StateModel | { skipped: string } {
  const m = realModel(id);
  if (!m) return { skipped: `${id} is not in .cache/models/ (run npm run setup:models)` };
  return {
    path: m.path,
    weights: "real",
    info: { id, label: m.label, file_bytes: m.size, sha256: `sha256:${m.sha256}` },
  };
}

interface Conversation {
  conversation: number;
  mode: "state" | "prefix";
  ttft_ms: number;
  /** Of the prefix, evaluated when the session started (0 when restored from the state). */
  prefix_tokens_evaluated: number | undefined;
  /** The first prompt's tokens, and those evaluated for it (the rest: the restored or warmed prefix). */
  prompt_tokens: number | undefined;
  prompt_tokens_evaluated: number | undefined;
}

export async function measureStateRestore(
  sample: LearnSample,
  log: (...a: unknown[]) => void,
  model: StateModel,
): Promise<Record<string, unknown>> {
  try {
    await llamaBinding();
  } catch (e) {
    return { skipped: `node-llama-cpp is not installed (npm run setup:llama): ${(e as Error).message}` };
  }
  const loadStart = round(loadavg()[0]!);
  const dir = await mkdtemp(join(tmpdir(), "edge-bench-imprint-"));
  const engine = createNodeLlamaCppEngine({ model: { kind: "file", path: model.path }, threads: 1, contextSize: 4096 });
  try {
    const store = createNodeImprintStore({ dir });
    await engine.load();
    log(`learning on ${model.path} (the first conversation: prefix evaluated, state saved)…`);
    const t0 = performance.now();
    const { imprint } = await learn({
      sample,
      engine,
      evaluate: false,
      store,
      saveState: nodeStateSaver(engine, store),
    });
    const learnMs = performance.now() - t0;
    const state = imprint.state;
    if (!state) throw new Error("the engine saved no state");
    const conversations: Conversation[] = [];
    for (let i = 0; i < CONVERSATIONS; i++) {
      for (const mode of ["state", "prefix"] as const) {
        await engine.unload();
        await engine.load(); // a new process: nothing cached
        const binding = imprintBinding(
          imprint,
          mode === "state" ? nodeStateRestorer(imprint, { file: store.stateFile(imprint.id) }, store) : undefined,
        );
        const start = performance.now();
        const session = await createChatSession({ engine, imprint: binding, maxTokens: 1 });
        const run = await session.chat(PROMPTS[i]!);
        const ttft = performance.now() - start;
        if (run.receipt.imprint_restore !== mode)
          throw new Error(`expected imprint_restore ${mode}, got ${JSON.stringify(run.receipt.imprint_prefix)}`);
        const p = run.receipt.imprint_prefix;
        conversations.push({
          conversation: i + 2,
          mode,
          ttft_ms: round(ttft),
          prefix_tokens_evaluated: p?.prefix_tokens_evaluated,
          prompt_tokens: p?.prompt_tokens,
          prompt_tokens_evaluated: p?.prompt_tokens_evaluated,
        });
        log(
          `conversation ${i + 2} (${mode}): ${Math.round(ttft)} ms to first token; evaluated ${p?.prefix_tokens_evaluated} prefix + ${p?.prompt_tokens_evaluated} prompt tokens`,
        );
      }
    }
    const ttft = (mode: "state" | "prefix") =>
      round(median(conversations.filter((c) => c.mode === mode).map((c) => c.ttft_ms)));
    const ratio = round(ttft("prefix") / ttft("state"));
    return {
      engine: `llamacpp (${engine.info().fingerprint?.runtime}, CPU, 1 thread)`,
      weights: model.weights,
      model: model.info,
      context_size: state.context_size,
      prefix_tokens: state.prefix_tokens,
      artifact_bytes: state.artifact_bytes,
      artifact_bytes_per_prefix_token: round(state.artifact_bytes / state.prefix_tokens),
      learn_ms_including_state_save: round(learnMs),
      conversations,
      baseline: { mode: "prefix", median_ttft_ms: ttft("prefix") },
      restored: { mode: "state", median_ttft_ms: ttft("state") },
      ratio_ttft_prefix_vs_state: ratio,
      goal_ratio: GOAL_RATIO,
      goal: {
        met: ratio >= GOAL_RATIO,
        measured: ratio,
        goal: `≥ ${GOAL_RATIO}×`,
        ...(ratio >= GOAL_RATIO
          ? {}
          : {
              reason: `restoring the state answered ${ratio}× faster than re-prefilling the ${state.prefix_tokens}-token prefix`,
            }),
      },
      load_avg_1m: { start: loadStart, end: round(loadavg()[0]!) },
      note: "Time to first token of conversations 2..5, each in a freshly loaded model (like a new edge chat): session creation (gate + state check and load, or prefix evaluation) plus the first prompt to its first token. Same run, same model, alternating modes.",
    };
  } finally {
    await engine.unload();
    await rm(dir, { recursive: true, force: true });
  }
}
