// One model turn of a prompt that may call tools, as a checked turn (docs/contract.md §4 step 2):
//   1. propose — the model writes a call, held to the call-union grammar (exactly one valid call);
//   2. check   — a proposal cut off at the token limit, or an identical repeat of a call that already
//                ran in this prompt, is declined outright; otherwise the model is asked whether the
//                call matches the person's request (after a result: whether the results already
//                answer it), answered "yes" or "no" under a grammar;
//   Before any result, a model with a measured calibration (check-calibration.ts) weighs instead
//   (weighing.ts): how likely its free reply starts a call, before step 1 (at or below its line it
//   goes to step 3 without proposing), or its check's answer against an empty request, in step 2;
//   3. answer  — declined, the model answers in plain text under a grammar that cannot open a call,
//                asked for it in so many words unless weighed no_call (renderAnswerRequest; the
//                conversation keeps that line before the answer), and that text is the answer.
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
import { messageTokenBound } from "../engines/token-budget.ts";
import { renderAnswerRequest, renderCallCheck } from "./contract.ts";
import { checkCalibration, type CheckCalibration } from "./check-calibration.ts";
import { callStartScore, checkScore } from "./weighing.ts";
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
  /** How to weigh, instead of the model's measured calibration (check-calibration.ts); "measure"
   *  weighs both signals, decides nothing with them and reports them (eval:tools --calibrate). */
  calibration?: CheckCalibration | "measure";
}

export interface CheckedTurn {
  /** The generation the loop reads: the proposed call, or the answer. */
  result: ChatResult;
  /** True when `result` is an answer by construction (the answer grammar): it is taken as text, never parsed as a call. */
  answerOnly: boolean;
  /** The line the answer was asked for with, after the conversation (renderAnswerRequest): the
   *  conversation keeps it before the answer, so the next prompt extends what the model saw. */
  asked?: ChatMessage;
  check?: Omit<CallCheck, "turn">;
  /** Every generation's usage, in order. */
  usages: (ChatUsage | undefined)[];
  /** With calibration "measure": both weighed signals, where the engine could tell. */
  measured?: { callStart?: number; check?: number };
}

/** Whether this engine's guided turns are checked turns. */
export function checksCalls(engine: Engine): boolean {
  return engine.info().kind === "llamacpp";
}

/** An upper bound of the tokens the line that asks for an answer adds to a prompt (either wording):
 *  the loop keeps that room beside the answer budget when it fits a checked turn's prompt. */
export const ANSWER_REQUEST_TOKENS = Math.max(
  ...[true, false].map((afterResult) => messageTokenBound(renderAnswerRequest(afterResult))),
);

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
  const firstTurn = req.ranCalls.length === 0;
  const measuring = req.calibration === "measure";
  const calibration =
    req.calibration === "measure"
      ? undefined
      : (req.calibration ?? checkCalibration(engine.info().fingerprint?.sha256));
  const measured: NonNullable<CheckedTurn["measured"]> = {};
  const turn = (t: Pick<CheckedTurn, "result" | "answerOnly" | "check" | "asked">): CheckedTurn => ({
    ...t,
    usages,
    ...(measuring ? { measured } : {}),
  });
  // Asked for in so many words where the model wrote (or must not write) a call; a reply weighed
  // unlikely to start one (no_call) continues the conversation as it is, which the weighing has
  // just evaluated (the line is 15–18 tokens with SmolLM2's and Qwen's tokenizers: about a second
  // at the 16–20 tokens/s wllama prefills on one thread).
  const answer = async (check?: Omit<CallCheck, "turn">): Promise<CheckedTurn> => {
    const asked: ChatMessage | undefined =
      check?.verdict === "no_call" ? undefined : { role: "user", content: renderAnswerRequest(!firstTurn) };
    const r = await engine.chat({
      messages: asked ? [...messages, asked] : messages,
      ...sampling,
      responseFormat: textAnswerResponseFormat(),
      onToken: withoutThinkBlock(req.onToken),
    });
    usages.push(r.usage);
    return turn({ result: r, answerOnly: true, ...(check ? { check } : {}), ...(asked ? { asked } : {}) });
  };
  if (req.kind === "answer") return answer();
  // Before any result, a model whose calibrated signal is how likely its reply starts a call
  // answers without proposing when that is at or below its line.
  if (req.kind === "checked" && firstTurn && (measuring || calibration?.signal === "call_start")) {
    const threshold = calibration?.threshold ?? Infinity;
    const score = await callStartScore(engine, messages, threshold, signal);
    if (measuring && score !== undefined) measured.callStart = score;
    else if (score !== undefined && score <= threshold)
      return answer({ tool_name: "", verdict: "no_call", score, threshold });
  }
  // A required call streams as it is written; a proposal that may yet be declined does not.
  const streamCall = req.kind === "call" ? { onToken: withoutThinkBlock(req.onToken) } : {};
  const proposal = await engine.chat({
    messages,
    ...sampling,
    responseFormat: toolCallResponseFormat(req.schemas),
    ...streamCall,
  });
  usages.push(proposal.usage);
  if (req.kind === "call") return turn({ result: proposal, answerOnly: false });
  const parsed = parseModelOutput(splitThink(proposal.text).visible);
  const ran = new Set(req.ranCalls.map((c) => callKey(req.schemas, c.tool_name, c.arguments)));
  // A call that already ran in this prompt, defaults aside, is declined outright: its result is above.
  if (parsed.kind === "call" && ran.has(callKey(req.schemas, parsed.toolName, parsed.args)))
    return answer({ tool_name: parsed.toolName, verdict: "repeat" });
  // A proposal cut off at the token limit is no call (a string argument that never ends: seen with
  // SmolLM2-135M and random weights); the model answers instead of the run failing on it.
  if (proposal.finishReason === "length") return answer({ tool_name: proposedName(proposal.text), verdict: "cut_off" });
  // A proposal the checks will refuse goes to the loop as it is, for its repair turn.
  if (parsed.kind !== "call") return turn({ result: proposal, answerOnly: false });
  const tool_name = parsed.toolName;
  const tool = req.schemas.find((s) => s.name === tool_name);
  const asking = (request: string): ChatMessage[] => [
    ...messages,
    { role: "assistant", content: proposal.text },
    { role: "user", content: renderCallCheck(request, !firstTurn, tool) },
  ];
  // Before a result the question is whether the call matches the request; after one, whether the
  // results already answer it: "yes" then declines the call.
  const weighs = firstTurn && (measuring || calibration?.signal === "check");
  const weighed = weighs ? await checkScore(engine, req.prompt, asking, signal) : undefined;
  if (measuring) {
    if (weighed !== undefined) measured.check = weighed;
    return turn({ result: proposal, answerOnly: false, check: { tool_name, verdict: "yes" } });
  }
  let keep: boolean;
  let scored = {};
  if (weighed !== undefined && calibration) {
    keep = weighed > calibration.threshold;
    scored = { score: weighed, threshold: calibration.threshold };
  } else {
    const verdict = await engine.chat({
      messages: asking(req.prompt),
      ...sampling,
      maxTokens: 2,
      responseFormat: checkResponseFormat(),
    });
    usages.push(verdict.usage);
    // Only the word that declines declines: a verdict the engine did not hold to yes or no keeps the call.
    keep = verdict.text.trim() !== (firstTurn ? "no" : "yes");
  }
  if (!keep) return answer({ tool_name, verdict: "no", ...scored });
  return turn({ result: proposal, answerOnly: false, check: { tool_name, verdict: "yes", ...scored } });
}
