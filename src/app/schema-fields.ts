// The fields of "Try a tool"'s form (schema-form.ts assembles them), one builder per kind of JSON
// Schema property: an enum is a <select>, a boolean a checkbox, a number or integer a number input,
// a string a text input, an array comma-separated or JSON input, anything else a JSON field. Each
// builder gives its control and how to read it: undefined omits the field, a thrown Error is a
// problem the form reports.
import type { JsonValue } from "../contract/types.ts";
import { h } from "./dom.ts";

export interface PropSchema {
  type?: string | string[];
  enum?: JsonValue[];
  items?: PropSchema;
  default?: JsonValue;
  description?: string;
}

export type Kind = "enum" | "boolean" | "integer" | "number" | "string" | "array" | "json";

function types(schema: PropSchema): string[] {
  return Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
}

export function kindOf(schema: PropSchema): Kind {
  if (Array.isArray(schema.enum)) return "enum";
  const ts = types(schema).filter((x) => x !== "null");
  if (ts.length !== 1) return "json";
  const [only] = ts;
  if (only === "boolean" || only === "integer" || only === "number" || only === "string") return only;
  if (only === "array") return "array";
  return "json";
}

export function typeLabel(schema: PropSchema): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  const ts = types(schema);
  const base = ts
    .filter((x) => x !== "null")
    .map((x) => (x === "array" && schema.items ? `list of ${typeLabel(schema.items)}` : x));
  return base.join(" | ") + (ts.includes("null") ? " or null" : "");
}

/** One property as the builders see it. */
export interface FieldContext {
  id: string;
  name: string;
  hintId: string;
  kind: Kind;
  schema: PropSchema;
  isRequired: boolean;
  /** Tell the form's listeners that the person changed something. */
  fire(): void;
}

export interface FieldControl {
  control: HTMLElement;
  /** undefined = omit the field. */
  read(): JsonValue | undefined;
}

/** The control's attributes: its id and name first, what `middle` adds, then its hint and field name. */
function attrs(
  f: FieldContext,
  middle: Record<string, string | number | boolean> = {},
): Record<string, string | number | boolean> {
  return { id: f.id, name: f.name, ...middle, "aria-describedby": f.hintId, "data-field": f.name };
}

function parseJson(name: string, raw: string): JsonValue {
  try {
    return JSON.parse(raw) as JsonValue;
  } catch (err) {
    throw new Error(`${name}: not valid JSON (${(err as Error).message})`);
  }
}

function convertItem(raw: string, schema: PropSchema | undefined): JsonValue {
  const kind = schema ? kindOf(schema) : "string";
  if (kind === "integer" || kind === "number") {
    const n = Number(raw);
    if (raw === "" || !Number.isFinite(n)) throw new Error(`"${raw}" is not a number`);
    return n;
  }
  if (kind === "boolean") {
    if (raw === "true") return true;
    if (raw === "false") return false;
    throw new Error(`"${raw}" is not true or false`);
  }
  return raw;
}

function enumField(f: FieldContext): FieldControl {
  const { schema } = f;
  const values = schema.enum ?? [];
  const select = h("select", attrs(f));
  if (!f.isRequired)
    select.appendChild(
      h(
        "option",
        { value: "" },
        schema.default !== undefined ? `(default: ${JSON.stringify(schema.default)})` : "(omit)",
      ),
    );
  values.forEach((v, i) => select.appendChild(h("option", { value: String(i) }, v === null ? "null" : String(v))));
  select.addEventListener("change", f.fire);
  return { control: select, read: () => (select.value === "" ? undefined : values[Number(select.value)]) };
}

function booleanField(f: FieldContext): FieldControl {
  const box = h("input", attrs(f, { type: "checkbox" }));
  box.checked = f.schema.default === true;
  let dirty = false;
  box.addEventListener("change", () => {
    dirty = true;
    f.fire();
  });
  return { control: box, read: () => (f.isRequired || dirty ? box.checked : undefined) };
}

function numberField(f: FieldContext): FieldControl {
  const { name, isRequired, schema } = f;
  const integer = f.kind === "integer";
  const placeholder = schema.default !== undefined ? String(schema.default) : "";
  const input = h(
    "input",
    attrs(f, {
      type: "number",
      step: integer ? "1" : "any",
      inputmode: integer ? "numeric" : "decimal",
      placeholder,
      required: isRequired,
    }),
  );
  input.addEventListener("input", f.fire);
  const read = (): JsonValue | undefined => {
    const raw = input.value.trim();
    if (raw === "") {
      if (isRequired) throw new Error(`${name} is required`);
      return undefined;
    }
    const n = Number(raw);
    if (!Number.isFinite(n)) throw new Error(`${name}: "${raw}" is not a number`);
    return n;
  };
  return { control: input, read };
}

/** A text input (a string, or an array's items) that tells the form of every keystroke. */
function textInput(f: FieldContext, placeholder: string, required: Record<string, boolean>): HTMLInputElement {
  const input = h(
    "input",
    attrs(f, { type: "text", autocomplete: "off", spellcheck: "false", placeholder, ...required }),
  );
  input.addEventListener("input", f.fire);
  return input;
}

function stringField(f: FieldContext): FieldControl {
  const input = textInput(f, typeof f.schema.default === "string" ? f.schema.default : "", { required: f.isRequired });
  // A required string may be empty; an empty optional one is omitted.
  return { control: input, read: () => (input.value === "" && !f.isRequired ? undefined : input.value) };
}

function arrayField(f: FieldContext): FieldControl {
  const { name, isRequired, schema } = f;
  const input = textInput(f, 'a, b, c  or  JSON ["a", "b"]', {});
  const read = (): JsonValue | undefined => {
    const raw = input.value.trim();
    if (raw === "") {
      if (isRequired) return [];
      return undefined;
    }
    if (raw.startsWith("[")) return parseJson(name, raw);
    try {
      return raw.split(",").map((part) => convertItem(part.trim(), schema.items));
    } catch (err) {
      throw new Error(`${name}: ${(err as Error).message}`);
    }
  };
  return { control: input, read };
}

function jsonField(f: FieldContext): FieldControl {
  const area = h("textarea", attrs(f, { rows: 2, spellcheck: "false", placeholder: "JSON" }));
  area.addEventListener("input", f.fire);
  return {
    control: area,
    read: () => {
      const raw = area.value.trim();
      return raw === "" ? undefined : parseJson(f.name, raw);
    },
  };
}

/** The builder for each kind. */
export const FIELD_BUILDERS: Readonly<Record<Kind, (f: FieldContext) => FieldControl>> = {
  enum: enumField,
  boolean: booleanField,
  integer: numberField,
  number: numberField,
  string: stringField,
  array: arrayField,
  json: jsonField,
};
