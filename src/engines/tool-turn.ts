// How a turn that may call tools is generated: sampling and guided decoding, per engine and model.
// The live loop (src/chat/session.ts) and learn's evaluation (src/imprint/evaluate.ts) both take
// their settings from here, so an imprint's score is measured under the conditions chat runs in.
//
// Sampling: a tool call must be the same call every time the same question is asked, so
// tool-capable turns decode greedily (temperature 0) — except Qwen3: Qwen's model cards advise
// sampling for it (non-thinking mode: temperature 0.7) and warn that greedy decoding can loop in
// endless repetition, so it gets a low temperature (0.3) instead of none.
import type { ToolSchema } from "../contract/types.ts";
import type { EngineInfo, ResponseFormat } from "./engine.ts";
import { toolCallOrTextResponseFormat } from "./grammar.ts";

export interface ToolTurnPolicy {
  /** Sampling temperature for tool-capable turns (undefined: the model's own default). */
  temperature?: number;
  /** Guided decoding for the active tools (undefined: the engine decodes freely; the loop
   *  re-validates every output either way). */
  responseFormat?: (schemas: readonly ToolSchema[]) => ResponseFormat | undefined;
}

/** Per model family (prefix of the model id), first match wins. */
export const TOOL_TURN_TEMPERATURE: readonly { prefix: string; temperature: number }[] = [
  { prefix: "Qwen3-", temperature: 0.3 },
  { prefix: "Qwen2.5-", temperature: 0 },
  { prefix: "Llama-3.2-", temperature: 0 },
];
/** Models not in the table: greedy. */
export const DEFAULT_TOOL_TURN_TEMPERATURE = 0;

export function toolTurnTemperature(modelId: string): number {
  // Case-insensitive: web-llm ids are "Qwen3-1.7B-…", GGUF catalog ids "qwen3-1.7b-…".
  const id = modelId.toLowerCase();
  return TOOL_TURN_TEMPERATURE.find((t) => id.startsWith(t.prefix.toLowerCase()))?.temperature ?? DEFAULT_TOOL_TURN_TEMPERATURE;
}

/** The policy for an engine. The scripted demo replays text, so it gets neither setting. */
export function toolTurnPolicy(info: EngineInfo): ToolTurnPolicy {
  if (info.kind === "scripted") return {};
  return {
    temperature: toolTurnTemperature(info.modelId),
    // Generating engines constrain decoding to "exactly one valid call, or plain text" (grammar.ts;
    // llama.cpp turns the same format into GBNF).
    responseFormat: toolCallOrTextResponseFormat,
  };
}
