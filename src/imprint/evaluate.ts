// Evaluation at learn time: each scored question is asked twice on the learning engine — once bare
// (no system message: the base model), once with the imprint prefix as the system message — and we
// count the answers that parse (parseModelOutput, the loop's own parser) to the expected behaviour:
// a valid call of the expected tool (arguments valid against its schema, and equal to
// expected_arguments when given), or a plain answer when expected_tool is null. Nothing is executed.
// Order of generations (what a scripted engine's script must follow): for each scored question in
// sample order, first without the prefix, then with it (on llama.cpp each is a checked turn: a
// proposal, its check, and an answer when the check declines it).
// The questions are asked as live chat asks them — the same sampling and guided-call format
// (src/engines/tool-turn.ts), the same max_tokens, a leading think block stripped before judging —
// so the score predicts what chat will do.
import { validateAgainst } from "../contract/ajv.ts";
import { canonicalJson, sha256Text } from "../contract/hash.ts";
import { EdgeError } from "../contract/errors.ts";
import type { ToolSchema } from "../contract/types.ts";
import type { ChatMessage, Engine } from "../engines/engine.ts";
import { toolTurnPolicy, type ToolChoice, type TurnFormat } from "../engines/tool-turn.ts";
import { answerBudget } from "../engines/token-budget.ts";
import { checkedTurn, checksCalls } from "../chat/model-turn.ts";
import { parseModelOutput } from "../chat/parse.ts";
import { splitThink } from "../chat/think.ts";
import type { ImprintEvaluation, ImprintEvaluationItem } from "./record.ts";
import type { LearnQuestion } from "./sample.ts";

export interface EvaluateOptions {
  engine: Engine;
  prefix: string;
  schemas: readonly ToolSchema[];
  questions: readonly LearnQuestion[];
  /** Send the prefix once before the questions and time it (web-llm); default: not for the scripted engine. */
  prefill?: boolean;
  maxTokens?: number;
  /** Guided decoding for the tools (default: the engine's tool-turn policy, as in chat). */
  responseFormat?: TurnFormat;
  /** The policy's tool choice (default auto); questions are first turns. */
  toolChoice?: ToolChoice;
  signal?: AbortSignal;
}

/** What one output parsed to, as a short label, and whether it is the expected behaviour. An
 *  answer-only generation (a checked turn's answer) is an answer whatever it holds, as in chat. */
function judgeOutput(
  text: string,
  question: LearnQuestion,
  schemas: readonly ToolSchema[],
  answerOnly = false,
): { label: string; matched: boolean } {
  const parsed = answerOnly ? ({ kind: "answer" } as const) : parseModelOutput(splitThink(text).visible);
  if (parsed.kind === "answer") return { label: "answer", matched: question.expected_tool === null };
  if (parsed.kind !== "call") return { label: "invalid", matched: false };
  const label = parsed.toolName;
  if (typeof question.expected_tool !== "string" || parsed.toolName !== question.expected_tool)
    return { label, matched: false };
  const schema = schemas.find((s) => s.name === parsed.toolName);
  if (!schema) return { label, matched: false };
  let valid = false;
  try {
    valid = validateAgainst(schema.parameters, parsed.args).valid;
  } catch {
    valid = false;
  }
  if (!valid) return { label: `${label}(invalid arguments)`, matched: false };
  if (question.expected_arguments && canonicalJson(question.expected_arguments) !== canonicalJson(parsed.args)) {
    return { label: `${label}(other arguments)`, matched: false };
  }
  return { label, matched: true };
}

export async function evaluateImprint(options: EvaluateOptions): Promise<ImprintEvaluation> {
  const { engine, prefix, schemas, questions } = options;
  const info = engine.info();
  const scored = questions.filter((q) => q.expected_tool !== undefined);
  const prefill = options.prefill ?? info.kind !== "scripted";
  const policy = schemas.length ? toolTurnPolicy(info, options.toolChoice) : {};
  const responseFormat = schemas.length
    ? (options.responseFormat ?? policy.responseFormat)?.(schemas, { index: 0 })
    : undefined;
  const sampling = {
    maxTokens: answerBudget(info.contextWindow, options.maxTokens),
    ...(policy.temperature !== undefined ? { temperature: policy.temperature } : {}),
  };
  // Each question is a first turn: a checked turn where chat checks calls (src/chat/model-turn.ts).
  const checked = responseFormat !== undefined && !options.responseFormat && checksCalls(engine);
  const ask = async (messages: ChatMessage[], question: LearnQuestion) => {
    if (options.signal?.aborted) throw new EdgeError("aborted", { stage: "learn" });
    if (checked) {
      const kind = options.toolChoice === "required" ? "call" : "checked";
      const turn = await checkedTurn({
        engine,
        messages,
        prompt: question.question,
        schemas,
        kind,
        ranCalls: [],
        signal: options.signal,
        ...sampling,
      });
      return judgeOutput(turn.result.text, question, schemas, turn.answerOnly);
    }
    const out = await engine.chat({
      messages,
      signal: options.signal,
      ...sampling,
      ...(responseFormat ? { responseFormat } : {}),
    });
    return judgeOutput(out.text, question, schemas);
  };
  let prefillMs: number | null = null;
  if (prefill && scored.length) {
    const t0 = performance.now();
    await engine.chat({
      messages: [
        { role: "system", content: prefix },
        { role: "user", content: "Ready?" },
      ],
      ...sampling,
      maxTokens: 1,
      signal: options.signal,
    });
    prefillMs = Math.round(performance.now() - t0);
  }
  const items: ImprintEvaluationItem[] = [];
  for (const q of scored) {
    const bare = await ask([{ role: "user", content: q.question }], q);
    const withPrefix = await ask(
      [
        { role: "system", content: prefix },
        { role: "user", content: q.question },
      ],
      q,
    );
    items.push({
      question_sha256: await sha256Text(q.question),
      expected_tool: q.expected_tool ?? null,
      without_prefix: bare.label,
      with_prefix: withPrefix.label,
      matched_without: bare.matched,
      matched_with: withPrefix.matched,
    });
  }
  return {
    mode: scored.length ? "engine" : "skipped",
    engine: info.kind,
    model_id: info.modelId,
    question_count: questions.length,
    scored: scored.length,
    matched_without_prefix: items.filter((i) => i.matched_without).length,
    matched_with_prefix: items.filter((i) => i.matched_with).length,
    items,
    prefill_ms: prefillMs,
  };
}
