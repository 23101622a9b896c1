// ToolRuntime public API: registry, defineTool, the seven-stage pipeline, and its policies.
export * from "./types.ts";
export { defineTool, isToolDefinition, isPythonTool, TOOL_NAME_RE, PYTHON_TOOL_KIND } from "./define.ts";
export { createToolRuntime, DEFAULT_MAX_CONCURRENCY, type ToolRuntime } from "./runtime.ts";
export { toSchema } from "./registry.ts";
export { timeoutPolicy, type TimeoutPolicyOptions } from "./timeout-policy.ts";
export { spillPolicy, type SpillPolicyOptions, type SpilledResult } from "./spill-policy.ts";
export { snapshot } from "./snapshot.ts";
