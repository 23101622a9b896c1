// The few messages our llm worker exchanges besides web-llm's own protocol. They carry the "edge."
// prefix so each side can route them before web-llm's code (which throws on unknown kinds) sees
// anything. The worker probes WebGPU first (cheap) and says so, then imports web-llm (~6 MB) and
// says it is ready; the page never sends web-llm a request before "edge.ready". After that the
// worker reports a lost GPU device, and answers token counts (web-llm's tokenizer lives only in
// the worker).
import type { WebGPUProbe } from "./webgpu.ts";

/** Worker → page. */
export type LlmWorkerMessage =
  | { kind: "edge.hello"; probe: WebGPUProbe }
  | { kind: "edge.ready" }
  | { kind: "edge.fatal"; message: string }
  /** The GPU device web-llm runs on was lost (driver reset, out of memory, another tab's crash). */
  | { kind: "edge.lost"; reason: string; message: string }
  /** Reply to edge.countTokens: one count per text (or why the worker could not count), and the
   *  loaded model's context window from its merged config, when it has a fixed one. */
  | { kind: "edge.tokens"; id: number; counts?: number[]; contextWindow?: number; error?: string };

/** Page → worker (handled by Edge's worker code, never forwarded to web-llm's handler). */
export type LlmPageRequest = { kind: "edge.countTokens"; id: number; modelId: string; texts: string[] };

function hasEdgeKind(data: unknown): data is { kind: string } {
  return (
    typeof data === "object" &&
    data !== null &&
    typeof (data as { kind?: unknown }).kind === "string" &&
    (data as { kind: string }).kind.startsWith("edge.")
  );
}

export function isLlmWorkerMessage(data: unknown): data is LlmWorkerMessage {
  return hasEdgeKind(data);
}

export function isLlmPageRequest(data: unknown): data is LlmPageRequest {
  return hasEdgeKind(data);
}
