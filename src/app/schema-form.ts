// "Try a tool": a form generated from a tool's parameters JSON Schema (the subset the schema
// generator emits, docs/contract.md §1): enums → <select>, booleans → checkbox, numbers, strings,
// lists as comma-separated or JSON input, optional fields omitted unless filled in. Anything else
// gets a JSON field. The arguments are still validated by callTool (ajv) before the runner sees
// them. One builder per kind of property is in schema-fields.ts; this file lays the fields out.
import type { JsonObject, JsonValue } from "../contract/types.ts";
import { h } from "./dom.ts";
import { FIELD_BUILDERS, kindOf, typeLabel, type Kind, type PropSchema } from "./schema-fields.ts";

export interface SchemaForm {
  readonly element: HTMLElement;
  /** The arguments object, or the problems that stop it from being built. */
  collect(): { ok: true; args: JsonObject } | { ok: false; problems: string[] };
  onInput(listener: () => void): void;
}

interface Field {
  name: string;
  required: boolean;
  /** undefined = omit the field. */
  read(): JsonValue | undefined;
}

let formCounter = 0;

export function createSchemaForm(toolName: string, parameters: JsonObject): SchemaForm {
  const props = (parameters["properties"] ?? {}) as Record<string, PropSchema>;
  const required = new Set((parameters["required"] ?? []) as string[]);
  const listeners: Array<() => void> = [];
  const fire = () => listeners.forEach((l) => l());
  const fields: Field[] = [];
  const prefix = `tf${++formCounter}-${toolName}`;
  const rows: HTMLElement[] = [];

  for (const [name, schema] of Object.entries(props)) {
    const id = `${prefix}-${name}`;
    const isRequired = required.has(name);
    const kind = kindOf(schema);
    const { control, read } = FIELD_BUILDERS[kind]({ id, name, hintId: `${id}-hint`, kind, schema, isRequired, fire });
    fields.push({ name, required: isRequired, read });
    rows.push(fieldRow(id, name, kind, schema, isRequired, control));
  }

  const element = h(
    "div",
    { class: "schema-form" },
    ...(rows.length ? rows : [h("p", { class: "muted" }, "This tool takes no arguments.")]),
  );
  return {
    element,
    collect: () => collectArgs(fields),
    onInput(listener) {
      listeners.push(listener);
    },
  };
}

/** One field's row: its label (a star when required), its control and its hint (type, whether it
 *  is required or its default, the description). */
function fieldRow(
  id: string,
  name: string,
  kind: Kind,
  schema: PropSchema,
  isRequired: boolean,
  control: HTMLElement,
): HTMLElement {
  const hint = `${typeLabel(schema)}${isRequired ? ", required" : schema.default !== undefined ? `, optional (default ${JSON.stringify(schema.default)})` : ", optional"}`;
  return h(
    "div",
    { class: `field field-${kind}` },
    h("label", { for: id }, name, isRequired ? h("span", { class: "req", "aria-hidden": "true" }, " *") : null),
    control,
    h("small", { id: `${id}-hint`, class: "hint" }, hint, schema.description ? ` — ${schema.description}` : ""),
  );
}

function collectArgs(fields: readonly Field[]): { ok: true; args: JsonObject } | { ok: false; problems: string[] } {
  const args: JsonObject = {};
  const problems: string[] = [];
  for (const f of fields) {
    try {
      const v = f.read();
      if (v !== undefined) args[f.name] = v;
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return problems.length ? { ok: false, problems } : { ok: true, args };
}

/** Example arguments for a tool (the scripted demo's default script): defaults, first enum value, plausible scalars. */
export function exampleArgs(parameters: JsonObject): JsonObject {
  const props = (parameters["properties"] ?? {}) as Record<string, PropSchema>;
  const required = new Set((parameters["required"] ?? []) as string[]);
  const out: JsonObject = {};
  for (const [name, schema] of Object.entries(props)) {
    if (!required.has(name)) continue;
    const kind = kindOf(schema);
    if (schema.default !== undefined) out[name] = schema.default;
    else if (kind === "enum") out[name] = (schema.enum ?? [null])[0] ?? null;
    else if (kind === "boolean") out[name] = false;
    else if (kind === "integer") out[name] = 1;
    else if (kind === "number") out[name] = 250;
    else if (kind === "array") out[name] = [];
    else if (kind === "string") out[name] = "example";
    else out[name] = null;
  }
  return out;
}
