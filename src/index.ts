// Edge Web's public API: what a person embedding Edge uses, every name listed on purpose (no
// `export *`). An export inside src/ is internal until it is listed here. This entry is
// environment-neutral; src/node.ts adds the Node root (createNodeEdge) and adapters, src/browser.ts
// the browser root (createBrowserEdge) and adapters. What is here, and why: docs/api.md.

// Errors: one table of stable codes, each with a message a person can act on.
export { ERRORS } from "./contract/error-table.ts";
export { EdgeError, isErrorCode, type ErrorCode, type ErrorJson } from "./contract/errors.ts";

// The contract's data: schemas, canonical JSON and its hashes.
export { canonicalJson, sha256Json, type Sha256 } from "./contract/hash.ts";
export type { ExecutionLevel, JsonObject, JsonValue, Selection, ToolSchema } from "./contract/types.ts";
export { EDGE_RUNTIME_VERSION } from "./contract/version.ts";

// A session, as a root assembles it (src/node.ts, src/browser.ts), and its events and runs.
export type { SessionBuiltins, SessionRequest, SessionTools } from "./assembly/session.ts";
export type {
  ChatEvent,
  ChatRun,
  ChatSession,
  ChatTurnOptions,
  PendingTicket,
  ToolSurface,
} from "./chat/types.ts";

// Tools files: validate, inspect, freeze, one checked call; sources in memory.
export { callTool, type ToolCallReport } from "./toolset/call.ts";
export { freezeToolset, type FrozenTool, type FrozenToolset } from "./toolset/freeze.ts";
export { inspect, memorySource, validate, type InspectReport, type ValidateReport } from "./toolset/inspect.ts";
export { memoryProjectSource, type ToolsProject } from "./toolset/project.ts";
export type { RunnerHost, ToolSource } from "./runner/host.ts";

// Tools written in TypeScript beside the Python ones, and the approval of "ask" verdicts.
export { defineTool } from "./runtime/define.ts";
export type { ApprovalDecision, ApprovalHandler, ApprovalRequest, ToolDefinition } from "./runtime/types.ts";

// Receipts: the hash chain and its check, the store seam.
export { parseJsonLines, toJsonLines, verifyReceipts, type VerifyResult } from "./receipts/chain.ts";
export type { ReceiptStore } from "./receipts/store.ts";
export { createMemoryReceiptStore } from "./receipts/store-memory.ts";
export type { CallReceipt, CallStatus, Receipt, RunOutcome } from "./receipts/types.ts";

// Confirmation: a commit tool's pending action, confirmed or rejected by a person.
export type { ConfirmOutcome, PendingAction, PendingView } from "./confirm/types.ts";
export { viewOf } from "./confirm/pending.ts";
export type { PendingStore } from "./confirm/store.ts";

// Engines: the seam, the llama.cpp catalog, the scripted replay.
export type {
  Engine,
  EngineInfo,
  EngineKind,
  LoadProgress,
  ModelFingerprint,
} from "./engines/engine.ts";
export type { ModelSource } from "./engines/llamacpp/backend.ts";
export { LLAMACPP_CATALOG, type CatalogModel } from "./engines/llamacpp/catalog.ts";
export { ScriptedEngine } from "./engines/scripted.ts";
export type { ToolChoice } from "./engines/tool-turn.ts";

// Neural Imprint: learn a sample, bind the imprint to a session, move it between devices.
export { imprintBinding } from "./imprint/gate.ts";
export { learn, type LearnOptions, type LearnResult } from "./imprint/learn.ts";
export type { Imprint } from "./imprint/record.ts";
export { parseLearnSampleText, type LearnSample } from "./imprint/sample.ts";
export { createMemoryImprintStore } from "./imprint/store-memory.ts";
export type { ImprintStore } from "./imprint/store.ts";
export { exportImprint, importImprint } from "./imprint/transfer.ts";

// Local facts: import a facts file, look it up as a tool.
export { importFacts } from "./facts/import.ts";
export type { FactsStore } from "./facts/store.ts";

// The built-in tools on the workspace's files.
export type { BuiltinToolName } from "./builtins/names.ts";
export type { EdgeVfs } from "./builtins/vfs/core.ts";
