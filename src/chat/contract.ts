// The tool contract (docs/contract.md §4 step 2): the active tools' schemas and the call format, rendered
// as one system message. Byte-deterministic for a given active set, because its sha256 is
// recorded in every receipt (tool_instruction_sha256) and imprints bake it in.
import { canonicalJson, sha256Text, type Sha256 } from "../contract/hash.ts";
import type { ToolSchema } from "../contract/types.ts";

export const TOOL_CONTRACT_VERSION = "edge.tool_contract.v2";

/**
 * What a tool's line tells the model: its name, its description (when it has one) and the exact
 * JSON Schema of its arguments — all a call needs. The rest of the schema is the host's business
 * and costs tokens on every prompt (v1 sent it: 602 prompt tokens for the 5 example tools with
 * Qwen's tokenizer): the output schema (results are checked, never written by the model),
 * the execution level (approval happens outside the model) and return_direct.
 */
export function contractLine(schema: ToolSchema): string {
  return canonicalJson({ name: schema.name, ...(schema.description ? { description: schema.description } : {}), parameters: schema.parameters });
}

/** Sorted by name, one tool per line (contractLine). */
export function renderToolContract(schemas: readonly ToolSchema[], maxCalls = 4): string {
  const sorted = [...schemas].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lines = [
    `You can call tools. (${TOOL_CONTRACT_VERSION})`,
    "",
    "To call a tool, reply with exactly one JSON object and nothing else:",
    '{"tool_name": "<one of the tool names below>", "arguments": {<arguments matching that tool\'s parameters>}}',
    "",
    "Rules:",
    "- Use only the tools listed below, with arguments that match their JSON Schema exactly (no extra keys).",
    `- At most ${maxCalls} tool calls per question. After a tool result arrives, either call another tool or answer.`,
    "- When you answer, write plain text for the person; do not start the answer with \"{\".",
    "- Never invent tool results; use the results you are given.",
    "",
    "Tools (one per line; parameters is the JSON Schema of its arguments):",
    ...sorted.map(contractLine),
  ];
  return lines.join("\n");
}

export function toolInstructionSha256(text: string): Promise<Sha256> {
  return sha256Text(text);
}

/** The message that hands a tool result back to the model. Deterministic, canonical JSON. */
export function renderToolResult(toolName: string, content: unknown): string {
  return `Tool result for ${toolName}:\n${canonicalJson(content)}`;
}

/** The one repair turn's instruction (docs/contract.md §4 step 4). */
export function renderRepair(code: string, message: string, toolNames: readonly string[]): string {
  return [
    `Your last reply was not a valid tool call (${code}): ${message}`,
    `Reply with exactly one JSON object {"tool_name": "...", "arguments": {...}} using one of: ${[...toolNames].sort().join(", ")};`,
    "or answer in plain text.",
  ].join("\n");
}
