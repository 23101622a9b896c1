// Guided tool calls: from the active tools' schemas, build web-llm's `response_format` so the
// model can only write exactly one valid call {"tool_name": "<name>", "arguments": {...}} — or,
// with the structural tag, either such a call or a plain-text answer that does not start with
// "{". Decoding constraints are a help, not a guarantee the loop relies on: the loop re-parses
// and re-validates everything (ajv) after decoding, exactly as with unconstrained output.
//
// Determinism: the same tools give the same string (tools are ordered by name; each tool's own
// parameter schema keeps its key order, because xgrammar emits object properties in schema order
// and the parameter order of the Python function is the natural one for the model).
import type { JsonObject, ToolSchema } from "../contract/types.ts";
import { EdgeError } from "../contract/errors.ts";
import type { ResponseFormat, StructuralTag } from "./engine.ts";

export type GuidedTool = Pick<ToolSchema, "name" | "parameters">;

/** A plain-text answer: anything whose first character is neither "{" nor whitespace
 *  (so a would-be call cannot sneak in as "text" behind leading spaces). */
export const TEXT_ANSWER_PATTERN = "[^{\\s][\\s\\S]*";

/** An answer-only turn's text: as TEXT_ANSWER_PATTERN, and its first character is not "`" or "<"
 *  either, so the model cannot open a ```json fence or <tool_call> markup (Qwen's templates train
 *  that markup) and write a call into the answer. */
export const ANSWER_ONLY_PATTERN = "[^{\\s`<][\\s\\S]*";

/** The verdict of a proposed call's check (src/chat/model-turn.ts). */
export const CHECK_PATTERN = "yes|no";

function sortedTools(tools: readonly GuidedTool[]): GuidedTool[] {
  if (tools.length === 0) {
    throw new EdgeError(
      "response_format_unsupported",
      { reason: "no_tools" },
      "Guided tool calls need at least one active tool. Pass at least one tool, or leave guided tool calls out.",
    );
  }
  const seen = new Set<string>();
  for (const t of tools) {
    if (seen.has(t.name)) {
      throw new EdgeError(
        "response_format_unsupported",
        { tool: t.name },
        `Tool "${t.name}" appears twice in the guided-call set.`,
      );
    }
    seen.add(t.name);
  }
  return [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The JSON Schema of one call to any of the tools: a oneOf over tools, each branch a closed
 *  object whose tool_name is a const and whose arguments are that tool's parameters schema. */
export function toolCallSchema(tools: readonly GuidedTool[]): JsonObject {
  return {
    oneOf: sortedTools(tools).map((t) => ({
      type: "object",
      properties: {
        tool_name: { const: t.name },
        arguments: t.parameters,
      },
      required: ["tool_name", "arguments"],
      additionalProperties: false,
    })),
  };
}

/** (a) Exactly one valid call, nothing else: JSON mode with the call-union schema. */
export function toolCallResponseFormat(tools: readonly GuidedTool[]): Extract<ResponseFormat, { type: "json_object" }> {
  return { type: "json_object", schema: JSON.stringify(toolCallSchema(tools)) };
}

/** The structural tag of (b): `or` of the call-union json_schema and a plain-text regex. */
export function toolCallOrTextStructuralTag(tools: readonly GuidedTool[]): StructuralTag {
  return {
    type: "structural_tag",
    format: {
      type: "or",
      elements: [
        { type: "json_schema", json_schema: toolCallSchema(tools) },
        { type: "regex", pattern: TEXT_ANSWER_PATTERN },
      ],
    },
  };
}

function regexFormat(pattern: string): Extract<ResponseFormat, { type: "structural_tag" }> {
  const tag: StructuralTag = { type: "structural_tag", format: { type: "regex", pattern } };
  return { type: "structural_tag", structural_tag: JSON.stringify(tag) };
}

/** (c) A plain-text answer only (ANSWER_ONLY_PATTERN): for a turn that must answer — the call budget
 *  is spent, or the model's proposed call was declined (src/chat/model-turn.ts). */
export function textAnswerResponseFormat(): Extract<ResponseFormat, { type: "structural_tag" }> {
  return regexFormat(ANSWER_ONLY_PATTERN);
}

/** Whether a reply under this format is prose: none, "text", or an answer-only turn's (c). The
 *  llama.cpp engine ends such a reply once it is caught in a loop (src/engines/repetition.ts). */
export function isProseFormat(format: ResponseFormat | undefined): boolean {
  if (!format || format.type === "text") return true;
  return format.type === "structural_tag" && format.structural_tag === textAnswerResponseFormat().structural_tag;
}

/** (d) "yes" or "no": the verdict on a proposed call (src/chat/model-turn.ts). */
export function checkResponseFormat(): Extract<ResponseFormat, { type: "structural_tag" }> {
  return regexFormat(CHECK_PATTERN);
}

/** (b) Either exactly one valid call or a plain-text answer. The tag is passed as a JSON string
 *  (web-llm accepts both) so the same tools give byte-identical request formats. */
export function toolCallOrTextResponseFormat(
  tools: readonly GuidedTool[],
): Extract<ResponseFormat, { type: "structural_tag" }> {
  return { type: "structural_tag", structural_tag: JSON.stringify(toolCallOrTextStructuralTag(tools)) };
}
