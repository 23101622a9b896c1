// What every built-in tool shares: its metadata marker, the workspace path rule, and the closed
// output schemas that write-capable tools (commit level) must declare.
import type { JsonObject } from "../contract/types.ts";
import { WORKSPACE_DIR } from "./vfs/core.ts";
import { normalizePath } from "./vfs/paths.ts";

/** `meta.kind` of built-in tools (spill applies to them; Python tools are "python"). */
export const BUILTIN_KIND = "builtin";

export interface BuiltinMeta {
  kind: typeof BUILTIN_KIND;
  /** Changes the workspace: declared at execution level "commit" so writes ask first. */
  writes: boolean;
  /** false: never spilled (read_image: a preview of base64 is useless). */
  spill?: boolean;
  [key: string]: unknown;
}

/** Paths the model gives: absolute, or relative to /workspace. */
export function workspacePath(path: string): string {
  return normalizePath(path, WORKSPACE_DIR);
}

/** The preview spillPolicy puts in place of a large result, as optional properties. */
const SPILL_PROPERTIES: JsonObject = {
  spilled: { type: "boolean" },
  path: { type: "string" },
  bytes: { type: "integer" },
  head: { type: "string" },
  tail: { type: "string" },
};

/**
 * A closed output schema (required by commit tools) whose result may also come back spilled:
 * the tool's own properties plus the spill preview's, none required (properties of both shapes
 * are listed so either validates).
 */
export function closedOutputSchema(properties: JsonObject, options: { spill?: boolean } = {}): JsonObject {
  return {
    type: "object",
    properties: { ...(options.spill ? SPILL_PROPERTIES : {}), ...properties },
    additionalProperties: false,
  };
}
