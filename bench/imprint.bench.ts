// What an imprint changes in what is SENT to the model, per turn, for the scripted engine, over
// the same 5 prompts: a plain session (contract injected), and a session restored from an imprint
// (the prefix as the fixed start). Baseline and imprint are measured in the same run. Then
// `state_restore` (bench/imprint-state.ts), one row per model: time to first token of new
// conversations restored from the imprint's saved model state vs re-prefilling its prefix, with
// llama.cpp — on the generated test model (random weights) and on the real models setup:models
// placed (SmolLM2-135M-Instruct, Qwen2.5-Coder-0.5B-Instruct); skipped, saying so, without the
// optional runtime or a model.
//
//   flock /tmp/edge-cpu.lock npm run bench:imprint -- [--json] [--quick] [--models ID,ID|none]
//   (--quick: the generated model and SmolLM2-135M-Instruct only)
//
// sent_bytes  = UTF-8 bytes of every message content in the request (what a stateless engine
//               re-reads every turn);
// new_bytes   = bytes of the messages that are NOT the previous request plus its reply, in order
//               (what an engine that keeps the conversation's KV cache — web-llm in one session —
//               must prefill for that turn).
// Time to first token with web-llm needs WebGPU: see bench/imprint-webllm.html.
import { measureStateRestore, realStateModel, toyStateModel } from "./imprint-state.ts";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createChatSession } from "../src/chat/session.ts";
import type { ChatMessage } from "../src/engines/engine.ts";
import { ScriptedEngine } from "../src/engines/scripted.ts";
import { imprintBinding, learn, parseLearnSampleText } from "../src/imprint/index.ts";
import { createNodeRunnerHost } from "../src/runner/node.ts";
import { freezeToolset } from "../src/toolset/freeze.ts";
import { memorySource } from "../src/toolset/inspect.ts";
import type { RealModelId } from "../test/real-models.ts";

const { values: args } = parseArgs({
  options: { json: { type: "boolean" }, quick: { type: "boolean" }, models: { type: "string" } },
});
const JSON_ONLY = args.json === true;
const DEFAULT_MODELS = args.quick
  ? "smollm2-135m-instruct-q4_1"
  : "smollm2-135m-instruct-q4_1,qwen2.5-coder-0.5b-instruct-q4_k_m";
const REAL_MODELS = (args.models ?? DEFAULT_MODELS).split(",").filter((m) => m && m !== "none") as RealModelId[];
const TOOLS = readFileSync(new URL("../public/examples/tools.py", import.meta.url), "utf8");
const SAMPLE = parseLearnSampleText(
  readFileSync(new URL("../public/examples/learn_sample.json", import.meta.url), "utf8"),
);
const PROMPTS = [
  "Hi, what can you do?",
  "Which tiers do you have?",
  "Is express shipping possible?",
  "How do I check an order?",
  "Thanks, that is all.",
];
const ANSWERS = PROMPTS.map((_, i) => `Answer ${i + 1}: plain text, no tool needed.`);
const enc = new TextEncoder();
const bytes = (messages: readonly ChatMessage[]): number =>
  messages.reduce((n, m) => n + enc.encode(m.content).byteLength, 0);
const same = (a: ChatMessage, b: ChatMessage): boolean => a.role === b.role && a.content === b.content;

interface Turn {
  turn: number;
  sent_bytes: number;
  new_bytes: number;
}

async function measure(
  mode: "contract" | "imprint",
  host: ReturnType<typeof createNodeRunnerHost>,
  imprint?: Parameters<typeof imprintBinding>[0],
): Promise<{ instruction_bytes: number; turns: Turn[] }> {
  const engine = new ScriptedEngine(ANSWERS, { chunkSize: 1024 });
  await engine.load();
  const toolset = await freezeToolset(memorySource("tools.py", TOOLS), host);
  const session = await createChatSession({
    engine,
    host,
    tools: { kind: "toolset", toolset },
    ...(mode === "imprint" && imprint ? { imprint: imprintBinding(imprint) } : {}),
  });
  for (const p of PROMPTS) {
    const run = await session.chat(p);
    if (!run.ok || run.receipt.tool_instruction_mode !== mode)
      throw new Error(`bench run failed: ${JSON.stringify(run.error ?? run.receipt.tool_instruction_mode)}`);
  }
  const turns: Turn[] = [];
  let cached: ChatMessage[] = [];
  engine.calls.forEach((c, i) => {
    let k = 0;
    while (k < cached.length && k < c.messages.length && same(cached[k]!, c.messages[k]!)) k++;
    const reusable = k === cached.length; // the whole previous conversation is a prefix of this request
    turns.push({
      turn: i + 1,
      sent_bytes: bytes(c.messages),
      new_bytes: bytes(reusable ? c.messages.slice(k) : c.messages),
    });
    cached = [...c.messages, { role: "assistant", content: ANSWERS[i]! }];
  });
  return { instruction_bytes: enc.encode(session.contract ?? "").byteLength, turns };
}

/** One state-restore row per model: the generated one, then each real one (or why it was skipped). */
async function stateRestoreRows(): Promise<Record<string, unknown>[]> {
  const log = (...a: unknown[]): void => {
    if (!JSON_ONLY) console.error(...a);
  };
  const rows = [await measureStateRestore(SAMPLE, log, toyStateModel())];
  for (const id of REAL_MODELS) {
    const model = realStateModel(id);
    rows.push("skipped" in model ? { model: id, ...model } : await measureStateRestore(SAMPLE, log, model));
  }
  return rows;
}

const host = createNodeRunnerHost({ spares: 0 });
try {
  const toolset = await freezeToolset(memorySource("tools.py", TOOLS), host);
  const evalEngine = new ScriptedEngine([]);
  await evalEngine.load();
  const { imprint } = await learn({ sample: SAMPLE, toolset, engine: evalEngine, evaluate: false });
  const contract = await measure("contract", host);
  const withImprint = await measure("imprint", host, imprint);
  const sum = (t: Turn[], k: keyof Turn) => t.reduce((n, x) => n + (x[k] as number), 0);
  const result = {
    bench: "imprint.prompt_bytes",
    engine: "scripted",
    prompts: PROMPTS.length,
    baseline: {
      mode: "contract",
      ...contract,
      total_sent_bytes: sum(contract.turns, "sent_bytes"),
      total_new_bytes: sum(contract.turns, "new_bytes"),
    },
    imprint: {
      mode: "imprint",
      ...withImprint,
      total_sent_bytes: sum(withImprint.turns, "sent_bytes"),
      total_new_bytes: sum(withImprint.turns, "new_bytes"),
    },
    ratio_sent_imprint_vs_contract: +(sum(withImprint.turns, "sent_bytes") / sum(contract.turns, "sent_bytes")).toFixed(
      3,
    ),
    ratio_new_turns_2_5_imprint_vs_contract: +(
      sum(withImprint.turns.slice(1), "new_bytes") / sum(contract.turns.slice(1), "new_bytes")
    ).toFixed(3),
    note: "The imprint prefix = the same contract + profile + policy, so it is LARGER than the bare contract and is re-sent every turn. What saves work is the engine keeping the conversation's KV cache (new_bytes): from turn 2 on only the new prompt is prefilled, in both modes. The scripted engine has no cache; new_bytes models web-llm's multi-round reuse.",
    // The profile-only prefix of the example sample: ~1,800 tokens with the test model's byte
    // vocabulary, a few hundred with a real tokenizer.
    state_restore: await stateRestoreRows(),
  };
  if (JSON_ONLY) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await host.close();
}
