// JSON Schema → GBNF (llama.cpp's grammar format), for the subset tool schemas use: const, enum,
// oneOf/anyOf, type (or a list of types), string (min/maxLength), integer and number (sign and
// digit count bounded, see below), boolean, null, arrays (items, min/maxItems) and objects
// (declared properties in schema order, required ones always, optional ones skippable). Anything
// else (pattern, format, $ref, allOf, not…) becomes "any JSON value" at that point: the grammar is a
// help for a small model, never the check — the loop validates every call with ajv afterwards.
//
// The JSON has exactly one layout, the one the contract shows and most JSON a model was trained on
// has (Python's json.dumps): one space after each ":" and ",", none anywhere else — so a model
// cannot pad a call with whitespace until max_tokens, and is not forced into a layout it never saw
// (measured: SmolLM2-135M held to compact JSON wrote "amount":1.0 for "250", and with the spaces
// "amount": 250). Numbers are bounded: at most 15 integer digits (every such integer is below
// 2^53, so it survives JSON in JavaScript and the tool result checks) and 15 fraction digits, no
// exponent (1e999 would parse as Infinity), and no sign where the schema's minimum is ≥ 0. Random
// weights under such a grammar always produce a valid, finite call quickly.
//
// Deterministic: the same schema gives the same grammar text (rules in first-use order).
import { isObj } from "../../contract/types.ts";

export type JsonSchemaLike = boolean | { readonly [key: string]: unknown };

const PRIMITIVES: Record<string, string> = {
  char: '[^"\\\\\\x7F\\x00-\\x1F] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})',
  string: '"\\"" char* "\\""',
  boolean: '"true" | "false"',
  null: '"null"',
  value: "object | array | string | number | boolean | null",
  object: '"{" ( string ": " value ( ", " string ": " value )* )? "}"',
  array: '"[" ( value ( ", " value )* )? "]"',
  integer: '"-"? ( "0" | [1-9] [0-9]{0,14} )',
  number: 'integer ( "." [0-9]{1,15} )?',
};
/** What each primitive rule refers to, so a used rule pulls in its dependencies. */
const DEPENDS: Record<string, readonly string[]> = {
  string: ["char"],
  value: ["object", "array", "string", "number", "boolean", "null"],
  object: ["string", "value"],
  array: ["value"],
  number: ["integer"],
};

/** A GBNF string literal for `text` (llama.cpp's escapes; other characters as UTF-8). */
export function gbnfLiteral(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0").toUpperCase()}`;
    else out += ch;
  }
  return `${out}"`;
}

/** An alternation, bare when there is only one alternative. */
export const alternation = (items: readonly string[]): string =>
  items.length === 1 ? items[0]! : `( ${items.join(" | ")} )`;
const finite = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** Collects named rules; `render("root")` gives the grammar text. */
export class GbnfBuilder {
  private readonly rules = new Map<string, string>();

  /** A primitive rule (string, number, value…) by name, added on first use. */
  primitive(name: keyof typeof PRIMITIVES): string {
    if (!this.rules.has(name)) {
      this.rules.set(name, PRIMITIVES[name]!);
      for (const dep of DEPENDS[name] ?? []) this.primitive(dep as keyof typeof PRIMITIVES);
    }
    return name;
  }

  /** Add a rule; a name already taken by another body gets a numeric suffix. */
  rule(name: string, body: string): string {
    const base = name.replace(/[^A-Za-z0-9-]+/g, "-").replace(/^-+|-+$/g, "") || "r";
    let candidate = base;
    for (let n = 2; this.rules.has(candidate) && this.rules.get(candidate) !== body; n++) candidate = `${base}-${n}`;
    this.rules.set(candidate, body);
    return candidate;
  }

  render(rootBody: string): string {
    const lines = [`root ::= ${rootBody}`];
    for (const [name, body] of this.rules) lines.push(`${name} ::= ${body}`);
    return `${lines.join("\n")}\n`;
  }

  /** The GBNF expression for a JSON Schema node. */
  schema(schema: unknown, name: string): string {
    if (schema === true || (isObj(schema) && Object.keys(schema).length === 0)) return this.primitive("value");
    if (!isObj(schema)) throw new TypeError(`${name}: a schema must be an object or true`);
    if ("const" in schema) return gbnfLiteral(JSON.stringify(schema["const"]));
    if (Array.isArray(schema["enum"])) {
      if (schema["enum"].length === 0) throw new TypeError(`${name}: an empty enum allows nothing`);
      return alternation(schema["enum"].map((v) => gbnfLiteral(JSON.stringify(v))));
    }
    const union = Array.isArray(schema["oneOf"])
      ? schema["oneOf"]
      : Array.isArray(schema["anyOf"])
        ? schema["anyOf"]
        : undefined;
    if (union) return alternation(union.map((s, i) => this.schema(s, `${name}-${i}`)));
    const types =
      typeof schema["type"] === "string"
        ? [schema["type"]]
        : Array.isArray(schema["type"])
          ? (schema["type"] as string[])
          : [];
    if (types.length === 0) return this.primitive("value");
    return alternation(types.map((t) => this.typed(schema, t, types.length > 1 ? `${name}-${t}` : name)));
  }

  private typed(s: Record<string, unknown>, type: string, name: string): string {
    switch (type) {
      case "string": {
        const min = finite(s["minLength"]);
        const max = finite(s["maxLength"]);
        if (min === undefined && max === undefined) return this.primitive("string");
        this.primitive("char");
        return this.rule(name, `"\\"" char{${min ?? 0},${max ?? ""}} "\\""`);
      }
      case "integer":
      case "number":
        return this.numeric(s, type, name);
      case "boolean":
        return this.primitive("boolean");
      case "null":
        return this.primitive("null");
      case "array":
        return this.array(s, name);
      case "object":
        return this.object(s, name);
      default:
        throw new TypeError(`${name}: unknown type "${type}"`);
    }
  }

  private numeric(s: Record<string, unknown>, type: "integer" | "number", name: string): string {
    const lower = finite(s["minimum"]) ?? finite(s["exclusiveMinimum"]);
    const upper = finite(s["maximum"]) ?? finite(s["exclusiveMaximum"]);
    const sign = lower !== undefined && lower >= 0 ? "" : '"-"? ';
    // Digits of the largest magnitude the bounds allow (both bounds needed), else 15.
    const largest =
      lower !== undefined && upper !== undefined
        ? Math.max(Math.abs(Math.trunc(lower)), Math.abs(Math.trunc(upper)))
        : undefined;
    const digits = largest === undefined ? 15 : Math.min(15, Math.max(1, String(largest).length));
    const int = digits === 1 ? "[0-9]" : `( "0" | [1-9] [0-9]{0,${digits - 1}} )`;
    const frac = type === "number" ? ' ( "." [0-9]{1,15} )?' : "";
    if (sign && digits === 15) return this.primitive(type);
    return this.rule(name, `${sign}${int}${frac}`);
  }

  private array(s: Record<string, unknown>, name: string): string {
    const item = this.schema(s["items"] ?? true, `${name}-item`);
    const min = Math.max(0, Math.trunc(finite(s["minItems"]) ?? 0));
    const max = finite(s["maxItems"]);
    if (max !== undefined && max <= 0) return gbnfLiteral("[]");
    const more = `( ", " ${item} ){${Math.max(0, min - 1)},${max === undefined ? "" : Math.trunc(max) - 1}}`;
    const items = `${item} ${more}`;
    return this.rule(name, min === 0 ? `"[" ( ${items} )? "]"` : `"[" ${items} "]"`);
  }

  /** Declared properties in schema order; required ones always, optional ones may be skipped.
   *  Rule `<name>-p<i>` writes properties i.. when nothing is written yet, `<name>-p<i>c` after
   *  something was (so it starts with a comma): 2n small rules, never the 2^n combinations. */
  private object(s: Record<string, unknown>, name: string): string {
    const props = isObj(s["properties"]) ? Object.entries(s["properties"]) : [];
    if (props.length === 0)
      return s["additionalProperties"] === false || isObj(s["properties"])
        ? gbnfLiteral("{}")
        : this.primitive("object");
    const required = new Set(Array.isArray(s["required"]) ? (s["required"] as unknown[]) : []);
    const pairs = props.map(
      ([key, sub]) => `${gbnfLiteral(`${JSON.stringify(key)}: `)} ${this.schema(sub, `${name}-${key}`)}`,
    );
    const memo = new Map<string, string>();
    const from = (i: number, written: boolean): string => {
      if (i === props.length) return "";
      const id = `${i}${written ? "c" : ""}`;
      const known = memo.get(id);
      if (known !== undefined) return known;
      const take = `${written ? '", " ' : ""}${pairs[i]} ${from(i + 1, true)}`.trim();
      let body = take;
      if (!required.has(props[i]![0])) {
        const skip = from(i + 1, written);
        body = skip ? `${take} | ${skip}` : `( ${take} )?`;
      }
      const ruleName = this.rule(`${name}-p${id}`, body);
      memo.set(id, ruleName);
      return ruleName;
    };
    return this.rule(name, `"{" ${from(0, false)} "}"`);
  }
}

/** A complete grammar whose root is one JSON value valid for `schema` (the layout above). */
export function jsonSchemaToGbnf(schema: JsonSchemaLike): string {
  const b = new GbnfBuilder();
  return b.render(b.schema(schema, "v"));
}
