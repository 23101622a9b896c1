// Parsing the model's text (docs/contract.md §4 step 3). A tool call is exactly one JSON object
// {"tool_name": "...", "arguments": {...}} and nothing else; one surrounding Markdown ```json
// fence is tolerated, and so is one pair of <tool_call>…</tool_call> tags around it: Qwen2.5's and
// Qwen3's chat templates train the model to wrap its calls in that markup, and a real model may
// keep it even when told the bare format (the object inside must still be exactly Edge's).
// Anything else is the answer — except text that is clearly an attempt at a call (it starts with
// "{", alone or in a ```json fence, embeds an object opening with "tool_name", or holds
// <tool_call> markup), which must then be exact.
import { isObj, type JsonObject } from "../contract/types.ts";

/** Model outputs beyond this are refused outright (a runaway generation is not an answer). */
export const MAX_MODEL_OUTPUT_CHARS = 256 * 1024;

export type ParsedOutput =
  | { kind: "answer"; text: string }
  | { kind: "call"; toolName: string; args: JsonObject }
  | { kind: "invalid"; reason: string }
  | { kind: "oversized"; chars: number };

const FENCE = /^```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;
const TOOL_CALL_TAGS = /^<tool_call>([\s\S]*?)<\/tool_call>$/;
const TOOL_CALL_MARKUP = "<tool_call>";

export function parseModelOutput(raw: string): ParsedOutput {
  if (raw.length > MAX_MODEL_OUTPUT_CHARS) return { kind: "oversized", chars: raw.length };
  const text = raw.trim();
  const wrapped = FENCE.exec(text) ?? TOOL_CALL_TAGS.exec(text);
  const body = wrapped ? wrapped[1]!.trim() : text;
  const markup = text.includes(TOOL_CALL_MARKUP);
  const attempt = body.startsWith("{") || /\{\s*"tool_name"\s*:/.test(text) || markup;
  if (!attempt) return { kind: "answer", text };
  if (!body.startsWith("{") || body.includes(TOOL_CALL_MARKUP)) {
    return {
      kind: "invalid",
      reason: markup
        ? "<tool_call> markup must hold exactly one JSON object and nothing else around it"
        : "text around the JSON object; a call must be the JSON object alone",
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return { kind: "invalid", reason: `not one valid JSON object (${(err as Error).message})` };
  }
  if (!isObj(value)) {
    return { kind: "invalid", reason: "the call must be a JSON object" };
  }
  const keys = Object.keys(value);
  if (keys.length !== 2 || !keys.includes("tool_name") || !keys.includes("arguments")) {
    return {
      kind: "invalid",
      reason: `the object must have exactly the keys "tool_name" and "arguments" (found: ${keys.map((k) => JSON.stringify(k)).join(", ") || "none"})`,
    };
  }
  const { tool_name: toolName, arguments: args } = value;
  if (typeof toolName !== "string" || toolName.length === 0)
    return { kind: "invalid", reason: '"tool_name" must be a non-empty string' };
  if (!isObj(args)) {
    return { kind: "invalid", reason: '"arguments" must be a JSON object' };
  }
  return { kind: "call", toolName, args: args as JsonObject };
}
