// ToolRuntime public API: registry, defineTool, the seven-stage pipeline, and its policies.
export * from "./types.ts";
export { defineTool, isPythonTool, PYTHON_TOOL_KIND } from "./define.ts";
export { createToolRuntime, type ToolRuntime } from "./runtime.ts";
export { timeoutPolicy } from "./timeout-policy.ts";
export { spillPolicy } from "./spill-policy.ts";
