// Node entry points: the same core plus the Node adapters (runner processes, files).
export * from "./index.ts";
export { createNodeRunnerHost, fileSource, projectFileSource, type NodeRunnerHostOptions } from "./runner/node.ts";
export { createNodeReceiptStore } from "./receipts/store-node.ts";
export { createNodeImprintStore } from "./imprint/store-node.ts";
export { nodeStartStates, startStatesDir, type NodeStartStatesOptions } from "./imprint/start-states-node.ts";
export { createNodePendingStore } from "./confirm/store-node.ts";
export { createNodeFactsStore } from "./facts/store-node.ts";
export { openNodeVfs } from "./builtins/vfs/store-node.ts";
export { createNodeLlamaCppEngine, createNodeLlamaBackend, modelCacheDir, type NodeLlamaCppEngineOptions } from "./engines/llamacpp/node/index.ts";
