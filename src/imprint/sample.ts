// The learn sample (docs/contract.md §7): `edge.demo.learn.sample.v1`, the same JSON file Edge Studio's
// `edge demo learn run --sample-file` reads. Parsing is strict where the format is fixed (unknown
// top-level fields, missing or mistyped fields → invalid_learn_sample, naming the field) and keeps
// what it does not interpret inside records/corrections untouched. Pure: no DOM, no Node. What
// learning reads from a parsed sample (its questions, the corrections rule, warnings) is sample-rules.ts.
import { EdgeError } from "../contract/errors.ts";
import { isObj, type JsonObject, type JsonValue } from "../contract/types.ts";

export const LEARN_SAMPLE_SCHEMA = "edge.demo.learn.sample.v1";
export const TOOL_SCHEMA_EXPORT_SCHEMA = "edgestudio.tool_schema_export.v1";
/** 1 MiB: a sample is a handful of records, not a data set. */
const MAX_SAMPLE_BYTES = 1024 * 1024;

/** One profile record: one restatable fact, preference or boundary. `kind` is a free snake_case string. */
export interface LearnRecord {
  record_id?: string;
  kind: string;
  text: string;
  tags?: string[];
  [extra: string]: JsonValue | undefined;
}

export type CorrectionType = "eval_feedback" | "fact_correction" | "profile_correction";
const CORRECTION_TYPES: readonly CorrectionType[] = ["eval_feedback", "fact_correction", "profile_correction"];

export interface LearnCorrection {
  /** Must equal the sample's peer_id (Edge Studio fails closed on a mismatch, so do we). */
  peer_id: string;
  app_id?: string;
  correction_type: CorrectionType;
  target: JsonObject;
  correction?: JsonObject;
  status?: string;
  [extra: string]: JsonValue | undefined;
}

/** A question the evaluation asks. A plain string is asked but not scored. */
export interface LearnQuestion {
  question: string;
  /** The tool the model should call; `null` = it should answer without a tool; absent = not scored. */
  expected_tool?: string | null;
  /** When given, the call's arguments must equal these (canonical JSON) to count. */
  expected_arguments?: JsonObject;
}

export interface ExportedTool {
  name: string;
  description?: string;
  parameters?: JsonObject;
  [extra: string]: JsonValue | undefined;
}

export interface ToolSchemaExport {
  schema_version?: string;
  tools: ExportedTool[];
  [extra: string]: JsonValue | ExportedTool[] | undefined;
}

export interface PolicyTool {
  name: string;
  when?: string;
  args_constraint?: string;
}

export interface ExpectedToolPolicy {
  description?: string;
  tools_available?: PolicyTool[];
  negative_policy?: string[];
}

export interface LearnSample {
  schema_version: typeof LEARN_SAMPLE_SCHEMA;
  sample_id: string;
  peer_id: string;
  app_id: string;
  base_model_id: string;
  question: string;
  questions: Array<string | LearnQuestion>;
  records: LearnRecord[];
  corrections: LearnCorrection[];
  tool_schema_export: ToolSchemaExport | null;
  expected_tool_policy: ExpectedToolPolicy | null;
}

const TOP_LEVEL = [
  "schema_version",
  "sample_id",
  "peer_id",
  "app_id",
  "base_model_id",
  "question",
  "questions",
  "records",
  "corrections",
  "tool_schema_export",
  "expected_tool_policy",
] as const;
const REQUIRED = ["schema_version", "sample_id", "peer_id", "app_id", "base_model_id", "question", "records"] as const;
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;
const KIND_RE = /^[a-z][a-z0-9_]{0,63}$/;
const TOOL_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

function bad(field: string, reason: string): never {
  throw new EdgeError("invalid_learn_sample", { field, reason }, `Invalid learn sample: ${field} ${reason}.`);
}

function str(value: unknown, field: string, opts: { nonEmpty?: boolean; re?: RegExp; max?: number } = {}): string {
  if (typeof value !== "string") bad(field, "must be a string");
  if ((opts.nonEmpty ?? true) && value.trim() === "") bad(field, "must not be empty");
  if (opts.max !== undefined && value.length > opts.max) bad(field, `is longer than ${opts.max} characters`);
  if (opts.re && !opts.re.test(value)) bad(field, `must match ${opts.re.source}`);
  return value;
}

function optStr(obj: Record<string, unknown>, key: string, field: string): string | undefined {
  return obj[key] === undefined ? undefined : str(obj[key], `${field}.${key}`, { nonEmpty: false, max: 8192 });
}

function strList(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) bad(field, "must be an array of strings");
  return value.map((v, i) => str(v, `${field}[${i}]`, { max: 8192 }));
}

function jsonObject(value: unknown, field: string): JsonObject {
  if (!isObj(value)) bad(field, "must be a JSON object");
  return value as JsonObject;
}

/** Parse sample text (a file's content) into a validated sample. Throws invalid_learn_sample. */
export function parseLearnSampleText(text: string): LearnSample {
  if (text.length > MAX_SAMPLE_BYTES) bad("(file)", `is larger than ${MAX_SAMPLE_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    bad("(file)", `is not JSON (${(err as Error).message})`);
  }
  return parseLearnSample(value);
}

/** Validate an already parsed JSON value: the top level, then each section in file order. */
export function parseLearnSample(value: unknown): LearnSample {
  if (!isObj(value)) bad("(top level)", "must be a JSON object");
  const unknown = Object.keys(value).filter((k) => !(TOP_LEVEL as readonly string[]).includes(k));
  if (unknown.length) {
    throw new EdgeError(
      "invalid_learn_sample",
      { field: unknown[0], unknown_fields: unknown, reason: "unknown_field" },
      `Invalid learn sample: unknown top-level field${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")}. Translate app data into records and corrections; the top level takes only ${TOP_LEVEL.join(", ")}.`,
    );
  }
  for (const key of REQUIRED) if (value[key] === undefined) bad(key, "is missing");
  if (value.schema_version !== LEARN_SAMPLE_SCHEMA) bad("schema_version", `must be "${LEARN_SAMPLE_SCHEMA}"`);
  const sample_id = str(value.sample_id, "sample_id", { re: ID_RE });
  const peer_id = str(value.peer_id, "peer_id", { re: ID_RE });
  const app_id = str(value.app_id, "app_id", { re: ID_RE });
  const base_model_id = str(value.base_model_id, "base_model_id", { max: 256 });
  const question = str(value.question, "question", { max: 8192 });
  return {
    schema_version: LEARN_SAMPLE_SCHEMA,
    sample_id,
    peer_id,
    app_id,
    base_model_id,
    question,
    questions: parseQuestions(value.questions),
    records: parseRecords(value.records),
    corrections: parseCorrections(value.corrections, peer_id, app_id),
    tool_schema_export:
      value.tool_schema_export === undefined || value.tool_schema_export === null
        ? null
        : parseToolSchemaExport(value.tool_schema_export),
    expected_tool_policy:
      value.expected_tool_policy === undefined || value.expected_tool_policy === null
        ? null
        : parseToolPolicy(value.expected_tool_policy),
  };
}

function parseRecords(value: unknown): LearnRecord[] {
  if (!Array.isArray(value)) bad("records", "must be an array");
  const seenIds = new Set<string>();
  return value.map((r, i): LearnRecord => {
    const f = `records[${i}]`;
    if (!isObj(r)) bad(f, "must be an object {kind, text, record_id?, tags?}");
    const kind = str(r.kind, `${f}.kind`, { re: KIND_RE });
    const text = str(r.text, `${f}.text`, { max: 8192 });
    const out: LearnRecord = { ...(r as JsonObject), kind, text };
    if (r.record_id !== undefined) {
      const id = str(r.record_id, `${f}.record_id`, { re: ID_RE });
      if (seenIds.has(id)) bad(`${f}.record_id`, `repeats "${id}"; record ids must be unique`);
      seenIds.add(id);
    }
    if (r.tags !== undefined) out.tags = strList(r.tags, `${f}.tags`);
    return out;
  });
}

function parseCorrections(value: unknown, peer_id: string, app_id: string): LearnCorrection[] {
  const corrections = value === undefined ? [] : value;
  if (!Array.isArray(corrections)) bad("corrections", "must be an array");
  return corrections.map((c, i): LearnCorrection => {
    const f = `corrections[${i}]`;
    if (!isObj(c)) bad(f, "must be an object");
    const cPeer = str(c.peer_id, `${f}.peer_id`);
    if (cPeer !== peer_id)
      bad(`${f}.peer_id`, `is "${cPeer}" but the sample's peer_id is "${peer_id}"; they must match`);
    if (c.app_id !== undefined && str(c.app_id, `${f}.app_id`) !== app_id)
      bad(`${f}.app_id`, `must match the sample's app_id "${app_id}"`);
    const type = str(c.correction_type, `${f}.correction_type`);
    if (!(CORRECTION_TYPES as readonly string[]).includes(type))
      bad(`${f}.correction_type`, `must be one of ${CORRECTION_TYPES.join(", ")}`);
    const target = jsonObject(c.target, `${f}.target`);
    const correction = c.correction === undefined ? undefined : jsonObject(c.correction, `${f}.correction`);
    if (type === "eval_feedback") {
      const rating = correction?.["rating"];
      if (rating !== "positive" && rating !== "negative" && rating !== "neutral")
        bad(`${f}.correction.rating`, "must be positive, negative or neutral for eval_feedback");
    } else if (type === "fact_correction") {
      if (typeof target["fact_id"] !== "string") bad(`${f}.target.fact_id`, "is required for fact_correction");
    } else if (typeof target["profile_field"] !== "string" && typeof target["direction_id"] !== "string") {
      bad(`${f}.target`, "needs profile_field or direction_id for profile_correction");
    }
    if (c.status !== undefined) str(c.status, `${f}.status`);
    return {
      ...(c as JsonObject),
      peer_id: cPeer,
      correction_type: type as CorrectionType,
      target,
      ...(correction ? { correction } : {}),
    };
  });
}

function parseQuestions(value: unknown): Array<string | LearnQuestion> {
  const rawQuestions = value === undefined ? [] : value;
  if (!Array.isArray(rawQuestions))
    bad("questions", "must be an array of strings or {question, expected_tool?, expected_arguments?}");
  return rawQuestions.map((q, i): string | LearnQuestion => {
    const f = `questions[${i}]`;
    if (typeof q === "string") return str(q, f, { max: 8192 });
    if (!isObj(q)) bad(f, "must be a string or {question, expected_tool?, expected_arguments?}");
    const extra = Object.keys(q).filter((k) => !["question", "expected_tool", "expected_arguments"].includes(k));
    if (extra.length) bad(`${f}.${extra[0]}`, "is not a question field (question, expected_tool, expected_arguments)");
    const out: LearnQuestion = { question: str(q.question, `${f}.question`, { max: 8192 }) };
    if (q.expected_tool !== undefined)
      out.expected_tool =
        q.expected_tool === null ? null : str(q.expected_tool, `${f}.expected_tool`, { re: TOOL_NAME_RE });
    if (q.expected_arguments !== undefined) {
      if (typeof out.expected_tool !== "string") bad(`${f}.expected_arguments`, "needs expected_tool to name a tool");
      out.expected_arguments = jsonObject(q.expected_arguments, `${f}.expected_arguments`);
    }
    return out;
  });
}

function parseToolSchemaExport(value: unknown): ToolSchemaExport {
  const e = jsonObject(value, "tool_schema_export");
  if (e["schema_version"] !== undefined && e["schema_version"] !== TOOL_SCHEMA_EXPORT_SCHEMA) {
    bad("tool_schema_export.schema_version", `must be "${TOOL_SCHEMA_EXPORT_SCHEMA}"`);
  }
  if (!Array.isArray(e["tools"])) bad("tool_schema_export.tools", "must be an array");
  const tools = e["tools"].map((t, i): ExportedTool => {
    const f = `tool_schema_export.tools[${i}]`;
    if (!isObj(t)) bad(f, "must be an object");
    const name = str(t.name, `${f}.name`, { re: TOOL_NAME_RE });
    if (t.description !== undefined) str(t.description, `${f}.description`, { nonEmpty: false });
    if (t.parameters !== undefined) jsonObject(t.parameters, `${f}.parameters`);
    return { ...(t as JsonObject), name };
  });
  return { ...e, tools };
}

function parseToolPolicy(value: unknown): ExpectedToolPolicy {
  const p = jsonObject(value, "expected_tool_policy");
  const extra = Object.keys(p).filter((k) => !["description", "tools_available", "negative_policy"].includes(k));
  if (extra.length)
    bad(`expected_tool_policy.${extra[0]}`, "is not a policy field (description, tools_available, negative_policy)");
  const policy: ExpectedToolPolicy = {};
  const description = optStr(p, "description", "expected_tool_policy");
  if (description !== undefined) policy.description = description;
  if (p["tools_available"] !== undefined) {
    if (!Array.isArray(p["tools_available"])) bad("expected_tool_policy.tools_available", "must be an array");
    policy.tools_available = p["tools_available"].map((t, i): PolicyTool => {
      const f = `expected_tool_policy.tools_available[${i}]`;
      if (!isObj(t)) bad(f, "must be an object {name, when?, args_constraint?}");
      const out: PolicyTool = { name: str(t.name, `${f}.name`, { re: TOOL_NAME_RE }) };
      const when = optStr(t, "when", f);
      const args = optStr(t, "args_constraint", f);
      if (when !== undefined) out.when = when;
      if (args !== undefined) out.args_constraint = args;
      return out;
    });
  }
  if (p["negative_policy"] !== undefined)
    policy.negative_policy = strList(p["negative_policy"], "expected_tool_policy.negative_policy");
  return policy;
}
