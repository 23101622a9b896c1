// The Node entry: the public API plus the Node composition root (createNodeEdge: stores under
// $EDGE_DATA_DIR, runner processes, the confirm step, llama.cpp engines) and the Node adapters a
// program may want alone.
export * from "./index.ts";
export {
  createNodeEdge,
  type NodeDirectCall,
  type NodeEdge,
  type NodeEdgeOptions,
  type NodeEngine,
  type NodeEngineChoice,
  type NodeSessionRequest,
  type NodeTools,
  type NodeToolsFile,
} from "./assembly/node.ts";
export { createNodeRunnerHost, type NodeRunnerHostOptions } from "./runner/node.ts";
export { createNodeFactsStore } from "./facts/store-node.ts";
export { createNodeImprintStore } from "./imprint/store-node.ts";
export { createNodeLlamaCppEngine, type NodeLlamaCppEngineOptions } from "./engines/llamacpp/node/index.ts";
