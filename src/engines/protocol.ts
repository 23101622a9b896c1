// The few messages our llm worker sends besides web-llm's own protocol. They carry the "edge."
// prefix so the page can route them before web-llm's client (which throws on unknown kinds) sees
// anything. The worker probes WebGPU first (cheap) and says so, then imports web-llm (~6 MB) and
// says it is ready; the page never sends web-llm a request before "edge.ready".
import type { WebGPUProbe } from "./webgpu.ts";

export type LlmWorkerMessage =
  | { kind: "edge.hello"; probe: WebGPUProbe }
  | { kind: "edge.ready" }
  | { kind: "edge.fatal"; message: string };

export function isLlmWorkerMessage(data: unknown): data is LlmWorkerMessage {
  return (
    typeof data === "object" &&
    data !== null &&
    typeof (data as { kind?: unknown }).kind === "string" &&
    (data as { kind: string }).kind.startsWith("edge.")
  );
}
