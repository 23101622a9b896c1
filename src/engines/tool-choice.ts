// Tool choice for engines that decode under a grammar (llama.cpp, web-llm): which response format
// each model turn of a prompt gets.
//   auto      — every turn: exactly one valid call, or a plain answer (the default)
//   required  — the first turn must be a call; after a tool result the model may call again or
//               answer (a small model then cannot skip the tools, and still finishes the run)
//   none      — free text (the loop still parses and checks whatever comes)
import type { ToolSchema } from "../contract/types.ts";
import type { ResponseFormat } from "./engine.ts";
import { toolCallOrTextResponseFormat, toolCallResponseFormat } from "./grammar.ts";

export type ToolChoice = "auto" | "required" | "none";
export const TOOL_CHOICES: readonly ToolChoice[] = ["auto", "required", "none"];

export type TurnFormat = (schemas: readonly ToolSchema[], turn: { index: number }) => ResponseFormat | undefined;

export function isToolChoice(value: unknown): value is ToolChoice {
  return typeof value === "string" && (TOOL_CHOICES as readonly string[]).includes(value);
}

/** The session's `responseFormat` for a tool choice (undefined: free text). */
export function toolChoiceFormat(choice: ToolChoice): TurnFormat | undefined {
  if (choice === "none") return undefined;
  if (choice === "auto") return (schemas) => toolCallOrTextResponseFormat(schemas);
  return (schemas, turn) => (turn.index === 0 ? toolCallResponseFormat(schemas) : toolCallOrTextResponseFormat(schemas));
}
