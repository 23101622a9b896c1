// `edge learn validate|run`: check a learn sample, and learn a Neural Imprint from it in Node with a
// GGUF model (`--model`, llama.cpp) or the scripted engine (web-llm needs WebGPU: learn in the
// browser playground for a web-llm model).
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { EdgeError } from "../contract/errors.ts";
import type { Engine } from "../engines/engine.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import { learn, parseLearnSampleText, sampleWarnings, summarizeSample, type LearnSample } from "../imprint/index.ts";
import { createNodeImprintStore } from "../imprint/node-store.ts";
import { createNodeRunnerHost, fileSource } from "../runner/node.ts";
import { createNodeReceiptStore } from "../store/node-receipts.ts";
import { activeSchemas, freezeToolset } from "../toolset/freeze.ts";
import { readScript } from "./chat.ts";
import { EXIT_OK, formatError, printJson, UsageError, type CliIO } from "./io.ts";
import { engineKind, loadModelEngine, maxTokensOf, MODEL_OPTIONS } from "./model.ts";

export async function learnCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "validate":
      return validateSample(rest, io);
    case "run":
      return run(rest, io);
    default:
      throw new UsageError(sub ? `Unknown subcommand "learn ${sub}".` : "Missing subcommand: learn validate|run.");
  }
}

export async function readSampleFile(file: string): Promise<LearnSample> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new EdgeError("invalid_learn_sample", { field: "(file)", path: file }, `Invalid learn sample: ${file} could not be read (${(err as Error).message}).`);
  }
  return parseLearnSampleText(text);
}

async function validateSample(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { tools: { type: "string" }, tool: { type: "string", multiple: true }, "tool-tag": { type: "string", multiple: true }, json: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError("learn validate takes exactly one FILE.");
  if ((values.tool || values["tool-tag"]) && !values.tools) throw new UsageError("--tool / --tool-tag must be used with --tools.");
  const sample = await readSampleFile(positionals[0]!);
  let active: string[] | null = null;
  if (values.tools) {
    const host = createNodeRunnerHost({ spares: 0 });
    try {
      const toolset = await freezeToolset(fileSource(values.tools), host, { tool: values.tool, toolTag: values["tool-tag"] });
      active = activeSchemas(toolset).map((s) => s.name);
    } finally {
      await host.close();
    }
  }
  const summary = await summarizeSample(sample);
  const warnings = sampleWarnings(sample, active, null);
  if (values.json) printJson(io, { ok: true, status: "valid", sample_id: sample.sample_id, sample: summary, warnings, warning_count: warnings.length });
  else {
    io.out(`valid: ${positionals[0]}\n`);
    io.out(`  sample ${summary.sample_id}: ${summary.record_count} records (${summary.record_kinds.join(", ") || "-"}), ${summary.correction_count} corrections, ${summary.question_count} questions (${summary.scored_question_count} scored)\n`);
    io.out(`  sample_sha256: ${summary.sample_sha256}\n`);
    for (const w of warnings) io.out(`warning:${formatError(w).slice(1)}\n`);
  }
  return EXIT_OK;
}

async function run(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      "sample-file": { type: "string" },
      tools: { type: "string" },
      tool: { type: "string", multiple: true },
      "tool-tag": { type: "string", multiple: true },
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
  if ((values.tool || values["tool-tag"]) && !values.tools) throw new UsageError("--tool / --tool-tag must be used with --tools.");
  let maxCalls: number | undefined;
  if (values["max-calls"] !== undefined) {
    maxCalls = Number(values["max-calls"]);
    if (!Number.isInteger(maxCalls) || maxCalls < 0) throw new UsageError("--max-calls must be an integer ≥ 0.");
  }
  const sample = await readSampleFile(values["sample-file"]);
  const kind = engineKind(values);
  if (kind === "webllm") {
    throw new EdgeError("webgpu_unavailable", {}, "The web-llm engine needs WebGPU, which Node does not have: learn with a GGUF model here (--model FILE.gguf), in the browser playground, or with --engine scripted --script OUTPUTS.json.");
  }
  if (kind !== "scripted" && kind !== "llamacpp") throw new UsageError(`Unknown engine "${kind}" (use llamacpp with --model, webllm or scripted).`);
  if (kind === "scripted" && !values.script && !values["no-evaluate"]) {
    throw new UsageError("--engine scripted needs --script OUTPUTS.json: for each scored question, the output without the imprint prefix, then the output with it (or pass --no-evaluate).");
  }
  let engine: Engine;
  if (kind === "llamacpp") engine = await loadModelEngine(values, io, values.json === true);
  else {
    engine = new ScriptedEngine(values.script ? await readScript(values.script) : []);
    await engine.load();
  }

  const host = createNodeRunnerHost({ spares: 0 });
  try {
    const toolset = values.tools ? await freezeToolset(fileSource(values.tools), host, { tool: values.tool, toolTag: values["tool-tag"] }) : null;
    const result = await learn({
      sample,
      toolset,
      engine,
      store: createNodeImprintStore(),
      receipts: createNodeReceiptStore(),
      evaluate: values["no-evaluate"] !== true,
      ...(maxCalls !== undefined ? { maxCalls } : {}),
      ...(maxTokensOf(values) !== undefined ? { maxTokens: maxTokensOf(values) } : {}),
    });
    if (values.json) {
      printJson(io, {
        ok: true,
        imprint_id: result.imprint_id,
        prefix_sha256: result.prefix_sha256,
        active_set_sha256: result.active_set_sha256,
        evaluation: result.evaluation,
        warnings: result.warnings,
      });
    } else {
      const e = result.evaluation;
      io.out(`imprint: ${result.imprint_id}\n`);
      io.out(`  prefix_sha256: ${result.prefix_sha256}\n  active_set_sha256: ${result.active_set_sha256 ?? "- (no tools)"}\n`);
      io.out(`  evaluation (${e.engine}, ${e.model_id}): ${e.scored} scored; expected behaviour without prefix ${e.matched_without_prefix}/${e.scored}, with prefix ${e.matched_with_prefix}/${e.scored}\n`);
      for (const w of result.warnings) io.out(`warning:${formatError(w).slice(1)}\n`);
      io.out(`next: edge chat --with-imprint ${result.imprint_id}${values.tools ? ` --tools ${values.tools}` : ""} --prompt "..."\n`);
    }
    return EXIT_OK;
  } finally {
    await host.close();
    await engine.unload();
  }
}

