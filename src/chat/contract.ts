// The tool contract (docs/contract.md §4 step 2): the active tools' schemas and the call format, rendered
// as one system message. Byte-deterministic for a given active set, because its sha256 is
// recorded in every receipt (tool_instruction_sha256) and imprints bake it in.
import { canonicalJson, sha256Text, type Sha256 } from "../contract/hash.ts";
import type { ToolSchema } from "../contract/types.ts";
import { parameterNotes, toolSignature } from "./signature.ts";

export const TOOL_CONTRACT_VERSION = "edge.tool_contract.v3";

/**
 * What a tool's line tells the model: its signature (src/chat/signature.ts: its parameters in their
 * own order, types, enums, defaults) and its description — all a call needs. The rest of the
 * schema is the host's business and costs tokens on every prompt: the output schema (results are
 * checked, never written by the model), the execution level (approval happens outside the model)
 * and return_direct. A parameter's own description follows on an indented line.
 */
export function contractLine(schema: ToolSchema): string {
  const head = `- ${toolSignature(schema.name, schema.parameters)}${schema.description ? `: ${schema.description}` : ""}`;
  return [head, ...parameterNotes(schema.parameters).map((n) => `    ${n}`)].join("\n");
}

/** Sorted by name, one tool per line (contractLine). */
export function renderToolContract(schemas: readonly ToolSchema[], maxCalls = 4): string {
  const sorted = [...schemas].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lines = [
    `You can call these tools (${TOOL_CONTRACT_VERSION}):`,
    ...sorted.map(contractLine),
    "",
    "When one of these tools does what the person asks, reply with only the call, one JSON object:",
    '{"tool_name": "<tool name>", "arguments": {"<parameter>": <value>}}',
    "Take the values from the person's words; leave out a parameter to use its default.",
    "When no tool does what the person asks, or the results you were given already answer it, reply to the person in plain text instead, using only those results.",
    `At most ${maxCalls} calls per question.`,
  ];
  return lines.join("\n");
}

export function toolInstructionSha256(text: string): Promise<Sha256> {
  return sha256Text(text);
}

/** The message that hands a tool result back to the model. Deterministic, canonical JSON. */
export function renderToolResult(toolName: string, content: unknown): string {
  return `Result of ${toolName}: ${canonicalJson(content)}`;
}

/** The JSON a tool-result message carries (renderToolResult's, or v2's "Tool result for NAME:\n"
 *  form), or the message itself when it carries none. */
export function toolResultOf(message: string): unknown {
  const head = /^(?:Result of [^:\n]*: |Tool result for [^:\n]*:\n)/.exec(message);
  try {
    return JSON.parse(head ? message.slice(head[0].length) : message) as unknown;
  } catch {
    return message;
  }
}

/** A description's first sentence: what the tool does, without the caveats that follow ("Needs
 *  explicit confirmation before it runs." made the check decline every commit call). */
function firstSentence(description: string): string {
  return /^[^\n]*?[.!?](?=\s|$)/.exec(description.trim())?.[0] ?? description.trim().split("\n")[0]!;
}

/**
 * The question a checked turn asks about the call the model just proposed (src/chat/model-turn.ts),
 * answered "yes" or "no". Before any result: whether the proposed tool (named with its
 * description's first sentence) matches the person's request, quoted — "no" declines the call.
 * After one: whether the results already answer the whole request — "yes" declines it. Measured
 * with eval:tools on Qwen2.5-Coder-0.5B: quoting the request is what makes the verdict track it;
 * naming what the tool does took no_tool from 13 to 17 of 18; asked after a result whether a new
 * call was "still needed", the model said "no" to every call the request still needed (5 of 5)
 * (docs/decisions.md, eval/README.md).
 */
export function renderCallCheck(prompt: string, afterResult: boolean, tool?: ToolSchema): string {
  const request = JSON.stringify(prompt);
  if (afterResult)
    return `Check: do the results above already answer all of my request ${request}? Answer with one word, yes or no.`;
  const what = tool?.description ? `that call (${tool.name}: ${firstSentence(tool.description)})` : "that call";
  return `Check: does ${what} match my request ${request}? Answer with one word, yes or no.`;
}

/**
 * The line a checked turn's answer is asked with, after the call was declined (or none can run):
 * "plain sentences", and after a result, "what the results above say". Without it, asked to answer
 * where its proposal was declined, Qwen2.5-Coder-0.5B wrote its call again in other clothes
 * (`({"tool_name": …`, `null`, `air_quality(city: "delhi")`): 12 of its 13 answers after a result,
 * and none of the 10 that eval:tools checks stated the result; with it, all 10 do (eval/README.md
 * "Answers"). Quoting the request here made both models echo it.
 */
export function renderAnswerRequest(afterResult: boolean): string {
  return afterResult
    ? "Answer me in plain sentences, with what the results above say."
    : "Answer me in plain sentences, without a tool.";
}

/** The one repair turn's instruction (docs/contract.md §4 step 4). */
export function renderRepair(code: string, message: string, toolNames: readonly string[]): string {
  return [
    `Your last reply was not a valid tool call (${code}): ${message}`,
    `Reply with exactly one JSON object {"tool_name": "...", "arguments": {...}} using one of: ${[...toolNames].sort().join(", ")};`,
    "or answer in plain text.",
  ].join("\n");
}
