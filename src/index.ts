// Edge Web's public API. Every name is listed here on purpose (no `export *`), from the module that
// defines it: an export added inside src/ is not public until it is added here. Environment-neutral:
// the Node adapters (the runner-process host, file sources and stores) are in src/node.ts, the
// browser adapters (the sandboxed runner host, IndexedDB stores) in src/browser.ts.

// The contract's data: tool schemas, canonical JSON and hashes, the error table, selection.
export { compileSchema, validateAgainst, type SchemaCheck, type SchemaError } from "./contract/ajv.ts";
export {
  EdgeError, errorJson, ERRORS, isErrorCode, toErrorJson, type ErrorCode, type ErrorJson,
} from "./contract/errors.ts";
export {
  activeSetSha256, canonicalJson, isSha256, randomHex, schemaSha256, sha256Bytes, sha256Json, sha256Text,
  toolsFileSha256, type Sha256,
} from "./contract/hash.ts";
export { selectActiveSet, type SelectionResult } from "./contract/selection.ts";
export {
  ACTIVE_TOOL_LIMIT, EXECUTION_LEVELS, MAX_TOOLS_FILE_BYTES, SCHEMA_GENERATOR_VERSION, type DiscoveredTool,
  type Discovery, type ExecutionLevel, type JsonObject, type JsonValue, type Selection, type ToolSchema,
} from "./contract/types.ts";
export { EDGE_RUNTIME_VERSION } from "./contract/version.ts";

// ToolRuntime: defineTool, the registry and the pipeline every tool call goes through.
export { defineTool, isPythonTool, isToolDefinition, PYTHON_TOOL_KIND, TOOL_NAME_RE } from "./runtime/define.ts";
export { toSchema } from "./runtime/registry.ts";
export { createToolRuntime, DEFAULT_MAX_CONCURRENCY, type ToolRuntime } from "./runtime/runtime.ts";
export { snapshot } from "./runtime/snapshot.ts";
export { spillPolicy, type SpilledResult, type SpillPolicyOptions } from "./runtime/spill-policy.ts";
export { timeoutPolicy, type TimeoutPolicyOptions } from "./runtime/timeout-policy.ts";
export {
  type AnyToolDefinition, type ApprovalDecision, type ApprovalHandler, type ApprovalRequest, type AroundDispatchHook,
  type DeepReadonly, type DispatchReplacement, type DispatchView, type Disposer, type ExecuteContext,
  type ExecutionStatus, type HookView, type PostDecision, type PostExecuteHook, type PostExecuteView,
  type PreDecision, type PreExecuteHook, type PreExecuteView, type ResultObserver, type SchemaQuery, type StageName,
  type StageRecord, type ToolCall, type ToolContext, type ToolDefinition, type ToolExecution, type ToolRuntimeOptions,
  type ToolSpec,
} from "./runtime/types.ts";

// The runner seam: a host runs Python tools (the Node and browser hosts: src/node.ts, src/browser.ts).
export { type CallJob, type CallOutcome, type DiscoverJob, type RunnerHost, type ToolSource } from "./runner/host.ts";
export { DEFAULT_PROJECT_LIMITS } from "./runner/project-bounds.ts";

// Tools files and projects: validate, inspect, freeze, one checked call.
export { callTool, checkToolArgs, type CallToolOptions, type ToolCallReport } from "./toolset/call.ts";
export {
  activeSchemas, analyzeToolset, freezeToolset, type FrozenTool, type FrozenToolset, type ToolsetReport,
} from "./toolset/freeze.ts";
export {
  inspect, memorySource, validate, type InspectedTool, type InspectReport, type ToolsetOptions, type ValidateReport,
} from "./toolset/inspect.ts";
export { memoryProjectSource, type ProjectFile, type ToolsProject } from "./toolset/project.ts";

// The tool loop: a chat session, its events and its runs.
export { estimateTokens } from "./chat/context.ts";
export { renderToolContract, TOOL_CONTRACT_VERSION } from "./chat/contract.ts";
export { parseModelOutput, type ParsedOutput } from "./chat/parse.ts";
export { chat, createChatSession } from "./chat/session.ts";
export { splitThink } from "./chat/think.ts";
export {
  DEFAULT_MAX_CALLS, type ChatEvent, type ChatRun, type ChatSession, type ChatSessionOptions, type ChatTools,
  type ChatTurnOptions, type ConfirmationBroker, type ImprintBinding, type PendingRequest, type PendingTicket,
  type ToolSurface,
} from "./chat/types.ts";

// Receipts: their types, the hash chain and the store seam.
export {
  chainReceipt, parseJsonLines, toJsonLines, verifyReceipts, type BrokenLink, type VerifyResult,
} from "./receipts/chain.ts";
export { type ReceiptStore } from "./receipts/store.ts";
export {
  RECEIPT_VERSION, type CallReceipt, type CallStatus, type ContextReceipt, type EngineStats,
  type ImprintPrefixReceipt, type PrefixStartReceipt, type Receipt, type ReceiptBody, type ReceiptClient, type ReceiptOrigin,
  type ReceiptSurface, type RefusedCall, type RunOutcome, type ToolInstructionMode, type ToolSurfaceKind,
} from "./receipts/types.ts";

// Stored records (pending actions, facts, imprints) as the stores keep them.
export {
  type BoundSelection, type Fact, type FactProvenance, type Imprint, type ImprintEvaluation,
  type ImprintEvaluationItem, type ImprintRecordBody, type ImprintState, type ImprintTools,
  type PendingAction, type PendingStatus,
} from "./store/records.ts";

// Engines: the Engine seam, web-llm, llama.cpp, the scripted engine, model lists and budgets.
export {
  type ChatMessage, type ChatRequest, type ChatResult, type ChatRole, type ChatUsage, type Engine, type EngineInfo,
  type EngineKind, type LoadPhase, type LoadProgress, type ModelFingerprint, type PrefixStateCapability,
  type PrefixWarmth, type ProgressListener, type ResponseFormat, type StartPrimed, type StartStateStore,
  type StructuralTag, type StructuralTagFormat,
} from "./engines/engine.ts";
export {
  type BackendLoadOptions, type GenerateRequest, type GenerateResult, type LlamaBackend, type LoadedModel,
  type ModelSource, type PreparedModel, type PromptMessage,
} from "./engines/llamacpp/backend.ts";
export { catalogModel, catalogSource, LLAMACPP_CATALOG, type CatalogModel } from "./engines/llamacpp/catalog.ts";
export {
  DEFAULT_CONTEXT_SIZE, LlamaCppEngine, modelIdOf, type LlamaCppEngineOptions,
} from "./engines/llamacpp/engine.ts";
export { readGgufSummary, type ByteSource, type GgufSummary } from "./engines/llamacpp/gguf.ts";
export {
  chooseDefaultModel, DEFAULT_MODEL_PREFERENCE, estimateDownloadMB, fingerprintOf, isChatModel, listModelOptions,
  resolveModel, type AdapterFeatures, type ModelOption,
} from "./engines/models.ts";
export { isPinned, PINNED_RECORDS, withPinnedRecords, type PinnedRecord } from "./engines/pinned-models.ts";
export {
  SCRIPTED_LABEL, ScriptedEngine, type Script, type ScriptedCall, type ScriptedEngineOptions,
} from "./engines/scripted.ts";
export { answerBudget, DEFAULT_MAX_TOKENS } from "./engines/token-budget.ts";
export {
  DEFAULT_TOOL_TURN_TEMPERATURE, isToolChoice, TOOL_CHOICES, TOOL_TURN_TEMPERATURE, toolTurnPolicy, type ToolChoice,
  type ToolTurnPolicy, type TurnFormat,
} from "./engines/tool-turn.ts";
export {
  detectWebGPU, isUsableWebGPU, probeWebGPU, webgpuUnavailableError, type GpuAdapterLike, type GpuDeviceLike,
  type GpuLike, type WebGPUAdapterSummary, type WebGPUProbe,
} from "./engines/webgpu.ts";
export {
  createLlmWorker, deleteCachedModel, isModelCached, listModels, resolveAppConfig, WebLLMEngine,
  type WebLLMEngineOptions,
} from "./engines/webllm.ts";

// Neural Imprint: learn samples, learn, the restore gate, export and import.
export { evaluateImprint, judgeOutput, type EvaluateOptions } from "./imprint/evaluate.ts";
export { checkImprint, fingerprintKey, imprintBinding, type GateContext } from "./imprint/gate.ts";
export {
  imprintToolsOf, learn, learnToolsOf, surfaceSchemas, type LearnOptions, type LearnResult, type LearnTools,
  type SavedState,
} from "./imprint/learn.ts";
export { planLearn, type LearnPlan, type PlannedQuestion, type PlanOptions } from "./imprint/plan.ts";
export { IMPRINT_PREFIX_VERSION, renderImprintPrefix } from "./imprint/prefix.ts";
export {
  IMPRINT_VERSION, isImprintId, listingOf, parseImprintJson, parseImprintText, runtimeInfo, sealImprint,
  verifyImprint, type ImprintListing,
} from "./imprint/record.ts";
export {
  CORRECTION_TYPES, LEARN_SAMPLE_SCHEMA, MAX_SAMPLE_BYTES, parseLearnSample, parseLearnSampleText,
  TOOL_SCHEMA_EXPORT_SCHEMA, type CorrectionType, type ExpectedToolPolicy, type ExportedTool, type LearnCorrection,
  type LearnQuestion, type LearnRecord, type LearnSample, type PolicyTool, type ToolSchemaExport,
} from "./imprint/sample.ts";
export {
  evaluationQuestions, planCorrections, sampleSha256, sampleWarnings, summarizeSample, type CorrectionPlan,
  type SampleSummary, type SkippedCorrection,
} from "./imprint/sample-rules.ts";
export { createMemoryImprintStore } from "./imprint/store-memory.ts";
export { type ImprintStore } from "./imprint/store.ts";
export {
  exportImprint, importImprint, IMPRINT_EXPORT_VERSION, parseImprintExport, renderImprintExport, restoreImprint,
  type ImprintExport,
} from "./imprint/transfer.ts";

// Local facts: the file format, import, the lookup tool, manifests and tool surfaces.
export {
  checkStoreName, FACTS_LIMITS, FACTS_SCHEMA_VERSION, parseFactsFile, requireFactsFile, STORE_NAME_RE, type FactsFile,
  type FactsParse,
} from "./facts/format.ts";
export { importFacts, type ImportResult } from "./facts/import.ts";
export {
  createFactsLookupTool, defaultLookupDescription, FACTS_LOOKUP_KIND, FACTS_LOOKUP_VERSION, LOOKUP_LIMITS,
  LOOKUP_PARAMETERS, lookupSchema, type FactsLookupOptions, type LookupArgs, type LookupMatch, type LookupResult,
} from "./facts/lookup.ts";
export {
  compareWithSchemaExport, MANIFEST_MAX_BYTES, manifestSchemas, TOOLS_MANIFEST_VERSION, validateToolsManifest,
  type ManifestReport, type ManifestTool, type ToolsManifest,
} from "./facts/manifest.ts";
export {
  type FactsStore, type FactsStoreDetail, type FactsStoreSummary, type ImportFileOptions, type ImportReport,
} from "./facts/store.ts";
export { factsStoreSurface, manifestSurface, toolsManifestSurface, type FactsSurface } from "./facts/surface.ts";

// The built-in tools on the workspace VFS.
export { DEFAULT_BASH_LIMITS, type ExecutionLimits } from "./builtins/bash.ts";
export { DEFAULT_IMAGE_MAX_BYTES } from "./builtins/fs-tools.ts";
export { GOAL_STATUSES, goalsPath, type Goal } from "./builtins/goals.ts";
export {
  allowBuiltinWrites, builtinsForSession, builtinSpillPolicy, builtinToolDefinitions, createBuiltinWritePlanner,
  DEFAULT_SPILL_INLINE_BYTES, registerBuiltins, writeApproval, type BuiltinsOptions, type WriteApprovalOptions,
} from "./builtins/index.ts";
export { BUILTIN_TOOL_NAMES, checkBuiltinNames, DEFAULT_BUILTINS, type BuiltinToolName } from "./builtins/names.ts";
export { DEFAULT_VFS_LIMITS, EdgeVfs, openVfs, WORKSPACE_DIR, type VfsLimits } from "./builtins/vfs/core.ts";
export { normalizePath } from "./builtins/vfs/paths.ts";
export { type VfsEntryRecord, type VfsPersistence } from "./builtins/vfs/store.ts";
export { type WebSearchHit, type WebSearchProvider } from "./builtins/web.ts";
export { type FileChange, type WritePlan, type WritePlanner } from "./builtins/write-plan.ts";

// Confirmation: pending actions, confirm and reject.
export { createConfirmationBroker, type ConfirmationBrokerOptions } from "./confirm/broker.ts";
export {
  confirm, purgeExpired, reject, startPurging, type ConfirmContext, type PurgeReport,
} from "./confirm/confirm.ts";
export { isExpired, isPendingId, viewOf, type CreatePendingOptions, type NewPendingAction } from "./confirm/pending.ts";
export { type PendingStore } from "./confirm/store.ts";
export {
  BINDING_VERSION, DEFAULT_PENDING_TTL_MS, DEFAULT_RETENTION_MS, PENDING_RECORD_VERSION, PENDING_STATUSES,
  type ConfirmOutcome, type PendingTicketInfo, type PendingView,
} from "./confirm/types.ts";
