// Engines: the seam (engine.ts), the scripted demo engine, the web-llm engine and its helpers.
// Importing this module does not load web-llm (webllm.ts reaches it only via dynamic import()) nor
// any llama.cpp runtime (backends are separate: ./llamacpp/node, ./llamacpp/browser).
export * from "./engine.ts";
export * from "./scripted.ts";
export * from "./grammar.ts";
export * from "./models.ts";
export * from "./progress.ts";
export * from "./pinned-models.ts";
export * from "./token-budget.ts";
export * from "./tool-turn.ts";
export * from "./webgpu.ts";
export * from "./webllm-errors.ts";
export * from "./webllm.ts";
