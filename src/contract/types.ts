// The tool contract's types: what discovery produces, what the model sees, what is hashed.
import type { ErrorJson } from "./errors.ts";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A plain object (not null, not an array): the first check on any parsed JSON or untrusted message. */
export function isObj(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export type ExecutionLevel = "read" | "prepare" | "commit";
export const EXECUTION_LEVELS: readonly ExecutionLevel[] = ["read", "prepare", "commit"];

/** Version of the type-hint → JSON Schema generator; part of every receipt and imprint. The host
 *  refuses a discovery that names another version (runner/verify.ts): only this generator's
 *  schemas are used. */
export const SCHEMA_GENERATOR_VERSION = "edge.tools.schema_gen.v1";

/** The at-most-8 rule of docs/contract.md §3. */
export const ACTIVE_TOOL_LIMIT = 8;

/** 1 MiB: a tools file is code, not data (docs/contract.md leaves the bound to us; see docs/decisions.md). */
export const MAX_TOOLS_FILE_BYTES = 1024 * 1024;

/** The tool schema of docs/contract.md §1: exactly what the model sees and what schema_sha256 covers. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: JsonObject;
  execution_level: ExecutionLevel;
  return_direct: boolean;
  output_schema: JsonObject | null;
}

/** One tool as discovery reports it: the schema plus metadata that is not hashed. */
export interface DiscoveredTool {
  schema: ToolSchema;
  intent_tags: string[];
  permissions: string[];
  /** 1-based line of the function definition in the tools file. */
  line?: number;
}

/** What a discover job returns (from the Python runner, before host-side checks). */
export interface Discovery {
  ok: boolean;
  tools_file_sha256: string;
  schema_generator_version: string;
  tools: DiscoveredTool[];
  errors: ErrorJson[];
  warnings: ErrorJson[];
}

/** Narrowing of the active set (docs/contract.md §3): by name and/or by intent tag (union of both). */
export interface Selection {
  tool?: readonly string[];
  toolTag?: readonly string[];
}
