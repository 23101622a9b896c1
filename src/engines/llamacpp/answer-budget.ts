// The context-window rule every llama.cpp backend applies before it evaluates a prompt: the
// prompt plus the answer budget must fit. Checked before the model is asked, so an oversized turn
// is a clear `context_window_exceeded`, never a crash or a silently cut answer.
import { EdgeError } from "../../contract/errors.ts";
import { contextWindowAdvice } from "../engine.ts";

/** The fewest answer tokens worth generating when the caller names no budget. */
export const MIN_ANSWER_TOKENS = 16;

/** The answer budget for this prompt, or `context_window_exceeded`. */
export function checkAnswerBudget(
  promptTokens: number,
  contextWindow: number,
  requested: number | undefined,
  fallback: number,
  trainedContext?: number,
): number {
  const need = requested ?? Math.min(fallback, MIN_ANSWER_TOKENS);
  if (promptTokens + need > contextWindow) {
    throw new EdgeError(
      "context_window_exceeded",
      { promptTokens, maxTokens: need, contextWindow, ...(trainedContext !== undefined ? { trainedContext } : {}) },
      `This turn needs ${promptTokens} prompt tokens plus ${need} for the answer, but the model's context window is ${contextWindow} tokens. ${contextWindowAdvice(contextWindow, trainedContext)}`,
    );
  }
  return requested ?? Math.min(fallback, contextWindow - promptTokens);
}
