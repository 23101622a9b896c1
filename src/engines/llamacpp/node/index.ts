// The llama.cpp engine in Node: a LlamaCppEngine on node-llama-cpp, with downloads cached under
// $EDGE_DATA_DIR/models. (The CLI turns a --model string into a ModelSource: src/cli/model.ts.)
import path from "node:path";
import { dataDir } from "../../../platform/node-files.ts";
import { LlamaCppEngine, type LlamaCppEngineOptions } from "../engine.ts";
import { createNodeLlamaBackend } from "./backend.ts";

/** Where `edge` caches downloaded models. */
function modelCacheDir(): string {
  return path.join(dataDir(), "models");
}

export interface NodeLlamaCppEngineOptions extends Omit<LlamaCppEngineOptions, "backend"> {
  /** Default: $EDGE_DATA_DIR/models. */
  cacheDir?: string;
}

export function createNodeLlamaCppEngine(options: NodeLlamaCppEngineOptions): LlamaCppEngine {
  const { cacheDir, ...rest } = options;
  return new LlamaCppEngine({ ...rest, backend: createNodeLlamaBackend({ cacheDir: cacheDir ?? modelCacheDir() }) });
}
