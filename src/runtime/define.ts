// defineTool: the only way to make a ToolDefinition. It validates once, up front, so the
// registry and the pipeline can trust every definition they hold (frozen, schemas compiled).
import { schemaCompileError } from "../contract/ajv.ts";
import { EdgeError } from "../contract/errors.ts";
import { EXECUTION_LEVELS, type JsonObject } from "../contract/types.ts";
import { snapshot } from "./snapshot.ts";
import type { AnyToolDefinition, ToolDefinition, ToolSpec } from "./types.ts";

/** docs/contract.md §1 name rule, shared by Python tools and built-ins (they live in one registry). */
export const TOOL_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** `meta.kind` of Python tools; spillPolicy never touches them (their 64 KB rule is fail-closed). */
export const PYTHON_TOOL_KIND = "python";

const defined = new WeakSet<object>();

export function defineTool<A extends object = JsonObject, R = unknown>(spec: ToolSpec<A, R>): ToolDefinition<A, R> {
  const name = spec.name;
  if (typeof name !== "string" || !TOOL_NAME_RE.test(name)) {
    throw new EdgeError("invalid_tool_name", { tool: String(name) });
  }
  if (typeof spec.description !== "string") {
    throw EdgeError.withTableFix("invalid_tool_spec", { tool: name }, `Tool ${name}: description must be a string.`);
  }
  if (typeof spec.execute !== "function") {
    throw EdgeError.withTableFix("invalid_tool_spec", { tool: name }, `Tool ${name}: execute must be a function.`);
  }
  checkParameters(name, spec.parameters);
  const executionLevel = spec.executionLevel ?? "read";
  if (!EXECUTION_LEVELS.includes(executionLevel)) throw new EdgeError("invalid_execution_level", { tool: name });
  const returnDirect = spec.returnDirect ?? false;
  const outputSchema = spec.outputSchema ?? null;
  checkOutputSchema(name, outputSchema, returnDirect || executionLevel !== "read");
  if (spec.timeoutMs !== undefined && !(Number.isFinite(spec.timeoutMs) && spec.timeoutMs > 0)) {
    throw EdgeError.withTableFix(
      "invalid_tool_spec",
      { tool: name },
      `Tool ${name}: timeoutMs must be a positive number.`,
    );
  }

  const def: ToolDefinition<A, R> = {
    name,
    description: spec.description,
    parameters: snapshot(spec.parameters),
    execute: spec.execute,
    ...(spec.finalizeContent ? { finalizeContent: spec.finalizeContent } : {}),
    isConcurrencySafe: spec.isConcurrencySafe === true,
    ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
    executionLevel,
    returnDirect,
    outputSchema: outputSchema === null ? null : snapshot(outputSchema),
    meta: snapshot(spec.meta ?? {}),
  };
  Object.freeze(def);
  defined.add(def);
  return def;
}

/** True for definitions made by defineTool (the registry refuses hand-built objects). */
export function isToolDefinition(value: unknown): value is AnyToolDefinition {
  return typeof value === "object" && value !== null && defined.has(value);
}

export function isPythonTool(def: AnyToolDefinition): boolean {
  return def.meta["kind"] === PYTHON_TOOL_KIND;
}

function checkParameters(name: string, parameters: JsonObject): void {
  if (
    typeof parameters !== "object" ||
    parameters === null ||
    Array.isArray(parameters) ||
    parameters["type"] !== "object"
  ) {
    throw EdgeError.withTableFix(
      "invalid_tool_spec",
      { tool: name },
      `Tool ${name}: parameters must be a JSON Schema with "type": "object".`,
    );
  }
  const problem = schemaCompileError(parameters);
  if (problem) {
    throw EdgeError.withTableFix(
      "invalid_tool_spec",
      { tool: name, reason: problem },
      `Tool ${name}: parameters schema does not compile: ${problem}.`,
    );
  }
}

/** Same rule as docs/contract.md §1 for tools.py: return_direct, prepare and commit need a closed schema. */
function checkOutputSchema(name: string, schema: JsonObject | null, required: boolean): void {
  if (schema === null) {
    if (required) throw new EdgeError("return_direct_output_schema_required", { tool: name });
    return;
  }
  const closed =
    schema["type"] === "object" &&
    typeof schema["properties"] === "object" &&
    schema["properties"] !== null &&
    !Array.isArray(schema["properties"]) &&
    schema["additionalProperties"] === false;
  const problem = closed ? schemaCompileError(schema) : "not a closed object schema";
  if (problem) throw new EdgeError("invalid_output_schema", { tool: name, reason: problem });
}
