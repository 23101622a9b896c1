// "Try a tool": a form generated from a tool's parameters JSON Schema (the subset the schema
// generator emits, SPEC §1): enums → <select>, booleans → checkbox, numbers, strings, lists as
// comma-separated or JSON input, optional fields omitted unless filled in. Anything else gets a
// JSON field. The arguments are still validated by callTool (ajv) before the runner sees them.
import type { JsonObject, JsonValue } from "../contract/types.ts";
import { h } from "./dom.ts";

interface PropSchema {
  type?: string | string[];
  enum?: JsonValue[];
  items?: PropSchema;
  default?: JsonValue;
  description?: string;
}

export interface SchemaForm {
  readonly element: HTMLElement;
  /** The arguments object, or the problems that stop it from being built. */
  collect(): { ok: true; args: JsonObject } | { ok: false; problems: string[] };
  onInput(listener: () => void): void;
}

type Kind = "enum" | "boolean" | "integer" | "number" | "string" | "array" | "json";

function types(schema: PropSchema): string[] {
  return Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
}

function kindOf(schema: PropSchema): Kind {
  if (Array.isArray(schema.enum)) return "enum";
  const ts = types(schema).filter((x) => x !== "null");
  if (ts.length !== 1) return "json";
  const [only] = ts;
  if (only === "boolean" || only === "integer" || only === "number" || only === "string") return only;
  if (only === "array") return "array";
  return "json";
}

function typeLabel(schema: PropSchema): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  const ts = types(schema);
  const base = ts.filter((x) => x !== "null").map((x) => (x === "array" && schema.items ? `list of ${typeLabel(schema.items)}` : x));
  return base.join(" | ") + (ts.includes("null") ? " or null" : "");
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
    const hint = `${typeLabel(schema)}${isRequired ? ", required" : schema.default !== undefined ? `, optional (default ${JSON.stringify(schema.default)})` : ", optional"}`;
    const hintId = `${id}-hint`;
    let control: HTMLElement;
    let read: () => JsonValue | undefined;

    if (kind === "enum") {
      const values = schema.enum ?? [];
      const select = h("select", { id, name, "aria-describedby": hintId, "data-field": name });
      if (!isRequired) select.appendChild(h("option", { value: "" }, schema.default !== undefined ? `(default: ${JSON.stringify(schema.default)})` : "(omit)"));
      values.forEach((v, i) => select.appendChild(h("option", { value: String(i) }, v === null ? "null" : String(v))));
      select.addEventListener("change", fire);
      control = select;
      read = () => (select.value === "" ? undefined : values[Number(select.value)]);
    } else if (kind === "boolean") {
      const box = h("input", { id, name, type: "checkbox", "aria-describedby": hintId, "data-field": name });
      box.checked = schema.default === true;
      let dirty = false;
      box.addEventListener("change", () => {
        dirty = true;
        fire();
      });
      control = box;
      read = () => (isRequired || dirty ? box.checked : undefined);
    } else if (kind === "integer" || kind === "number") {
      const input = h("input", {
        id,
        name,
        type: "number",
        step: kind === "integer" ? "1" : "any",
        inputmode: kind === "integer" ? "numeric" : "decimal",
        placeholder: schema.default !== undefined ? String(schema.default) : "",
        required: isRequired,
        "aria-describedby": hintId,
        "data-field": name,
      });
      input.addEventListener("input", fire);
      control = input;
      read = () => {
        const raw = input.value.trim();
        if (raw === "") {
          if (isRequired) throw new Error(`${name} is required`);
          return undefined;
        }
        const n = Number(raw);
        if (!Number.isFinite(n)) throw new Error(`${name}: "${raw}" is not a number`);
        return n;
      };
    } else if (kind === "string") {
      const input = h("input", {
        id,
        name,
        type: "text",
        autocomplete: "off",
        spellcheck: "false",
        placeholder: typeof schema.default === "string" ? schema.default : "",
        required: isRequired,
        "aria-describedby": hintId,
        "data-field": name,
      });
      input.addEventListener("input", fire);
      control = input;
      // A required string may be empty; an empty optional one is omitted.
      read = () => (input.value === "" && !isRequired ? undefined : input.value);
    } else if (kind === "array") {
      const input = h("input", {
        id,
        name,
        type: "text",
        autocomplete: "off",
        spellcheck: "false",
        placeholder: "a, b, c  or  JSON [\"a\", \"b\"]",
        "aria-describedby": hintId,
        "data-field": name,
      });
      input.addEventListener("input", fire);
      control = input;
      read = () => {
        const raw = input.value.trim();
        if (raw === "") {
          if (isRequired) return [];
          return undefined;
        }
        if (raw.startsWith("[")) {
          try {
            return JSON.parse(raw) as JsonValue;
          } catch (err) {
            throw new Error(`${name}: not valid JSON (${(err as Error).message})`);
          }
        }
        try {
          return raw.split(",").map((part) => convertItem(part.trim(), schema.items));
        } catch (err) {
          throw new Error(`${name}: ${(err as Error).message}`);
        }
      };
    } else {
      const area = h("textarea", { id, name, rows: 2, spellcheck: "false", placeholder: "JSON", "aria-describedby": hintId, "data-field": name });
      area.addEventListener("input", fire);
      control = area;
      read = () => {
        const raw = area.value.trim();
        if (raw === "") return undefined;
        try {
          return JSON.parse(raw) as JsonValue;
        } catch (err) {
          throw new Error(`${name}: not valid JSON (${(err as Error).message})`);
        }
      };
    }
    fields.push({ name, required: isRequired, read });
    rows.push(
      h(
        "div",
        { class: `field field-${kind}` },
        h("label", { for: id }, name, isRequired ? h("span", { class: "req", "aria-hidden": "true" }, " *") : null),
        control,
        h("small", { id: hintId, class: "hint" }, hint, schema.description ? ` — ${schema.description}` : ""),
      ),
    );
  }

  const element = h("div", { class: "schema-form" }, ...(rows.length ? rows : [h("p", { class: "muted" }, "This tool takes no arguments.")]));
  return {
    element,
    collect() {
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
    },
    onInput(listener) {
      listeners.push(listener);
    },
  };
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
