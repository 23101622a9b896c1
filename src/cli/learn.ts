// `edge learn validate|run`: check a learn sample, and learn a Neural Imprint from it in Node with a
// GGUF model (`--model`, llama.cpp) or the scripted engine (web-llm needs WebGPU: learn in the
// browser playground for a web-llm model), against a tools.py, a facts store or a tools manifest;
// `--dry-run` prints the plan only.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Receipt } from "../receipts/types.ts";
import { EdgeError } from "../contract/errors.ts";
import type { Engine } from "../engines/engine.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import {
  learn,
  parseLearnSampleText,
  planLearn,
  sampleWarnings,
  summarizeSample,
  type LearnSample,
} from "../imprint/index.ts";
import { createNodeImprintStore } from "../imprint/store-node.ts";
import { nodeStateSaver } from "../imprint/node-state.ts";
import { createNodeReceiptStore, receiptFileName } from "../receipts/store-node.ts";
import { readScript } from "./script-file.ts";
import { EXIT_OK, formatError, printJson, UsageError, type CliIO } from "./io.ts";
import {
  openToolSurface,
  SURFACE_OPTIONS,
  surfaceFlag,
  surfaceToolSchemas,
  type SurfaceValues,
} from "./tool-surface.ts";
import { engineKind, loadModelEngine, maxTokensOf, MODEL_OPTIONS, toolChoiceOf } from "./model.ts";

export async function readSampleFile(file: string): Promise<LearnSample> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new EdgeError(
      "invalid_learn_sample",
      { field: "(file)", path: file },
      `Invalid learn sample: ${file} could not be read (${(err as Error).message}); check the path, or write one with edge learn sample init.`,
    );
  }
  return parseLearnSampleText(text);
}

export async function validateSample(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...SURFACE_OPTIONS, json: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError("learn validate takes exactly one FILE.");
  const sample = await readSampleFile(positionals[0]!);
  const opened = await openToolSurface(values, (line) => io.err(line));
  await opened.close();
  const active = surfaceToolSchemas(opened)?.map((s) => s.name) ?? null;
  const summary = await summarizeSample(sample);
  const warnings = sampleWarnings(sample, active, null);
  if (values.json)
    printJson(io, {
      ok: true,
      status: "valid",
      sample_id: sample.sample_id,
      sample: summary,
      warnings,
      warning_count: warnings.length,
    });
  else {
    io.out(`valid: ${positionals[0]}\n`);
    io.out(
      `  sample ${summary.sample_id}: ${summary.record_count} records (${summary.record_kinds.join(", ") || "-"}), ${summary.correction_count} corrections, ${summary.question_count} questions (${summary.scored_question_count} scored)\n`,
    );
    io.out(`  sample_sha256: ${summary.sample_sha256}\n`);
    for (const w of warnings) io.out(`warning:${formatError(w).slice(1)}\n`);
  }
  return EXIT_OK;
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      "sample-file": { type: "string" },
      ...SURFACE_OPTIONS,
      "dry-run": { type: "boolean" },
      "include-text": { type: "boolean" },
      engine: { type: "string" },
      ...MODEL_OPTIONS,
      script: { type: "string" },
      "max-calls": { type: "string" },
      "no-evaluate": { type: "boolean" },
      json: { type: "boolean" },
    },
    allowPositionals: false,
    strict: true,
  });
  if (!values["sample-file"]) throw new UsageError("learn run needs --sample-file FILE.");
  let maxCalls: number | undefined;
  if (values["max-calls"] !== undefined) {
    maxCalls = Number(values["max-calls"]);
    if (!Number.isInteger(maxCalls) || maxCalls < 0) throw new UsageError("--max-calls must be an integer ≥ 0.");
  }
  const sample = await readSampleFile(values["sample-file"]);
  if (values["dry-run"])
    return dryRun(sample, values, maxCalls, values["include-text"] === true, values.json === true, io);
  const kind = engineKind(values);
  if (kind === "webllm") {
    throw new EdgeError(
      "webgpu_unavailable",
      {},
      "The web-llm engine needs WebGPU, which Node does not have: learn with a GGUF model here (--model FILE.gguf), in the browser playground, or with --engine scripted --script OUTPUTS.json.",
    );
  }
  if (kind !== "scripted" && kind !== "llamacpp")
    throw new UsageError(`Unknown engine "${kind}" (use llamacpp with --model, webllm or scripted).`);
  if (kind === "scripted" && !values.script && !values["no-evaluate"]) {
    throw new UsageError(
      "--engine scripted needs --script OUTPUTS.json: for each scored question, the output without the imprint prefix, then the output with it (or pass --no-evaluate).",
    );
  }
  let engine: Engine;
  if (kind === "llamacpp") engine = await loadModelEngine(values, io, values.json === true);
  else {
    engine = new ScriptedEngine(values.script ? await readScript(values.script) : []);
    await engine.load();
  }

  const opened = await openToolSurface(values, (line) => io.err(line));
  try {
    const receipts = createNodeReceiptStore();
    const store = createNodeImprintStore();
    const result = await learn({
      sample,
      toolset: opened.toolset,
      surface: opened.surface,
      engine,
      store,
      receipts,
      // A model that can save its state (llama.cpp) keeps the evaluated prefix beside the imprint.
      saveState: nodeStateSaver(engine, store),
      evaluate: values["no-evaluate"] !== true,
      ...(maxCalls !== undefined ? { maxCalls } : {}),
      ...(maxTokensOf(values) !== undefined ? { maxTokens: maxTokensOf(values) } : {}),
      toolChoice: toolChoiceOf(values["tool-choice"]),
    });
    // The stored learn receipt: `--with-imprint` also accepts its path (as Edge Studio's does).
    const receipt = result.receipt as Receipt;
    const receiptPath = path.join(receipts.dir, receiptFileName(receipt.seq));
    const state = result.imprint.state ?? null;
    if (values.json) {
      printJson(io, {
        ok: true,
        imprint_id: result.imprint_id,
        prefix_sha256: result.prefix_sha256,
        active_set_sha256: result.active_set_sha256,
        tool_surface: result.imprint.tools?.surface ?? null,
        evaluation: result.evaluation,
        state,
        warnings: result.warnings,
        receipt_id: receipt.id,
        receipt_path: receiptPath,
        ...(values["include-text"] ? { prefix: result.imprint.prefix } : {}),
      });
    } else {
      const e = result.evaluation;
      io.out(`imprint: ${result.imprint_id}\n`);
      io.out(
        `  prefix_sha256: ${result.prefix_sha256}\n  active_set_sha256: ${result.active_set_sha256 ?? "- (no tools)"}\n`,
      );
      io.out(
        `  evaluation (${e.engine}, ${e.model_id}): ${e.scored} scored; expected behaviour without prefix ${e.matched_without_prefix}/${e.scored}, with prefix ${e.matched_with_prefix}/${e.scored}\n`,
      );
      io.out(
        state
          ? `  model state: ${state.prefix_tokens} prefix tokens, ${state.artifact_bytes} bytes (${state.runtime}, ${state.context_size}-token context), ${state.artifact_sha256}\n`
          : "  model state: none (this engine cannot save one; chats evaluate the prefix)\n",
      );
      for (const w of result.warnings) io.out(`warning:${formatError(w).slice(1)}\n`);
      io.out(`  learn receipt: ${receiptPath}\n`);
      io.out(`next: edge chat --with-imprint ${result.imprint_id}${surfaceFlag(values)} --prompt "..."\n`);
    }
    return EXIT_OK;
  } finally {
    await opened.close();
    await engine.unload();
  }
}

async function dryRun(
  sample: LearnSample,
  values: SurfaceValues,
  maxCalls: number | undefined,
  includeText: boolean,
  json: boolean,
  io: CliIO,
): Promise<number> {
  const opened = await openToolSurface(values, (line) => io.err(line));
  try {
    const plan = await planLearn({
      sample,
      toolset: opened.toolset,
      surface: opened.surface,
      ...(maxCalls !== undefined ? { maxCalls } : {}),
      includeText,
    });
    if (json) printJson(io, { ok: true, ...plan });
    else {
      const scored = plan.questions.filter((q) => q.scored);
      io.out(`dry run (no model runs, nothing is written): sample ${plan.sample.sample_id}\n`);
      io.out(`  tools: ${plan.tools.join(", ") || "(none)"}${plan.tool_surface ? ` (${plan.tool_surface})` : ""}\n`);
      io.out(`  prefix: ${plan.prefix_chars} chars, ${plan.prefix_sha256}\n`);
      io.out(
        `  questions: ${plan.questions.length}, scored: ${scored.length} (${scored.map((q) => q.expected_tool ?? "no tool").join(", ") || "-"}); ${plan.generations} model generations\n`,
      );
      io.out(`  corrections: ${plan.corrections.applied.length} applied, ${plan.corrections.skipped.length} skipped\n`);
      for (const w of plan.warnings) io.out(`warning:${formatError(w).slice(1)}\n`);
      if (plan.prefix !== undefined) io.out(`\n${plan.prefix}\n`);
    }
    return EXIT_OK;
  } finally {
    await opened.close();
  }
}
