// Python tools from a frozen toolset, registered through the same defineTool API as every other
// tool; their body is one checked runner call. The full call report (hashes, HMAC check, stderr)
// is kept per call id for the receipt, since the pipeline only carries the result.
import { EdgeError } from "../contract/errors.ts";
import type { JsonObject } from "../contract/types.ts";
import type { RunnerHost } from "../runner/host.ts";
import { defineTool, PYTHON_TOOL_KIND, type AnyToolDefinition } from "../runtime/index.ts";
import { callTool, type ToolCallReport } from "../toolset/call.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";
import type { WorkspaceSource } from "../toolset/workspace.ts";

export interface PythonToolOptions {
  host: RunnerHost;
  /** Hard limit per call (the host terminates the worker). */
  timeoutMs?: number;
  /** Receives every call report (also failed ones), keyed by the runtime's call id. */
  onReport?: (report: ToolCallReport) => void;
  /** The workspace read_local tools see at /workspace. */
  workspace?: WorkspaceSource | undefined;
}

/** Each call gets its own fresh worker, so Python tools could run side by side; but their code may
 *  touch shared things (files in Node), so the conservative default is a barrier. Every surface
 *  that runs Python tools (the chat loop, `edge mcp serve`) schedules them by this. */
export const PYTHON_TOOLS_CONCURRENCY_SAFE = false;

export function pythonToolDefinitions(toolset: FrozenToolset, options: PythonToolOptions): AnyToolDefinition[] {
  return toolset.active.map((tool) =>
    defineTool<JsonObject, JsonObject>({
      name: tool.schema.name,
      description: tool.schema.description,
      parameters: tool.schema.parameters,
      executionLevel: tool.schema.execution_level,
      returnDirect: tool.schema.return_direct,
      outputSchema: tool.schema.output_schema,
      isConcurrencySafe: PYTHON_TOOLS_CONCURRENCY_SAFE,
      meta: { kind: PYTHON_TOOL_KIND, schema_sha256: tool.schema_sha256 },
      async execute(args, ctx) {
        const report = await callTool(toolset, options.host, tool.schema.name, args, {
          callId: ctx.callId,
          signal: ctx.signal,
          timeoutMs: options.timeoutMs,
          ...(options.workspace ? { workspace: options.workspace } : {}),
        });
        options.onReport?.(report);
        if (!report.ok || !report.result) {
          const e = report.error;
          throw new EdgeError(
            e?.code ?? "runner_crashed",
            { tool: tool.schema.name, ...(report.diagnostics ?? {}) },
            e?.message,
          );
        }
        return report.result;
      },
    }),
  );
}
