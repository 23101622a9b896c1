// The llama.cpp engine, environment-neutral part: the engine, its backend seam, the GGUF reader,
// grammars and the model catalog. The Node backend is in ./node (exported from src/node.ts), the
// browser one in ./browser (src/browser.ts).
export { LlamaCppEngine, DEFAULT_CONTEXT_SIZE, modelIdOf, toPromptMessages, type LlamaCppEngineOptions } from "./engine.ts";
export type { BackendLoadOptions, GenerateRequest, GenerateResult, LlamaBackend, LoadedModel, ModelSource, PreparedModel, PromptMessage } from "./backend.ts";
export { checkAnswerBudget, MIN_ANSWER_TOKENS } from "./answer-budget.ts";
export { readGgufSummary, type ByteSource, type GgufSummary } from "./gguf.ts";
export { GbnfBuilder, gbnfLiteral, jsonSchemaToGbnf } from "./gbnf.ts";
export { gbnfForResponseFormat } from "./format.ts";
export { LLAMACPP_CATALOG, catalogModel, catalogSource, type CatalogModel } from "./catalog.ts";
