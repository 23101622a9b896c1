// Node entry points: the same core plus the Node adapters (runner processes, files).
export * from "./index.ts";
export { createNodeRunnerHost, fileSource, projectFileSource, type NodeRunnerHostOptions } from "./runner/node.ts";
export { createNodeReceiptStore } from "./receipts/store-node.ts";
export { createNodeImprintStore } from "./imprint/node-store.ts";
export { createNodePendingStore } from "./confirm/node-pending.ts";
export { createNodeFactsStore } from "./facts/store-node.ts";
export { openNodeVfs } from "./builtins/vfs/vfs-node.ts";
export { createNodeLlamaCppEngine, createNodeLlamaBackend, modelCacheDir, type NodeLlamaCppEngineOptions } from "./engines/llamacpp/node/index.ts";
