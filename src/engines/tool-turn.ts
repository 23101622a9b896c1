// How a turn that may call tools is generated: sampling and guided decoding, per engine, model and
// tool choice. The live loop (src/chat/loop.ts) and learn's evaluation (src/imprint/evaluate.ts)
// both take their settings from here, so an imprint's score is measured under the conditions chat
// runs in.
//
// Sampling: a tool call must be the same call every time the same question is asked, so
// tool-capable turns decode greedily (temperature 0) — except Qwen3: Qwen's model cards advise
// sampling for it (non-thinking mode: temperature 0.7) and warn that greedy decoding can loop in
// endless repetition, so it gets a low temperature (0.3) instead of none.
//
// Tool choice (`edge chat --tool-choice`, the playground's selector, the widget's `tool-choice`):
//   auto      — every model turn: exactly one valid call, or a plain answer (the default)
//   required  — the first turn must be a call; after a tool result the model may call again or
//               answer (a small model then cannot skip the tools, and still finishes the run)
//   none      — free text (the loop still parses and checks whatever comes)
import type { ToolSchema } from "../contract/types.ts";
import type { EngineInfo, ResponseFormat } from "./engine.ts";
import { toolCallOrTextResponseFormat, toolCallResponseFormat } from "./grammar.ts";

export type ToolChoice = "auto" | "required" | "none";
export const TOOL_CHOICES: readonly ToolChoice[] = ["auto", "required", "none"];

export function isToolChoice(value: unknown): value is ToolChoice {
  return typeof value === "string" && (TOOL_CHOICES as readonly string[]).includes(value);
}

/** The response format of one model turn of a prompt (`turn.index` 0 is the first). */
export type TurnFormat = (schemas: readonly ToolSchema[], turn: { index: number }) => ResponseFormat | undefined;

export interface ToolTurnPolicy {
  /** Sampling temperature for tool-capable turns (undefined: the model's own default). */
  temperature?: number;
  /** Guided decoding for the active tools (undefined: the engine decodes freely; the loop
   *  re-validates every output either way). */
  responseFormat?: TurnFormat;
}

/** Per model family (prefix of the model id), first match wins. */
const TOOL_TURN_TEMPERATURE: readonly { prefix: string; temperature: number }[] = [
  { prefix: "Qwen3-", temperature: 0.3 },
  { prefix: "Qwen2.5-", temperature: 0 },
  { prefix: "Llama-3.2-", temperature: 0 },
];
/** Models not in the table: greedy. */
const DEFAULT_TOOL_TURN_TEMPERATURE = 0;

function toolTurnTemperature(modelId: string): number {
  // Case-insensitive: web-llm ids are "Qwen3-1.7B-…", GGUF catalog ids "qwen3-1.7b-…".
  const id = modelId.toLowerCase();
  return (
    TOOL_TURN_TEMPERATURE.find((t) => id.startsWith(t.prefix.toLowerCase()))?.temperature ??
    DEFAULT_TOOL_TURN_TEMPERATURE
  );
}

/** Guided decoding for a tool choice (undefined: free text). Generating engines constrain decoding
 *  with these formats (grammar.ts; llama.cpp turns them into GBNF). */
function toolChoiceFormat(choice: ToolChoice): TurnFormat | undefined {
  if (choice === "none") return undefined;
  if (choice === "auto") return (schemas) => toolCallOrTextResponseFormat(schemas);
  return (schemas, turn) =>
    turn.index === 0 ? toolCallResponseFormat(schemas) : toolCallOrTextResponseFormat(schemas);
}

/** The policy for an engine. The scripted demo replays text, so it gets neither setting. */
export function toolTurnPolicy(info: EngineInfo, choice: ToolChoice = "auto"): ToolTurnPolicy {
  if (info.kind === "scripted") return {};
  const responseFormat = toolChoiceFormat(choice);
  return { temperature: toolTurnTemperature(info.modelId), ...(responseFormat ? { responseFormat } : {}) };
}
