// Tool manifests `edge.demo.tools.manifest.v1` (docs/contract.md §8): a developer-owned name for the
// built-in local facts lookup, with no code of theirs running. Validation reports every problem
// with the table's codes (a bad name is invalid_tool_name, a repeated one duplicate_tool_name);
// tools_manifest_sha256 is the sha256 of the file's raw bytes. No DOM, no Node.
import { errorJson, type ErrorJson } from "../contract/errors.ts";
import { activeSetSha256, sha256Bytes, type Sha256 } from "../contract/hash.ts";
import { ACTIVE_TOOL_LIMIT, isObj, type ToolSchema } from "../contract/types.ts";
import { TOOL_NAME_RE } from "../runtime/define.ts";
import { STORE_NAME_RE } from "./format.ts";
import { FACTS_LOOKUP_KIND, FACTS_LOOKUP_VERSION, lookupSchema } from "./lookup.ts";

export const TOOLS_MANIFEST_VERSION = "edge.demo.tools.manifest.v1";
const MANIFEST_MAX_BYTES = 256 * 1024;
const DESCRIPTION_MAX = 2000;

export interface ManifestTool {
  name: string;
  kind: typeof FACTS_LOOKUP_KIND;
  store: string;
  description: string;
}

export interface ToolsManifest {
  schema_version: typeof TOOLS_MANIFEST_VERSION;
  tools: ManifestTool[];
}

export interface ManifestReport {
  ok: boolean;
  kind: "tools_manifest";
  tools_manifest_sha256: Sha256;
  schema_generator_version: string;
  /** Set when valid: sha256 of the lookups' schemas sorted by name. */
  active_set_sha256: Sha256 | null;
  tool_count: number;
  tools: { name: string; kind: string; store: string }[];
  errors: ErrorJson[];
  warnings: ErrorJson[];
  /** The parsed manifest when ok. */
  manifest?: ToolsManifest;
}

const TOP_KEYS = new Set(["schema_version", "tools"]);
const TOOL_KEYS = new Set(["name", "kind", "store", "description"]);

/** Adds an invalid_tools_manifest problem; every problem of a manifest is reported, not the first. */
type Bad = (message: string, extra?: Record<string, unknown>) => void;

export async function validateToolsManifest(raw: string | Uint8Array): Promise<ManifestReport> {
  const bytes = typeof raw === "string" ? new TextEncoder().encode(raw) : raw;
  const sha = await sha256Bytes(bytes);
  const errors: ErrorJson[] = [];
  const report = (
    tools: ManifestReport["tools"],
    manifest?: ToolsManifest,
    active: Sha256 | null = null,
  ): ManifestReport => ({
    ok: errors.length === 0,
    kind: "tools_manifest",
    tools_manifest_sha256: sha,
    schema_generator_version: FACTS_LOOKUP_VERSION,
    active_set_sha256: errors.length ? null : active,
    tool_count: tools.length,
    tools,
    errors,
    warnings: [],
    ...(errors.length === 0 && manifest ? { manifest } : {}),
  });
  const bad: Bad = (message, extra = {}) => {
    errors.push(errorJson("invalid_tools_manifest", { message: `Invalid tools manifest: ${message}.`, ...extra }));
  };

  const top = parseManifest(bytes, bad);
  if (!top) return report([]);
  if (top["schema_version"] !== TOOLS_MANIFEST_VERSION)
    bad(`schema_version must be "${TOOLS_MANIFEST_VERSION}", found ${JSON.stringify(top["schema_version"] ?? null)}`);
  for (const key of Object.keys(top))
    if (!TOP_KEYS.has(key)) bad(`unknown top-level field "${key}" (allowed: schema_version, tools)`);
  const list = top["tools"];
  if (!Array.isArray(list) || list.length === 0) {
    bad("tools must be a non-empty array");
    return report([]);
  }
  const tools: ManifestTool[] = [];
  const seen = new Set<string>();
  list.forEach((item: unknown, i) => {
    const tool = checkTool(item, `tools[${i}]`, seen, errors, bad);
    if (tool) tools.push(tool);
  });
  if (list.length > ACTIVE_TOOL_LIMIT) {
    errors.push(
      errorJson("active_tool_limit_exceeded", {
        message: `The manifest declares ${list.length} tools; at most ${ACTIVE_TOOL_LIMIT} can be active.`,
        count: list.length,
      }),
    );
  }
  const summary = tools.map((t) => ({ name: t.name, kind: t.kind, store: t.store }));
  if (errors.length) return report(summary);
  const manifest: ToolsManifest = { schema_version: TOOLS_MANIFEST_VERSION, tools };
  return report(summary, manifest, await activeSetSha256(manifestSchemas(manifest)));
}

/** The manifest's top-level object, or undefined once `bad` heard why there is none (too large,
 *  not UTF-8 JSON, not an object). A leading BOM is allowed. */
function parseManifest(bytes: Uint8Array, bad: Bad): Record<string, unknown> | undefined {
  if (bytes.byteLength > MANIFEST_MAX_BYTES) {
    bad(`the file is ${bytes.byteLength} bytes; at most ${MANIFEST_MAX_BYTES}`);
    return undefined;
  }
  let value: unknown;
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    bad(`not valid UTF-8 JSON: ${(err as Error).message}`);
    return undefined;
  }
  if (!isObj(value)) {
    bad("the top level must be a JSON object");
    return undefined;
  }
  return value;
}

/** One entry of `tools` (`at` names it in messages), every field checked and each problem
 *  reported; the tool when it has none. A valid name is added to `seen`, so a later entry with
 *  the same name is a duplicate_tool_name. */
function checkTool(
  item: unknown,
  at: string,
  seen: Set<string>,
  errors: ErrorJson[],
  bad: Bad,
): ManifestTool | undefined {
  if (!isObj(item)) {
    bad(`${at} must be an object`);
    return undefined;
  }
  const t = item;
  const name = t["name"];
  const toolName = typeof name === "string" ? name : undefined;
  for (const key of Object.keys(t))
    if (!TOOL_KEYS.has(key))
      bad(`${at} has an unknown field "${key}" (allowed: name, kind, store, description)`, { tool: toolName });
  let ok = true;
  if (typeof name !== "string" || !TOOL_NAME_RE.test(name)) {
    errors.push(
      errorJson("invalid_tool_name", {
        message: `${at}: tool name ${JSON.stringify(name ?? null)} must match [A-Za-z_][A-Za-z0-9_]{0,63}.`,
        tool: toolName,
      }),
    );
    ok = false;
  } else if (seen.has(name)) {
    errors.push(
      errorJson("duplicate_tool_name", {
        message: `${at}: two manifest tools are named "${name}"; names are unique.`,
        tool: name,
      }),
    );
    ok = false;
  } else seen.add(name);
  if (t["kind"] !== FACTS_LOOKUP_KIND) {
    bad(
      `${at}: kind ${JSON.stringify(t["kind"] ?? null)} is not supported; a manifest only names built-in "${FACTS_LOOKUP_KIND}" tools (Python tools come from a tools.py, not a manifest)`,
      { tool: toolName },
    );
    ok = false;
  }
  if (typeof t["store"] !== "string" || !STORE_NAME_RE.test(t["store"])) {
    bad(`${at}: store must be a facts store name of 1–64 characters [A-Za-z0-9_.-], not starting with a dot`, {
      tool: toolName,
    });
    ok = false;
  }
  const description = t["description"];
  if (typeof description !== "string" || description.trim() === "" || description.length > DESCRIPTION_MAX) {
    bad(
      `${at}: description must be a non-empty string of at most ${DESCRIPTION_MAX} characters (the model reads it to decide when to call the tool)`,
      { tool: toolName },
    );
    ok = false;
  }
  return ok
    ? { name: name as string, kind: FACTS_LOOKUP_KIND, store: t["store"] as string, description: description as string }
    : undefined;
}

export function manifestSchemas(manifest: ToolsManifest): ToolSchema[] {
  return manifest.tools.map((t) => lookupSchema(t.name, t.description));
}

/**
 * Compare the manifest's tool names with a learn sample's `tool_schema_export` (the tools the
 * sample was exported with). Accepted shapes: an array of tool schemas ({name} or
 * {function: {name}}), or an object with such a `tools` array. Differences are warnings
 * (tool_schema_export_name_mismatch): the manifest is still valid on its own.
 */
export function compareWithSchemaExport(
  manifest: Pick<ToolsManifest, "tools"> | { tools: { name: string }[] },
  sample: unknown,
): ErrorJson[] {
  const exportValue =
    typeof sample === "object" && sample !== null
      ? (sample as Record<string, unknown>)["tool_schema_export"]
      : undefined;
  if (exportValue === undefined || exportValue === null) return [];
  const names = exportedNames(exportValue);
  const mine = new Set(manifest.tools.map((t) => t.name));
  const warnings: ErrorJson[] = [];
  for (const n of names) {
    if (!mine.has(n))
      warnings.push(
        errorJson("tool_schema_export_name_mismatch", {
          message: `The learn sample's tool_schema_export has a tool "${n}" that the manifest does not declare.`,
          tool: n,
        }),
      );
  }
  for (const n of mine) {
    if (!names.includes(n))
      warnings.push(
        errorJson("tool_schema_export_name_mismatch", {
          message: `The manifest's tool "${n}" is missing from the learn sample's tool_schema_export.`,
          tool: n,
        }),
      );
  }
  return warnings;
}

function exportedNames(value: unknown): string[] {
  const list = Array.isArray(value)
    ? value
    : typeof value === "object" && value !== null && Array.isArray((value as { tools?: unknown }).tools)
      ? (value as { tools: unknown[] }).tools
      : [];
  const out: string[] = [];
  for (const item of list) {
    if (typeof item !== "object" || item === null) continue;
    const o = item as { name?: unknown; function?: { name?: unknown } };
    const name =
      typeof o.name === "string" ? o.name : typeof o.function?.name === "string" ? o.function.name : undefined;
    if (name !== undefined) out.push(name);
  }
  return out;
}
