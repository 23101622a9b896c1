// The registry: tools by name in registration order, and their projection into the schemas the
// model sees. It knows nothing about which tools exist; plugins register themselves.
import { EdgeError } from "../contract/errors.ts";
import type { JsonObject, ToolSchema } from "../contract/types.ts";
import { isToolDefinition } from "./define.ts";
import type { AnyToolDefinition, Disposer, SchemaQuery } from "./types.ts";

export class ToolRegistry {
  // A Map keeps insertion order, which is the order schemas() promises.
  readonly #tools = new Map<string, AnyToolDefinition>();

  register(def: AnyToolDefinition): Disposer {
    if (!isToolDefinition(def)) {
      throw new EdgeError("invalid_tool_spec");
    }
    if (this.#tools.has(def.name)) {
      throw EdgeError.withTableFix(
        "duplicate_tool_name",
        { tool: def.name },
        `A tool named "${def.name}" is already registered.`,
      );
    }
    this.#tools.set(def.name, def);
    // Only remove what this call added: after dispose + re-register, an old disposer must not
    // unregister the newer definition.
    return () => {
      if (this.#tools.get(def.name) === def) this.#tools.delete(def.name);
    };
  }

  get(name: string): AnyToolDefinition | undefined {
    return this.#tools.get(name);
  }

  list(): AnyToolDefinition[] {
    return [...this.#tools.values()];
  }

  schemas(query: SchemaQuery = {}): ToolSchema[] {
    const { allow, limit } = query;
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) {
      throw new EdgeError(
        "invalid_option",
        { limit },
        "schemas(): limit must be a non-negative integer. Pass 0 or a larger whole number.",
      );
    }
    const allowed = allow ? new Set(allow) : null;
    const picked = this.list().filter((def) => allowed === null || allowed.has(def.name));
    return picked.slice(0, limit ?? picked.length).map(toSchema);
  }
}

/** docs/contract.md §1 tool schema. Fresh copies: the caller may hash or serialize them but not reach the definition. */
function toSchema(def: AnyToolDefinition): ToolSchema {
  return {
    name: def.name,
    description: def.description,
    parameters: structuredClone(def.parameters) as JsonObject,
    execution_level: def.executionLevel,
    return_direct: def.returnDirect,
    output_schema: def.outputSchema === null ? null : (structuredClone(def.outputSchema) as JsonObject),
  };
}
