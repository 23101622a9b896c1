// Arguments at `integer` positions must be integers JSON carries exactly: ±(2^53−1), the rule
// results already follow. JSON Schema calls 1e300 an integer (the tool got a float) and JSON
// parsing rounds 9007199254740993 to 2^53 (the tool got another number), so ajv alone passes both.
// The generated schemas stay as the contract (docs/contract.md) fixes them (`{"type":"integer"}`, the schema hashes Edge
// Studio computes); the bound lives only in a validation copy of the schema, which ajv checks
// after the schema itself, so every keyword (unions, $ref, anyOf…) keeps its own meaning.
type Schema = { [key: string]: unknown };

/** Keywords whose value is one subschema, a list of them, or a map of them. `not` and `if` are
 *  left alone: a bound inside them would change what they exclude or select. */
const ONE = [
  "additionalProperties",
  "items",
  "additionalItems",
  "contains",
  "unevaluatedItems",
  "unevaluatedProperties",
  "then",
  "else",
];
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

const bounded = new WeakMap<object, object>();

/** `schema` with minimum/maximum ±(2^53−1) at every position typed integer but not number. */
export function withSafeIntegerBounds(schema: object): object {
  let out = bounded.get(schema);
  if (!out) {
    out = bound(schema) as object;
    bounded.set(schema, out);
  }
  return out;
}

function bound(node: unknown): unknown {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
  const s = node as Schema;
  const out: Schema = { ...s };
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes("integer") && !types.includes("number")) {
    out.minimum =
      typeof s.minimum === "number" ? Math.max(s.minimum, -Number.MAX_SAFE_INTEGER) : -Number.MAX_SAFE_INTEGER;
    out.maximum =
      typeof s.maximum === "number" ? Math.min(s.maximum, Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
  }
  for (const k of ONE) if (k in s && !Array.isArray(s[k])) out[k] = bound(s[k]);
  for (const k of LIST) if (Array.isArray(s[k])) out[k] = (s[k] as unknown[]).map(bound);
  for (const k of MAP) {
    const map = s[k];
    if (map && typeof map === "object" && !Array.isArray(map)) {
      out[k] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, bound(sub)]));
    }
  }
  return out;
}

/** The message for an integer beyond the bound at `instancePath` (a JSON pointer, "/n/0"). */
export function unsafeIntegerMessage(instancePath: string): string {
  const segments = instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  const where =
    segments.length === 0
      ? "the arguments"
      : `parameter "${segments[0]}"${segments.length > 1 ? ` (at ${instancePath})` : ""}`;
  return `${where} must be an integer within ±(2^53−1), from -9007199254740991 to 9007199254740991: JSON does not carry larger integers exactly`;
}
