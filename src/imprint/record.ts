// The imprint record: what `learn` stores and `restore` checks. Sealed with imprint_sha256 =
// sha256(JCS(record without imprint_sha256)), so an edited or damaged record (also one imported
// from a file) is refused with imprint_corrupted before anything in it is trusted.
import { EdgeError } from "../contract/errors.ts";
import { EDGE_RUNTIME_VERSION } from "../contract/version.ts";
import { isSha256, sha256Json, sha256Text, type Sha256 } from "../contract/hash.ts";
import type { ErrorJson } from "../contract/errors.ts";
import type { ModelFingerprint } from "../engines/engine.ts";
import { TOOL_CONTRACT_VERSION } from "../chat/contract.ts";
import { IMPRINT_PREFIX_VERSION } from "./prefix.ts";
import { isImprintState, type ImprintState } from "./state.ts";

export const IMPRINT_VERSION = "edge.imprint.v1";
export { EDGE_RUNTIME_VERSION };
const ID_RE = /^imp_[0-9a-f]{24}$/;

export interface ImprintEvaluationItem {
  question_sha256: Sha256;
  expected_tool: string | null;
  /** What the output parsed to without / with the prefix: a tool name, "answer", "invalid" or "error:<code>". */
  without_prefix: string;
  with_prefix: string;
  matched_without: boolean;
  matched_with: boolean;
}

export interface ImprintEvaluation {
  /** How the evaluation ran: "engine" (the learning engine answered), "skipped" (no scored question). */
  mode: "engine" | "skipped";
  engine: string;
  model_id: string;
  question_count: number;
  /** Questions with an expectation (expected_tool given, null meaning "no call"). */
  scored: number;
  matched_without_prefix: number;
  matched_with_prefix: number;
  items: ImprintEvaluationItem[];
  /** Milliseconds of the prefix-only prefill pass before the questions (web-llm); null when the
   *  engine has no prefill to warm (scripted). */
  prefill_ms: number | null;
}

/** Where an imprint's tools came from; chat must restore it with the same kind of surface. */
export type ImprintSurface = "tools_file" | "facts_store" | "tools_manifest";

export interface ImprintTools {
  /** Absent in imprints learned before facts surfaces could be learned: a tools file. */
  surface?: ImprintSurface;
  schema_generator_version: string;
  active_set_sha256: Sha256;
  /** Tool name → schema_sha256 (sha256(JCS(schema))). */
  tool_schema_sha256: Record<string, Sha256>;
  /** Informational only: a function-body edit changes it and must still restore. */
  tools_file_sha256: Sha256 | null;
  /** A manifest surface's file hash (informational, like tools_file_sha256). */
  tools_manifest_sha256?: Sha256;
  /** A facts_store surface's store. */
  facts_store?: string;
}

export interface ImprintRecordBody {
  imprint_version: typeof IMPRINT_VERSION;
  id: string;
  created_at: string;
  runtime: { edge: string; imprint_prefix: string; tool_contract: string };
  model: { engine: string; model_id: string; fingerprint: ModelFingerprint | null };
  sample: {
    sample_id: string;
    peer_id: string;
    app_id: string;
    base_model_id: string;
    sample_sha256: Sha256;
    record_count: number;
    correction_count: number;
    question_count: number;
  };
  /** null when learned without tools. */
  tools: ImprintTools | null;
  max_calls: number;
  prefix: string;
  prefix_sha256: Sha256;
  evaluation: ImprintEvaluation;
  warnings: ErrorJson[];
  learn_receipt_id: string | null;
  /** The saved model state of the prefix (a file beside the record), bound by sha256 to the model
   *  file, runtime, context size and tokens. Absent or null: the engine could not save one (scripted,
   *  web-llm, the browser's llama.cpp) or the imprint predates it; restore evaluates the prefix. */
  state?: ImprintState | null;
}

export interface Imprint extends ImprintRecordBody {
  imprint_sha256: Sha256;
}

export interface ImprintListing {
  id: string;
  created_at: string | null;
  model_id: string | null;
  sample_id: string | null;
  tools: string[] | null;
  corrupted: boolean;
}

export const runtimeInfo = (): ImprintRecordBody["runtime"] => ({
  edge: EDGE_RUNTIME_VERSION,
  imprint_prefix: IMPRINT_PREFIX_VERSION,
  tool_contract: TOOL_CONTRACT_VERSION,
});

export function isImprintId(id: unknown): id is string {
  return typeof id === "string" && ID_RE.test(id);
}

export async function sealImprint(body: ImprintRecordBody): Promise<Imprint> {
  const { imprint_sha256: _drop, ...rest } = body as ImprintRecordBody & { imprint_sha256?: unknown };
  return { ...rest, imprint_sha256: await sha256Json(rest) };
}

function corrupted(reason: string, id: unknown): never {
  throw new EdgeError("imprint_corrupted", { reason, id: typeof id === "string" ? id : null }, `The imprint ${typeof id === "string" ? id + " " : ""}is corrupted (${reason}); it was not used. Delete it and learn or import it again.`);
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Check a stored or imported value is an intact imprint: the shape the gate reads, the prefix hash,
 * and the seal over everything. Throws imprint_corrupted; returns the typed record.
 */
export async function verifyImprint(value: unknown): Promise<Imprint> {
  if (!isObj(value)) corrupted("not a JSON object", undefined);
  const id = value["id"];
  if (value["imprint_version"] !== IMPRINT_VERSION) corrupted(`imprint_version is not ${IMPRINT_VERSION}`, id);
  if (!isImprintId(id)) corrupted("id is not an imprint id", id);
  if (!isSha256(value["imprint_sha256"])) corrupted("imprint_sha256 is missing", id);
  const { imprint_sha256: claimed, ...rest } = value;
  let actual: Sha256;
  try {
    actual = await sha256Json(rest);
  } catch {
    corrupted("not canonical JSON", id);
  }
  if (actual !== claimed) corrupted("imprint_sha256 does not match the record", id);
  // The seal holds; now the fields the gate relies on must have the right types (a record sealed by
  // a buggy writer is still unusable).
  const model = value["model"];
  if (!isObj(model) || typeof model["model_id"] !== "string" || typeof model["engine"] !== "string") corrupted("model is malformed", id);
  if (typeof value["prefix"] !== "string" || !isSha256(value["prefix_sha256"])) corrupted("prefix is malformed", id);
  if ((await sha256Text(value["prefix"])) !== value["prefix_sha256"]) corrupted("prefix_sha256 does not match the prefix", id);
  const tools = value["tools"];
  if (tools !== null) {
    if (!isObj(tools) || !isSha256(tools["active_set_sha256"]) || typeof tools["schema_generator_version"] !== "string" || !isObj(tools["tool_schema_sha256"])) {
      corrupted("tools is malformed", id);
    }
    if (!Object.values(tools["tool_schema_sha256"] as Record<string, unknown>).every(isSha256)) corrupted("tool_schema_sha256 is malformed", id);
  }
  if (typeof value["max_calls"] !== "number") corrupted("max_calls is malformed", id);
  if (value["state"] !== undefined && value["state"] !== null && !isImprintState(value["state"])) corrupted("state is malformed", id);
  if (isImprintState(value["state"]) && value["state"].prefix_sha256 !== value["prefix_sha256"]) corrupted("state is bound to another prefix", id);
  return value as unknown as Imprint;
}

/** An imprint file's JSON, or imprint_corrupted (not_json). */
export function parseImprintJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new EdgeError("imprint_corrupted", { reason: "not_json" }, `The imprint file is not JSON (${(err as Error).message}); it was not imported.`);
  }
}

/** Parse an exported imprint file's text (import). */
export async function parseImprintText(text: string): Promise<Imprint> {
  return verifyImprint(parseImprintJson(text));
}

/** A listing row for any stored value (corrupted ones included, so the user can delete them). */
export async function listingOf(value: unknown, fallbackId: string): Promise<ImprintListing> {
  try {
    const imp = await verifyImprint(value);
    return {
      id: imp.id,
      created_at: imp.created_at,
      model_id: imp.model.model_id,
      sample_id: imp.sample?.sample_id ?? null,
      tools: imp.tools ? Object.keys(imp.tools.tool_schema_sha256).sort() : null,
      corrupted: false,
    };
  } catch {
    const v = isObj(value) ? value : {};
    return {
      id: typeof v["id"] === "string" ? v["id"] : fallbackId,
      created_at: typeof v["created_at"] === "string" ? v["created_at"] : null,
      model_id: null,
      sample_id: null,
      tools: null,
      corrupted: true,
    };
  }
}
