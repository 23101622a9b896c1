// The llama.cpp engine in Node: `--model PATH.gguf | URL | catalog-id` → a LlamaCppEngine on
// node-llama-cpp, with downloads cached under $EDGE_DATA_DIR/models.
import { existsSync } from "node:fs";
import path from "node:path";
import { dataDir } from "../../../store/node-files.ts";
import type { ModelSource } from "../backend.ts";
import { catalogModel, catalogSource, unknownModel } from "../catalog.ts";
import { LlamaCppEngine, type LlamaCppEngineOptions } from "../engine.ts";
import { createNodeLlamaBackend } from "./backend.ts";

export { createNodeLlamaBackend } from "./backend.ts";
export { NODE_LLAMA_CPP_VERSION, SETUP_COMMAND } from "./runtime.ts";

/** Where `edge` caches downloaded models. */
export function modelCacheDir(): string {
  return path.join(dataDir(), "models");
}

/** A model given on the command line: an http(s) URL, an existing file, or a catalog id. */
export function nodeModelSource(spec: string, sha256?: string): ModelSource {
  const pin = sha256 !== undefined ? { sha256 } : {};
  if (/^https?:\/\//i.test(spec)) return { kind: "url", url: spec, ...pin };
  if (existsSync(spec)) return { kind: "file", path: path.resolve(spec), ...pin };
  const entry = catalogModel(spec);
  if (entry) return catalogSource(entry);
  throw unknownModel(spec);
}

export interface NodeLlamaCppEngineOptions extends Omit<LlamaCppEngineOptions, "backend" | "model"> {
  model: string | ModelSource;
  /** Pin for a path or URL model (hex or "sha256:hex"). */
  sha256?: string;
  /** Default: $EDGE_DATA_DIR/models. */
  cacheDir?: string;
}

export function createNodeLlamaCppEngine(options: NodeLlamaCppEngineOptions): LlamaCppEngine {
  const { model, sha256, cacheDir, ...rest } = options;
  return new LlamaCppEngine({
    ...rest,
    backend: createNodeLlamaBackend({ cacheDir: cacheDir ?? modelCacheDir() }),
    model: typeof model === "string" ? nodeModelSource(model, sha256) : model,
  });
}
