// The facts file format `edge.demo.facts.v1` (docs/contract.md §8) and its validation. The whole file is
// checked before anything is stored, and every problem is reported at once with where it is
// (`facts[3].text`), so a bad file never half-imports. No DOM, no Node.
import { EdgeError, errorJson, type ErrorJson } from "../contract/errors.ts";
import { isObj } from "../contract/types.ts";
import type { Fact, FactProvenance } from "../idb/records.ts";

// A fact is declared with the IndexedDB schema's other records (idb/records.ts).
export type { Fact };

export const FACTS_SCHEMA_VERSION = "edge.demo.facts.v1";

/** Import limits: a facts store is a small local knowledge base, not a document dump. */
export const FACTS_LIMITS = {
  /** Raw size of one facts file (UTF-8 bytes). */
  fileBytes: 8 * 1024 * 1024,
  /** Facts in one file. */
  facts: 20_000,
  idChars: 256,
  topicChars: 256,
  textChars: 16_384,
  tagChars: 128,
  tags: 64,
  sourceLabelChars: 512,
  sourceUrlChars: 2048,
} as const;

export interface FactsFile {
  schema_version: typeof FACTS_SCHEMA_VERSION;
  store: string;
  facts: Fact[];
}

/** Store names are used as file names by the Node store and as keys by IndexedDB. */
export const STORE_NAME_RE = /^(?!\.)[A-Za-z0-9_.-]{1,64}$/;

export function checkStoreName(name: unknown): string {
  if (typeof name !== "string" || !STORE_NAME_RE.test(name)) {
    throw new EdgeError(
      "invalid_facts_store_name",
      { store: String(name) },
      `Facts store name ${JSON.stringify(name)} is not valid: use 1–64 of [A-Za-z0-9_.-], not starting with a dot.`,
    );
  }
  return name;
}

export type FactsParse = { ok: true; file: FactsFile; bytes: number } | { ok: false; errors: ErrorJson[] };

const TOP_KEYS = new Set(["schema_version", "store", "facts"]);
const FACT_KEYS = new Set(["fact_id", "topic", "text", "tags", "source_label", "provenance"]);
const PROVENANCE_KEYS = new Set(["source_url", "page_sha256", "fetched_at", "split"]);
const SHA256_RE = /^sha256:[0-9a-f]{64}$/;
// Control characters other than tab/newline make ids and labels unprintable; refuse them.
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f]/;
const MAX_REPORTED = 50;

/** Parse and validate the raw bytes (or text) of a facts file. Never throws for bad content. */
export function parseFactsFile(raw: string | Uint8Array): FactsParse {
  const bytes = typeof raw === "string" ? new TextEncoder().encode(raw).byteLength : raw.byteLength;
  if (bytes > FACTS_LIMITS.fileBytes) {
    return {
      ok: false,
      errors: [
        errorJson("facts_file_too_large", {
          message: `The facts file is ${bytes} bytes; the import limit is ${FACTS_LIMITS.fileBytes} bytes. Split it into several files or stores.`,
          bytes,
          limit: FACTS_LIMITS.fileBytes,
        }),
      ],
    };
  }
  let text: string;
  try {
    text = typeof raw === "string" ? raw : new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    return { ok: false, errors: [bad("", "the file is not valid UTF-8")] };
  }
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    return { ok: false, errors: [bad("", `not valid JSON: ${(err as Error).message}`)] };
  }
  const errors = validateFactsValue(value);
  if (errors.length) return { ok: false, errors };
  const v = value as { store: string; facts: Record<string, unknown>[] };
  const file: FactsFile = {
    schema_version: FACTS_SCHEMA_VERSION,
    store: v.store,
    facts: v.facts.map((f) => ({
      fact_id: f["fact_id"] as string,
      topic: f["topic"] as string,
      text: f["text"] as string,
      tags: [...((f["tags"] as string[] | undefined) ?? [])],
      source_label: (f["source_label"] as string | undefined) ?? "",
      ...(f["provenance"] !== undefined ? { provenance: { ...(f["provenance"] as FactProvenance) } } : {}),
    })),
  };
  return { ok: true, file, bytes };
}

/** Parse, or throw the first problem as an EdgeError whose details carry all of them. */
export function requireFactsFile(raw: string | Uint8Array): FactsFile {
  const parsed = parseFactsFile(raw);
  if (parsed.ok) return parsed.file;
  const first = parsed.errors[0]!;
  throw new EdgeError(first.code, { errors: parsed.errors }, first.message);
}

function validateFactsValue(value: unknown): ErrorJson[] {
  const errors: ErrorJson[] = [];
  const push = (at: string, problem: string): void => {
    if (errors.length < MAX_REPORTED) errors.push(bad(at, problem));
  };
  if (!isObj(value)) return [bad("", "the top level must be a JSON object")];
  const top = value;
  if (top["schema_version"] !== FACTS_SCHEMA_VERSION) {
    push("schema_version", `must be "${FACTS_SCHEMA_VERSION}", found ${JSON.stringify(top["schema_version"] ?? null)}`);
  }
  for (const key of Object.keys(top))
    if (!TOP_KEYS.has(key)) push(key, "unknown field (allowed: schema_version, store, facts)");
  if (typeof top["store"] !== "string" || !STORE_NAME_RE.test(top["store"]))
    push("store", "must be a store name of 1–64 characters [A-Za-z0-9_.-], not starting with a dot");
  const facts = top["facts"];
  if (!Array.isArray(facts)) {
    push("facts", "must be an array of facts");
    return errors;
  }
  if (facts.length > FACTS_LIMITS.facts) {
    push("facts", `holds ${facts.length} facts; at most ${FACTS_LIMITS.facts} per file`);
    return errors;
  }
  const seen = new Map<string, number>();
  facts.forEach((f: unknown, i) => {
    const at = `facts[${i}]`;
    if (!isObj(f)) return push(at, "must be an object");
    const fact = f;
    for (const key of Object.keys(fact))
      if (!FACT_KEYS.has(key))
        push(`${at}.${key}`, "unknown field (allowed: fact_id, topic, text, tags, source_label, provenance)");
    const id = fact["fact_id"];
    if (typeof id !== "string" || id.trim() === "") push(`${at}.fact_id`, "is required: a non-empty string");
    else if (id.length > FACTS_LIMITS.idChars || CONTROL_RE.test(id))
      push(`${at}.fact_id`, `must be at most ${FACTS_LIMITS.idChars} printable characters`);
    else if (seen.has(id))
      push(
        `${at}.fact_id`,
        `duplicate fact_id ${JSON.stringify(id)} (also facts[${seen.get(id)}]); fact ids are unique within a file`,
      );
    else seen.set(id, i);
    stringField(fact, "topic", at, FACTS_LIMITS.topicChars, true, push);
    stringField(fact, "text", at, FACTS_LIMITS.textChars, true, push);
    stringField(fact, "source_label", at, FACTS_LIMITS.sourceLabelChars, false, push);
    if (fact["provenance"] !== undefined) checkProvenance(fact["provenance"], `${at}.provenance`, push);
    const tags = fact["tags"];
    if (tags !== undefined) {
      if (!Array.isArray(tags)) push(`${at}.tags`, "must be an array of strings");
      else if (tags.length > FACTS_LIMITS.tags) push(`${at}.tags`, `at most ${FACTS_LIMITS.tags} tags`);
      else
        tags.forEach((t: unknown, j) => {
          if (typeof t !== "string" || t.trim() === "" || t.length > FACTS_LIMITS.tagChars || CONTROL_RE.test(t)) {
            push(
              `${at}.tags[${j}]`,
              `must be a non-empty string of at most ${FACTS_LIMITS.tagChars} printable characters`,
            );
          }
        });
    }
  });
  return errors;
}

function checkProvenance(value: unknown, at: string, push: (at: string, problem: string) => void): void {
  if (!isObj(value)) return push(at, "must be an object {source_url, page_sha256, fetched_at?, split?}");
  const p = value;
  for (const key of Object.keys(p))
    if (!PROVENANCE_KEYS.has(key))
      push(`${at}.${key}`, "unknown field (allowed: source_url, page_sha256, fetched_at, split)");
  stringField(p, "source_url", at, FACTS_LIMITS.sourceUrlChars, true, push);
  if (typeof p["page_sha256"] !== "string" || !SHA256_RE.test(p["page_sha256"]))
    push(`${at}.page_sha256`, "must be sha256:<64 lowercase hex>");
  stringField(p, "fetched_at", at, 64, false, push);
  stringField(p, "split", at, 64, false, push);
}

function stringField(
  fact: Record<string, unknown>,
  key: string,
  at: string,
  max: number,
  required: boolean,
  push: (at: string, problem: string) => void,
): void {
  const v = fact[key];
  if (v === undefined && !required) return;
  if (typeof v !== "string" || (required && v.trim() === ""))
    push(`${at}.${key}`, required ? "is required: a non-empty string" : "must be a string");
  else if (v.length > max) push(`${at}.${key}`, `is ${v.length} characters; at most ${max}`);
}

function bad(at: string, problem: string): ErrorJson {
  return errorJson("invalid_facts_file", {
    message: `Invalid facts file${at ? ` at ${at}` : ""}: ${problem}.`,
    ...(at ? { at } : {}),
  });
}
