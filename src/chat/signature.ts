// A tool's parameters as a signature line the model reads like code — `fee_quote(amount: number,
// tier: "basic" | "pro" = "basic")` — instead of their JSON Schema. It says what a call needs in a
// third of the tokens (measured: bench/contract.bench.ts), in the function's own parameter order.
// What the signature cannot say is said in JSON Schema at that point, never dropped: the loop checks
// every call against the full schema (ajv), and guided decoding holds it to the same schema.
//
// Deterministic: the same schema gives the same text.
import { canonicalJson } from "../contract/hash.ts";
import { isObj } from "../contract/types.ts";

type Schema = Readonly<Record<string, unknown>>;

/** Keywords a signature renders (anything else in a sub-schema sends it to JSON Schema). A
 *  parameter's own description goes under the signature (parameterNotes); one deeper down is not
 *  rendered, so such a sub-schema is given as JSON Schema too. */
const RENDERED = new Set([
  "type",
  "enum",
  "const",
  "items",
  "properties",
  "required",
  "additionalProperties",
  "default",
  "title",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "anyOf",
  "oneOf",
]);

function literal(value: unknown): string {
  return canonicalJson(value);
}

/** Bounds as a short suffix: " 1..100000", " ≥ 1", " ≤ 1024 chars". */
function bounds(s: Schema, low: string, high: string, unit = ""): string {
  const min = typeof s[low] === "number" ? (s[low] as number) : undefined;
  const max = typeof s[high] === "number" ? (s[high] as number) : undefined;
  if (min !== undefined && max !== undefined) return ` ${min}..${max}${unit}`;
  if (min !== undefined) return ` ≥ ${min}${unit}`;
  if (max !== undefined) return ` ≤ ${max}${unit}`;
  return "";
}

function typeName(s: Schema, type: string): string {
  switch (type) {
    case "integer":
    case "number":
      return `${type}${bounds(s, "minimum", "maximum")}`;
    case "string":
      return `string${bounds(s, "minLength", "maxLength", " chars")}`;
    case "array":
      return arrayType(s);
    case "object":
      return objectType(s);
    default:
      return type;
  }
}

function arrayType(s: Schema): string {
  const item = isObj(s["items"]) ? schemaType(s["items"]) : "any";
  const count = bounds(s, "minItems", "maxItems", " items");
  const element = /[ |]/.test(item) ? `(${item})` : item;
  return `${element}[]${count}`;
}

function objectType(s: Schema): string {
  if (!isObj(s["properties"])) return "object";
  // A signature cannot say that other keys are allowed too.
  if (s["additionalProperties"] !== false) return `JSON Schema ${canonicalJson(s)}`;
  return `{${paramList(s, false)}}`;
}

/** The type of one schema: `string`, `"a" | "b"`, `integer ≥ 1`, `string | null`, `T[]`, or its
 *  JSON Schema when it uses a keyword a signature cannot say. */
export function schemaType(s: Schema, parameter = false): string {
  if (Object.keys(s).some((k) => !RENDERED.has(k) && !(parameter && k === "description")))
    return `JSON Schema ${canonicalJson(s)}`;
  if ("const" in s) return literal(s["const"]);
  if (Array.isArray(s["enum"])) return s["enum"].map(literal).join(" | ");
  const union = Array.isArray(s["anyOf"]) ? s["anyOf"] : Array.isArray(s["oneOf"]) ? s["oneOf"] : undefined;
  if (union) return union.map((u) => (isObj(u) ? schemaType(u) : "any")).join(" | ");
  const types = typeof s["type"] === "string" ? [s["type"]] : Array.isArray(s["type"]) ? (s["type"] as string[]) : [];
  if (types.length === 0) return "any";
  return types.map((t) => typeName(s, t)).join(" | ");
}

/** `name: type`, `name: type = default`, `name?: type` (optional, no default) for each property, in
 *  schema order. */
function paramList(s: Schema, top = true): string {
  const properties = isObj(s["properties"]) ? Object.entries(s["properties"]) : [];
  const required = new Set(Array.isArray(s["required"]) ? s["required"] : []);
  return properties
    .map(([name, sub]) => {
      const p = isObj(sub) ? sub : {};
      // A default says the parameter may be left out, as in Python; "?" marks one without a default.
      const fallback = "default" in p ? ` = ${literal(p["default"])}` : "";
      const optional = required.has(name) || fallback ? "" : "?";
      return `${name}${optional}: ${schemaType(p, top)}${fallback}`;
    })
    .join(", ");
}

/** The descriptions a schema gives its parameters (`name: text`), for the lines under a signature. */
export function parameterNotes(parameters: Schema): string[] {
  const properties = isObj(parameters["properties"]) ? Object.entries(parameters["properties"]) : [];
  return properties
    .filter(([, p]) => isObj(p) && typeof p["description"] === "string" && p["description"])
    .map(([name, p]) => `${name}: ${(p as Schema)["description"] as string}`);
}

/** `name(params)`: the call's parameters as a signature; a parameters schema that is not a plain
 *  object of properties is given whole, as JSON Schema. */
export function toolSignature(name: string, parameters: Schema): string {
  const plain =
    parameters["type"] === "object" &&
    Object.keys(parameters).every((k) =>
      ["type", "properties", "required", "additionalProperties", "description", "title"].includes(k),
    );
  if (!plain) return `${name}(arguments: JSON Schema ${canonicalJson(parameters)})`;
  return `${name}(${paramList(parameters)})`;
}
