// Edge Web's public API. Environment-neutral: Node-only pieces (the worker_threads runner host,
// file sources, file stores) live in src/node.ts; browser-only ones in their adapters.
export * from "./contract/index.ts";
export type { RunnerHost, ToolSource, CallJob, CallOutcome, DiscoverJob } from "./runner/host.ts";
export { analyzeToolset, freezeToolset, activeSchemas, type FrozenToolset, type FrozenTool, type ToolsetReport } from "./toolset/freeze.ts";
export { validate, inspect, memorySource, type ValidateReport, type InspectReport, type InspectedTool, type ToolsetOptions } from "./toolset/inspect.ts";
export { callTool, checkToolArgs, type ToolCallReport, type CallToolOptions } from "./toolset/call.ts";
export * from "./runtime/index.ts";
export { createChatSession, chat, DEFAULT_MAX_CALLS, type ChatSession, type ChatSessionOptions, type ChatRun, type ChatEvent, type ChatTurnOptions } from "./chat/session.ts";
export { renderToolContract, TOOL_CONTRACT_VERSION } from "./chat/contract.ts";
export { parseModelOutput, type ParsedOutput } from "./chat/parse.ts";
export * from "./chat/receipt-types.ts";
export type { Engine, EngineInfo, ChatMessage, ChatRequest, ChatResult, ResponseFormat, LoadProgress, ModelFingerprint } from "./engines/engine.ts";
export { ScriptedEngine, SCRIPTED_LABEL, type Script } from "./engines/scripted.ts";
export { verifyReceipts, chainReceipt, toJsonLines, parseJsonLines, type VerifyResult, type BrokenLink } from "./chat/receipt-chain.ts";
export * from "./imprint/index.ts";
export * from "./facts/index.ts";
export * from "./builtins/index.ts";
export * from "./confirm/index.ts";
