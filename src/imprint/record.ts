// The imprint record: what `learn` stores and `restore` checks. Sealed with imprint_sha256 =
// sha256(JCS(record without imprint_sha256)), so an edited or damaged record (also one imported
// from a file) is refused with imprint_corrupted before anything in it is trusted.
import { EdgeError } from "../contract/errors.ts";
import { EDGE_RUNTIME_VERSION } from "../contract/version.ts";
import { isObj } from "../contract/types.ts";
import { isSha256, sha256Json, sha256Text, type Sha256 } from "../contract/hash.ts";
import type {
  Imprint,
  ImprintEvaluation,
  ImprintEvaluationItem,
  ImprintRecordBody,
  ImprintTools,
} from "../idb/records.ts";
import { TOOL_CONTRACT_VERSION } from "../chat/contract.ts";
import { IMPRINT_PREFIX_VERSION } from "./prefix.ts";
import { isImprintState } from "./state.ts";

// The imprint record is declared with the IndexedDB schema's other records (idb/records.ts).
export type { Imprint, ImprintEvaluation, ImprintEvaluationItem, ImprintRecordBody, ImprintTools };

const IMPRINT_VERSION: ImprintRecordBody["imprint_version"] = "edge.imprint.v1";
export { EDGE_RUNTIME_VERSION };
const ID_RE = /^imp_[0-9a-f]{24}$/;

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
  throw new EdgeError(
    "imprint_corrupted",
    { reason, id: typeof id === "string" ? id : null },
    `The imprint ${typeof id === "string" ? id + " " : ""}is corrupted (${reason}); it was not used. Delete it and learn or import it again.`,
  );
}

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
  if (!isObj(model) || typeof model["model_id"] !== "string" || typeof model["engine"] !== "string")
    corrupted("model is malformed", id);
  if (typeof value["prefix"] !== "string" || !isSha256(value["prefix_sha256"])) corrupted("prefix is malformed", id);
  if ((await sha256Text(value["prefix"])) !== value["prefix_sha256"])
    corrupted("prefix_sha256 does not match the prefix", id);
  const tools = value["tools"];
  if (tools !== null) {
    if (
      !isObj(tools) ||
      !isSha256(tools["active_set_sha256"]) ||
      typeof tools["schema_generator_version"] !== "string" ||
      !isObj(tools["tool_schema_sha256"])
    ) {
      corrupted("tools is malformed", id);
    }
    if (!Object.values(tools["tool_schema_sha256"] as Record<string, unknown>).every(isSha256))
      corrupted("tool_schema_sha256 is malformed", id);
  }
  if (typeof value["max_calls"] !== "number") corrupted("max_calls is malformed", id);
  if (value["state"] !== undefined && value["state"] !== null && !isImprintState(value["state"]))
    corrupted("state is malformed", id);
  if (isImprintState(value["state"]) && value["state"].prefix_sha256 !== value["prefix_sha256"])
    corrupted("state is bound to another prefix", id);
  // eslint-disable-next-line no-restricted-syntax -- each field the gate reads was checked above, and the seal covers the rest
  return value as unknown as Imprint;
}

/** An imprint file's JSON, or imprint_corrupted (not_json). */
export function parseImprintJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new EdgeError(
      "imprint_corrupted",
      { reason: "not_json" },
      `The imprint file is not JSON (${(err as Error).message}); it was not imported. Export the imprint again from the store that wrote it.`,
    );
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
