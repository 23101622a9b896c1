// learn(): bake the tool contract of a frozen toolset, the sample's profile and its policy into an
// imprint bound to the learning model; evaluate it; store it with a learn receipt. Environment-neutral:
// the stores are passed in (IndexedDB in the browser, files in Node).
import { EdgeError, type ErrorJson } from "../contract/errors.ts";
import { randomHex, schemaSha256, sha256Text, type Sha256 } from "../contract/hash.ts";
import type { ToolSchema } from "../contract/types.ts";
import type { Engine } from "../engines/engine.ts";
import { RECEIPT_VERSION, type Receipt, type ReceiptBody } from "../receipts/types.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import type { ToolSurface } from "../chat/types.ts";
import { createToolRuntime } from "../runtime/index.ts";
import { activeSchemas, type FrozenToolset } from "../toolset/freeze.ts";
import { evaluateImprint, type EvaluateOptions } from "./evaluate.ts";
import { renderImprintPrefix } from "./prefix.ts";
import { runtimeInfo, sealImprint, type Imprint, type ImprintTools } from "./record.ts";
import type { ImprintStore } from "./store.ts";
import type { ImprintState } from "./state.ts";
import type { LearnQuestion, LearnSample } from "./sample.ts";
import { evaluationQuestions, sampleSha256, sampleWarnings } from "./sample-rules.ts";

export interface LearnOptions {
  sample: LearnSample;
  /** The frozen tools to bake in; omit (and omit surface) to learn a profile-only imprint. */
  toolset?: FrozenToolset | null;
  /** Or a facts store / tools manifest surface: its lookups' contract is baked in instead. */
  surface?: ToolSurface | null;
  /** A loaded engine: the imprint is bound to its model id and fingerprint. */
  engine: Engine;
  /** Where the imprint goes; without one it is only returned. */
  store?: ImprintStore;
  /** Where the learn receipt goes (chained with the chat receipts). */
  receipts?: ReceiptStore;
  /** The call budget the baked contract states (default 4, the session default). */
  maxCalls?: number;
  /** Ask the sample's scored questions with and without the prefix (default true). */
  evaluate?: boolean;
  /** Prefill the prefix once before the questions (default: yes for web-llm, no for scripted). */
  prefill?: boolean;
  maxTokens?: number;
  /** Guided decoding for evaluation (default: the engine's tool-turn policy, as chat uses). */
  responseFormat?: EvaluateOptions["responseFormat"];
  /** The tool choice of that policy (default auto), as `edge chat --tool-choice` gives it. */
  toolChoice?: EvaluateOptions["toolChoice"];
  signal?: AbortSignal;
  /** Save the model's evaluated state of the prefix beside the record (Node, llama.cpp:
   *  src/imprint/node-state.ts), called after the evaluation with the new imprint's id. Resolves
   *  null when the engine cannot save a state. */
  saveState?: (id: string, prefix: string) => Promise<SavedState | null>;
}

/** A state file written for an imprint that is not stored yet: its binding, and how to remove it
 *  again if storing the imprint or its receipt fails. */
export interface SavedState {
  state: ImprintState;
  discard(): Promise<void>;
}

export interface LearnResult {
  ok: true;
  imprint: Imprint;
  imprint_id: string;
  prefix_sha256: Sha256;
  active_set_sha256: Sha256 | null;
  evaluation: Imprint["evaluation"];
  warnings: ErrorJson[];
  receipt: Receipt | ReceiptBody;
}

/** The tools an imprint is learned against: their schemas, and what the record binds. */
export interface LearnTools {
  schemas: ToolSchema[];
  tools: ImprintTools | null;
}

async function schemaHashes(schemas: readonly ToolSchema[]): Promise<Record<string, Sha256>> {
  const out: Record<string, Sha256> = {};
  for (const s of [...schemas].sort((a, b) => (a.name < b.name ? -1 : 1))) out[s.name] = await schemaSha256(s);
  return out;
}

async function imprintToolsOf(toolset: FrozenToolset, schemas: readonly ToolSchema[]): Promise<ImprintTools> {
  return {
    surface: "tools_file",
    schema_generator_version: toolset.schema_generator_version,
    active_set_sha256: toolset.active_set_sha256,
    tool_schema_sha256: await schemaHashes(schemas),
    tools_file_sha256: toolset.tools_file_sha256,
  };
}

/** The schemas a surface registers (what the model sees), read from a scratch runtime. */
export function surfaceSchemas(surface: ToolSurface): ToolSchema[] {
  const runtime = createToolRuntime();
  surface.register(runtime);
  return runtime.schemas();
}

export async function learnToolsOf(
  toolset: FrozenToolset | null | undefined,
  surface: ToolSurface | null | undefined,
): Promise<LearnTools> {
  if (toolset && surface) throw new EdgeError("conflicting_tool_options");
  if (toolset) {
    const schemas = activeSchemas(toolset);
    return { schemas, tools: await imprintToolsOf(toolset, schemas) };
  }
  if (!surface) return { schemas: [], tools: null };
  const schemas = surfaceSchemas(surface);
  return {
    schemas,
    tools: {
      surface: surface.kind,
      schema_generator_version: surface.schema_generator_version,
      active_set_sha256: surface.active_set_sha256,
      tool_schema_sha256: await schemaHashes(schemas),
      tools_file_sha256: null,
      ...(surface.tools_manifest_sha256 ? { tools_manifest_sha256: surface.tools_manifest_sha256 } : {}),
      ...(surface.facts_store ? { facts_store: surface.facts_store } : {}),
    },
  };
}

export async function learn(options: LearnOptions): Promise<LearnResult> {
  const { sample, engine } = options;
  const toolset = options.toolset ?? null;
  const maxCalls = options.maxCalls ?? 4;
  if (!Number.isInteger(maxCalls) || maxCalls < 0)
    throw new EdgeError(
      "invalid_option",
      {},
      "maxCalls must be a non-negative integer. Pass 0 or a larger whole number.",
    );
  const info = engine.info();
  if (info.kind !== "scripted" && !info.fingerprint) {
    // Binding to a model we cannot identify would make the model gate meaningless.
    throw new EdgeError(
      "engine_not_loaded",
      {},
      "Load the model before learning: the imprint is bound to the exact model build, which is known only after loading.",
    );
  }
  const { schemas, tools } = await learnToolsOf(toolset, options.surface);
  const prefix = renderImprintPrefix(schemas, sample, maxCalls);
  const prefixSha = await sha256Text(prefix);
  const warnings = sampleWarnings(sample, tools ? schemas.map((s) => s.name) : null, info.modelId);
  const questions = evaluationQuestions(sample);
  const evaluation = await evaluationOf(options, prefix, schemas, questions);

  const id = `imp_${randomHex(12)}`;
  const receiptId = options.receipts ? `learn_${randomHex(12)}` : null;
  const sampleSha = await sampleSha256(sample);
  const saved = options.saveState ? await options.saveState(id, prefix) : null;
  const imprint = await sealImprint({
    imprint_version: "edge.imprint.v1",
    id,
    created_at: new Date().toISOString(),
    runtime: runtimeInfo(),
    model: { engine: info.kind, model_id: info.modelId, fingerprint: info.fingerprint ?? null },
    sample: {
      sample_id: sample.sample_id,
      peer_id: sample.peer_id,
      app_id: sample.app_id,
      base_model_id: sample.base_model_id,
      sample_sha256: sampleSha,
      record_count: sample.records.length,
      correction_count: sample.corrections.length,
      question_count: questions.length,
    },
    tools,
    max_calls: maxCalls,
    prefix,
    prefix_sha256: prefixSha,
    evaluation,
    warnings,
    learn_receipt_id: receiptId,
    ...(saved ? { state: saved.state } : {}),
  });

  const body = learnReceiptBody(imprint, receiptId ?? `learn_${randomHex(12)}`, tools, saved);
  const receipt = await keepLearned(options, imprint, body, saved);
  return {
    ok: true,
    imprint,
    imprint_id: id,
    prefix_sha256: prefixSha,
    active_set_sha256: tools?.active_set_sha256 ?? null,
    evaluation,
    warnings,
    receipt,
  };
}

/** The evaluation of the prefix (evaluate.ts), or its record when learning skips it. */
async function evaluationOf(
  options: LearnOptions,
  prefix: string,
  schemas: ToolSchema[],
  questions: LearnQuestion[],
): Promise<Imprint["evaluation"]> {
  const info = options.engine.info();
  if (options.evaluate === false) {
    return {
      mode: "skipped",
      engine: info.kind,
      model_id: info.modelId,
      question_count: questions.length,
      scored: 0,
      matched_without_prefix: 0,
      matched_with_prefix: 0,
      items: [],
      prefill_ms: null,
    };
  }
  return evaluateImprint({
    engine: options.engine,
    prefix,
    schemas,
    questions,
    prefill: options.prefill,
    maxTokens: options.maxTokens,
    responseFormat: options.responseFormat,
    toolChoice: options.toolChoice,
    signal: options.signal,
  });
}

/** The learn receipt: hashes, the evaluation's counts and the warnings' codes, never the text. */
function learnReceiptBody(
  imprint: Imprint,
  receiptId: string,
  tools: ImprintTools | null,
  saved: SavedState | null,
): ReceiptBody {
  const { evaluation, sample } = imprint;
  return {
    receipt_version: RECEIPT_VERSION,
    id: receiptId,
    kind: "learn",
    created_at: imprint.created_at,
    model_id: imprint.model.model_id,
    engine: imprint.model.engine,
    // The model the imprint is bound to, by its bytes (a GGUF file's sha256), as chat receipts name it.
    ...(imprint.model.fingerprint ? { model_fingerprint: imprint.model.fingerprint } : {}),
    prompt_sha256: null,
    answer_sha256: null,
    tools_file_sha256: tools?.tools_file_sha256 ?? null,
    ...(tools?.tools_manifest_sha256 ? { tools_manifest_sha256: tools.tools_manifest_sha256 } : {}),
    ...(tools?.surface ? { tool_surface: tools.surface } : {}),
    ...(tools?.facts_store ? { facts_store: tools.facts_store } : {}),
    active_set_sha256: tools?.active_set_sha256 ?? null,
    schema_generator_version: tools?.schema_generator_version ?? null,
    tool_instruction_mode: "imprint",
    tool_instruction_sha256: imprint.prefix_sha256,
    imprint_id: imprint.id,
    outcome: "answered",
    code: null,
    network_used_by_edge: false,
    calls: [],
    extra: {
      imprint_sha256: imprint.imprint_sha256,
      sample_id: sample.sample_id,
      sample_sha256: sample.sample_sha256,
      evaluation: {
        mode: evaluation.mode,
        scored: evaluation.scored,
        matched_without_prefix: evaluation.matched_without_prefix,
        matched_with_prefix: evaluation.matched_with_prefix,
        prefill_ms: evaluation.prefill_ms,
      },
      warnings: imprint.warnings.map((w) => w.code),
      ...(saved
        ? {
            state: {
              artifact_sha256: saved.state.artifact_sha256,
              artifact_bytes: saved.state.artifact_bytes,
              prefix_tokens: saved.state.prefix_tokens,
            },
          }
        : {}),
    },
  };
}

/** Store the imprint, then its receipt: no imprint without its learn receipt, no state file
 *  without its imprint (a failure undoes what was written, then is reported). */
async function keepLearned(
  options: LearnOptions,
  imprint: Imprint,
  body: ReceiptBody,
  saved: SavedState | null,
): Promise<Receipt | ReceiptBody> {
  let stored = false;
  try {
    if (options.store) await options.store.put(imprint);
    stored = true;
    return options.receipts ? await options.receipts.append(body) : body;
  } catch (err) {
    if (stored) await options.store?.delete(imprint.id).catch(() => undefined);
    await saved?.discard().catch(() => undefined);
    throw err;
  }
}
