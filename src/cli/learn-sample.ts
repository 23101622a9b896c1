// `edge learn sample init`: a valid starting learn sample (edge.demo.learn.sample.v1) for the given
// tool surface. The format has no comments and refuses unknown top-level fields, so the guidance
// lives in "note" fields of records and corrections (kept, never rendered into the prefix) and in
// example texts. The sample is parsed and checked before it is written: no warnings against the
// surface it was made for.
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { EdgeError } from "../contract/errors.ts";
import type { ToolSchema } from "../contract/types.ts";
import {
  LEARN_SAMPLE_SCHEMA,
  parseLearnSample,
  sampleWarnings,
  TOOL_SCHEMA_EXPORT_SCHEMA,
  type LearnSample,
} from "../imprint/index.ts";
import { EXIT_OK, printJson, UsageError, type CliIO } from "./io.ts";
import { openToolSurface, SURFACE_OPTIONS, surfaceToolSchemas } from "./tool-surface.ts";

const PEER = "my-demo-peer";
const APP = "com.example.my-app";

/** The starting sample for these active tools (none: a profile-only sample). */
export function starterSample(schemas: readonly ToolSchema[]): LearnSample {
  const tools = schemas.slice(0, 8);
  const value = {
    schema_version: LEARN_SAMPLE_SCHEMA,
    sample_id: "my_sample_v1",
    peer_id: PEER,
    app_id: APP,
    base_model_id: "your-base-model-id",
    question: tools.length ? `A question your users ask that needs ${tools[0]!.name}.` : "A question your users ask.",
    questions: [
      ...tools.map((t) => ({ question: `A question your users ask that needs ${t.name}.`, expected_tool: t.name })),
      { question: "What can you help me with?", expected_tool: null },
    ],
    records: [
      {
        record_id: "style-001",
        kind: "answer_style",
        text: "Answer in one or two short sentences.",
        tags: ["style"],
        note: "One restatable preference, boundary or piece of context per record. kind is a snake_case word; records are grouped by kind in the imprint. Notes are kept, never rendered.",
      },
      {
        record_id: "boundary-001",
        kind: "trust_boundary",
        text: tools.length
          ? "Never guess a value a tool can look up; call the tool and report its result."
          : "Never invent numbers the user did not give.",
        tags: ["boundary"],
        note: "Boundaries the assistant must keep. Facts that change belong in a facts store (edge facts import), not in records.",
      },
    ],
    corrections: [
      {
        peer_id: PEER,
        app_id: APP,
        correction_type: "profile_correction",
        target: { profile_field: "answer_style" },
        correction: { profile_overlay: { priority: "state the tool's result before any explanation" } },
        status: "recorded",
        note: "peer_id and app_id must equal the sample's. A fact_correction (target.fact_id) is learned only when two agreeing corrections of the same fact support it; use profile_correction for one-shot changes.",
      },
    ],
    tool_schema_export: tools.length
      ? {
          schema_version: TOOL_SCHEMA_EXPORT_SCHEMA,
          tools: tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
        }
      : null,
    expected_tool_policy: {
      description: tools.length
        ? "Use the local tools for every question they answer; answer general questions directly."
        : "Answer directly; no tools are available.",
      tools_available: tools.map((t) => ({
        name: t.name,
        when: `The user asks something ${t.name} answers.`,
        args_constraint: "Only values the user gave.",
      })),
      negative_policy: ["Do not call tools that need the network.", "Do not invent values a tool should provide."],
    },
  };
  return parseLearnSample(value);
}

export async function learnSampleInit(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...SURFACE_OPTIONS, output: { type: "string", short: "o" }, json: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length)
    throw new UsageError(`Unexpected argument "${positionals[0]}" (the file goes after --output).`);
  const opened = await openToolSurface(values, (line) => io.err(line));
  await opened.close();
  const active = surfaceToolSchemas(opened);
  const schemas = active ?? [];
  const sample = starterSample(schemas);
  const warnings = sampleWarnings(sample, active ? schemas.map((s) => s.name) : null, null);
  const text = `${JSON.stringify(sample, null, 2)}\n`;
  if (values.output === undefined) {
    io.out(text);
    return EXIT_OK;
  }
  try {
    await writeFile(values.output, text, { flag: "wx" });
  } catch (err) {
    throw new EdgeError(
      "storage_failed",
      { path: values.output, reason: String(err) },
      `Could not write ${values.output}: ${(err as Error).message} (an existing file is never replaced). Pick another output path, or check its folder's permissions.`,
    );
  }
  if (values.json)
    printJson(io, {
      ok: true,
      file: values.output,
      sample_id: sample.sample_id,
      tools: schemas.map((s) => s.name),
      warnings,
    });
  else
    io.out(
      `wrote ${values.output}: a starting sample for ${schemas.length ? schemas.map((s) => s.name).join(", ") : "no tools"}\nnext: edit it, then edge learn sample validate ${values.output}\n`,
    );
  return EXIT_OK;
}
