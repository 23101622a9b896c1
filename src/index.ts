// Edge Web's public API. Environment-neutral: Node-only pieces (the runner-process host,
// file sources, file stores) are in src/node.ts; browser-only ones (the sandboxed runner host,
// IndexedDB stores) in src/browser.ts.
export * from "./contract/index.ts";
export type { RunnerHost, ToolSource, CallJob, CallOutcome, DiscoverJob } from "./runner/host.ts";
export { analyzeToolset, freezeToolset, activeSchemas, type FrozenToolset, type FrozenTool, type ToolsetReport } from "./toolset/freeze.ts";
export { validate, inspect, memorySource, type ValidateReport, type InspectReport, type InspectedTool, type ToolsetOptions } from "./toolset/inspect.ts";
export { memoryProjectSource, DEFAULT_PROJECT_LIMITS, type ToolsProject, type ProjectFile } from "./toolset/project.ts";
export { callTool, checkToolArgs, type ToolCallReport, type CallToolOptions } from "./toolset/call.ts";
export * from "./runtime/index.ts";
export { createChatSession, chat } from "./chat/session.ts";
export {
  DEFAULT_MAX_CALLS,
  type ChatTools,
  type ChatSession,
  type ChatSessionOptions,
  type ChatRun,
  type ChatEvent,
  type ChatTurnOptions,
  type ToolSurface,
  type ConfirmationBroker,
  type PendingRequest,
  type PendingTicket,
  type ImprintBinding,
} from "./chat/types.ts";
export { renderToolContract, TOOL_CONTRACT_VERSION } from "./chat/contract.ts";
export { parseModelOutput, type ParsedOutput } from "./chat/parse.ts";
export { splitThink } from "./chat/think.ts";
export { estimateTokens } from "./chat/context.ts";
export * from "./receipts/types.ts";
export * from "./receipts/store.ts";
export * from "./engines/index.ts";
export { verifyReceipts, chainReceipt, toJsonLines, parseJsonLines, type VerifyResult, type BrokenLink } from "./receipts/chain.ts";
export * from "./imprint/index.ts";
export * from "./facts/index.ts";
export * from "./builtins/index.ts";
export * from "./confirm/index.ts";
