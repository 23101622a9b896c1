// tools/list from the frozen active set: each tool as MCP describes one. inputSchema is exactly the
// frozen parameters schema (what Edge checks the arguments against), outputSchema the declared
// output_schema, and the annotations follow the execution level (docs/contract.md §6).
import type { Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ExecutionLevel } from "../contract/types.ts";
import type { FrozenTool, FrozenToolset } from "../toolset/freeze.ts";

/** Edge's own fields in `_meta` (MCP reserves unprefixed keys). */
export const META = "edge-web/";

function annotationsOf(level: ExecutionLevel): ToolAnnotations {
  if (level === "read") return { readOnlyHint: true };
  // prepare: a reversible draft, not read-only; commit: a side effect that needs the person.
  return { readOnlyHint: false, destructiveHint: level === "commit" };
}

function mcpToolOf(tool: FrozenTool, toolset: FrozenToolset): Tool {
  const s = tool.schema;
  return {
    name: s.name,
    description: s.description,
    inputSchema: s.parameters as Tool["inputSchema"],
    ...(s.output_schema ? { outputSchema: s.output_schema as Tool["outputSchema"] } : {}),
    annotations: annotationsOf(s.execution_level),
    _meta: {
      [`${META}execution_level`]: s.execution_level,
      [`${META}schema_sha256`]: tool.schema_sha256,
      [`${META}active_set_sha256`]: toolset.active_set_sha256,
      [`${META}tools_file_sha256`]: toolset.tools_file_sha256,
    },
  };
}

export function mcpTools(toolset: FrozenToolset): Tool[] {
  return toolset.active.map((t) => mcpToolOf(t, toolset));
}
