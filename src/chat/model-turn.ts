// One model turn of a prompt that may call tools, as a checked turn (docs/contract.md §4 step 2):
//   1. propose — the model writes a call, held to the call-union grammar (exactly one valid call);
//   2. check   — a proposal cut off at the token limit, or an identical repeat of a call that already
//                ran in this prompt, is declined outright; otherwise the model is asked whether the
//                call matches the person's request (after a result: whether it is still needed),
//                answered "yes" or "no" under a grammar;
//   3. answer  — declined, the model answers in plain text under a grammar that cannot open a call,
//                and that text is the answer.
// Asked to choose between a call and prose in one step, small models choose badly: measured with
// eval:tools, Qwen2.5-Coder-0.5B called a tool on 14 of 18 questions no tool fits, SmolLM2-135M
// never called one. Proposing first and judging the proposal separately does better on the whole
// case set (0.64 → 0.70 and 0.20 → 0.43; eval/README.md, docs/decisions.md). Engines that were not
// measured this way (web-llm), a caller's own response format, and the scripted engine keep the
// single generation.
import { withDefaults } from "../contract/defaults.ts";
import { canonicalJson } from "../contract/hash.ts";
import type { JsonObject, ToolSchema } from "../contract/types.ts";
import type { ChatMessage, ChatResult, ChatUsage, Engine } from "../engines/engine.ts";
import type { CallCheck } from "../receipts/types.ts";
import { checkResponseFormat, textAnswerResponseFormat, toolCallResponseFormat } from "../engines/grammar.ts";
import { renderCallCheck } from "./contract.ts";
import { parseModelOutput } from "./parse.ts";
import { splitThink, withoutThinkBlock } from "./think.ts";

/** What a turn is asked to produce. */
export type TurnKind =
  | "checked" //   propose → check → (call | answer)
  | "call" //      propose only: the call is required (tool choice "required", first turn)
  | "answer"; //   answer only: no call can run any more (the call budget is spent)

export interface CheckedTurnRequest {
  engine: Engine;
  messages: ChatMessage[];
  /** The person's request this turn answers (the check quotes it). */
  prompt: string;
  schemas: readonly ToolSchema[];
  kind: TurnKind;
  /** The calls that already ran in this prompt. */
  ranCalls: readonly { tool_name: string; arguments: JsonObject }[];
  maxTokens: number;
  temperature?: number;
  signal?: AbortSignal;
  /** Streams the answer and a required call; a proposal that may be declined, and its verdict, are not shown as they are written. */
  onToken?: (delta: string) => void;
}

export interface CheckedTurn {
  /** The generation the loop reads: the proposed call, or the answer. */
  result: ChatResult;
  /** True when `result` is an answer by construction (the answer grammar): it is taken as text, never parsed as a call. */
  answerOnly: boolean;
  check?: Omit<CallCheck, "turn">;
  /** Every generation's usage, in order. */
  usages: (ChatUsage | undefined)[];
}

/** Whether this engine's guided turns are checked turns. */
export function checksCalls(engine: Engine): boolean {
  return engine.info().kind === "llamacpp";
}

/** The tool a cut-off proposal names (the call grammar writes tool_name first), or "". */
function proposedName(text: string): string {
  return /^\s*\{\s*"tool_name"\s*:\s*"([^"\\]*)"/.exec(text)?.[1] ?? "";
}

/** A call as the tool would run it (defaults filled in), to recognise a repeat. */
const callKey = (schemas: readonly ToolSchema[], toolName: string, args: JsonObject): string =>
  `${toolName} ${canonicalJson(withDefaults(schemas.find((s) => s.name === toolName)?.parameters, args))}`;

export async function checkedTurn(req: CheckedTurnRequest): Promise<CheckedTurn> {
  const { engine, messages, signal } = req;
  const sampling = {
    maxTokens: req.maxTokens,
    signal,
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
  };
  const usages: (ChatUsage | undefined)[] = [];
  const answer = async (check?: Omit<CallCheck, "turn">): Promise<CheckedTurn> => {
    const r = await engine.chat({
      messages,
      ...sampling,
      responseFormat: textAnswerResponseFormat(),
      onToken: withoutThinkBlock(req.onToken),
    });
    usages.push(r.usage);
    return { result: r, answerOnly: true, ...(check ? { check } : {}), usages };
  };
  if (req.kind === "answer") return answer();
  // A required call streams as it is written; a proposal that may yet be declined does not.
  const streamCall = req.kind === "call" ? { onToken: withoutThinkBlock(req.onToken) } : {};
  const proposal = await engine.chat({
    messages,
    ...sampling,
    responseFormat: toolCallResponseFormat(req.schemas),
    ...streamCall,
  });
  usages.push(proposal.usage);
  if (req.kind === "call") return { result: proposal, answerOnly: false, usages };
  const parsed = parseModelOutput(splitThink(proposal.text).visible);
  const ran = new Set(req.ranCalls.map((c) => callKey(req.schemas, c.tool_name, c.arguments)));
  // A call that already ran in this prompt, defaults aside, is declined outright: its result is above.
  if (parsed.kind === "call" && ran.has(callKey(req.schemas, parsed.toolName, parsed.args)))
    return answer({ tool_name: parsed.toolName, verdict: "repeat" });
  // A proposal cut off at the token limit is no call (a string argument that never ends: seen with
  // SmolLM2-135M and random weights); the model answers instead of the run failing on it.
  if (proposal.finishReason === "length") return answer({ tool_name: proposedName(proposal.text), verdict: "cut_off" });
  // A proposal the checks will refuse goes to the loop as it is, for its repair turn.
  if (parsed.kind !== "call") return { result: proposal, answerOnly: false, usages };
  const tool_name = parsed.toolName;
  const afterResult = req.ranCalls.length > 0;
  const question = renderCallCheck(
    req.prompt,
    afterResult,
    req.schemas.find((s) => s.name === tool_name),
  );
  const asked: ChatMessage[] = [
    ...messages,
    { role: "assistant", content: proposal.text },
    { role: "user", content: question },
  ];
  const verdict = await engine.chat({
    messages: asked,
    ...sampling,
    maxTokens: 2,
    responseFormat: checkResponseFormat(),
  });
  usages.push(verdict.usage);
  // Before a result the question is whether the call matches the request; after one, whether the
  // results already answer it: "yes" then declines the call.
  const declined = verdict.text.trim() === (afterResult ? "yes" : "no");
  if (declined) return answer({ tool_name, verdict: "no" });
  return { result: proposal, answerOnly: false, check: { tool_name, verdict: "yes" }, usages };
}
