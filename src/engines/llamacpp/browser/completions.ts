// wllama's chat completions, on the page: one generation streamed with the model's own chat
// template, a GBNF grammar and the server core's prompt cache (`cache_prompt`: a follow-up evaluates
// only its new tokens, and the timings say how many), and the one-token probe a prefix warm is
// measured with (prefix-warm.ts).
import type { ChatCompletionChunk, ChatCompletionParams, Wllama } from "@wllama/wllama";
import { EdgeError } from "../../../contract/errors.ts";
import type { ChoiceScores } from "../../engine.ts";
import type { GenerateRequest, GenerateResult } from "../backend.ts";
import { logSumExp } from "../choices.ts";
import type { ProbeTimings, WarmProgress } from "./prefix-warm.ts";
import { completionError, type errorLog } from "./worker-errors.ts";

export type Log = ReturnType<typeof errorLog>;

/** Templates that can think (Qwen3) render their non-thinking generation prompt; others ignore it. */
const NON_THINKING = { enable_thinking: false };

interface Timings {
  cache_n: number;
  prompt_n: number;
  prompt_ms: number;
  predicted_n: number;
  predicted_ms: number;
}

function resultOf(
  text: string,
  finishReason: GenerateResult["finishReason"],
  timings: Timings | undefined,
  times: { start: number; first: number; end: number },
): GenerateResult {
  return {
    text,
    finishReason,
    promptTokens: timings ? timings.cache_n + timings.prompt_n : 0,
    promptTokensEvaluated: timings?.prompt_n ?? 0,
    completionTokens: timings?.predicted_n ?? 0,
    timeToFirstTokenMs: times.first - times.start,
    promptMs: timings?.prompt_ms ?? times.first - times.start,
    decodeMs: timings?.predicted_ms ?? times.end - times.first,
  };
}

/** One streamed completion with the model's template, the grammar and the prompt cache. */
export async function generateWith(
  w: Wllama,
  request: GenerateRequest,
  onText: (delta: string) => void,
  log: Log,
  signal: AbortSignal,
): Promise<GenerateResult> {
  const start = performance.now();
  let first: number | undefined;
  let text = "";
  let finishReason: GenerateResult["finishReason"] = "stop";
  let timings: Timings | undefined;
  const mark = log.mark();
  try {
    await w.createChatCompletion({
      messages: request.messages,
      stream: true,
      onData: (chunk) => {
        const choice = chunk.choices[0];
        const delta = choice?.delta?.content;
        if (delta) {
          first ??= performance.now();
          text += delta;
          onText(delta);
        }
        if (choice?.finish_reason === "length") finishReason = "length";
        if (chunk.timings) timings = chunk.timings;
      },
      ...(request.grammar !== undefined ? { grammar: request.grammar } : {}),
      // Non-thinking mode, as in Node (../chat-template.ts): a tool call must be the whole reply.
      chat_template_kwargs: NON_THINKING,
      temperature: request.temperature,
      seed: request.seed,
      max_tokens: request.maxTokens ?? request.defaultMaxTokens,
      cache_prompt: true,
      abortSignal: signal,
    });
  } catch (e) {
    // An abort ends the stream early: the engine reports it (with the partial text).
    const failed = completionError(e, signal, log.since(mark));
    if (failed) throw failed;
  }
  const end = performance.now();
  return resultOf(text, finishReason, timings, { start, first: first ?? end, end });
}

/**
 * One greedy token after the cached prompt — what a probe or a weighing generates — each streamed
 * chunk handed to `onData`. A failure wllama reports is thrown with its code; an abort ends it with
 * `aborted` at `stage`.
 */
async function oneCachedToken(
  w: Wllama,
  messages: GenerateRequest["messages"],
  extra: Pick<ChatCompletionParams, "logprobs" | "top_logprobs" | "return_progress">,
  onData: (chunk: ChatCompletionChunk) => void,
  { log, signal, stage }: { log: Log; signal: AbortSignal; stage: string },
): Promise<void> {
  const mark = log.mark();
  try {
    await w.createChatCompletion({
      messages,
      stream: true,
      onData,
      max_tokens: 1,
      temperature: 0,
      cache_prompt: true,
      chat_template_kwargs: NON_THINKING,
      ...extra,
      abortSignal: signal,
    });
  } catch (e) {
    throw completionError(e, signal, log.since(mark)) ?? new EdgeError("aborted", { stage });
  }
  if (signal.aborted) throw new EdgeError("aborted", { stage });
}

/** How many of the next token's most likely tokens Engine.scoreChoices reads. A check's "yes" and
 *  "no" are among the first few; how likely a reply starts a call is compared with SmolLM2-135M's
 *  line at e^-6.5 (src/chat/check-calibration.ts), and the 200th most likely token was at e^-7.9
 *  to e^-9.2 on its prompts here (the 20th only at e^-4 to e^-5). llama.cpp's server core returns
 *  as many as asked. */
const TOP_LOGPROBS = 200;

/**
 * Engine.scoreChoices on wllama: a cached one-token completion asked for the first token's top
 * log-probabilities, which llama.cpp's server core reports before sampling (so as node-llama-cpp's
 * raw logits give them in Node); a spelling is found there by its text. A choice with no spelling
 * among them scores -Infinity and is less likely than `floor`, the least of them: src/chat/weighing.ts
 * decides a call start with that bound and lets a check generate its verdict.
 */
export async function choiceLogprobs(
  w: Wllama,
  messages: GenerateRequest["messages"],
  choices: readonly (readonly string[])[],
  log: Log,
  signal: AbortSignal,
): Promise<ChoiceScores> {
  let top: readonly { token: string; logprob: number }[] | undefined;
  await oneCachedToken(
    w,
    messages,
    { logprobs: true, top_logprobs: TOP_LOGPROBS },
    (chunk) => {
      top ??= chunk.choices[0]?.logprobs?.content?.[0]?.top_logprobs;
    },
    { log, signal, stage: "generation" },
  );
  const seen = top ?? [];
  const byText = new Map(seen.map((t) => [t.token, t.logprob]));
  return {
    logProbs: choices.map((spellings) => logSumExp([...new Set(spellings)].map((s) => byText.get(s) ?? -Infinity))),
    floor: seen.length < TOP_LOGPROBS ? -Infinity : Math.min(...seen.map((t) => t.logprob)),
  };
}

/** A cached completion that generates one token, for its timings (prefix-warm.ts); with
 *  `onProgress`, llama.cpp reports the prompt's progress after each batch (of what it lacked). */
export async function probe(
  w: Wllama,
  messages: GenerateRequest["messages"],
  log: Log,
  signal: AbortSignal,
  onProgress?: WarmProgress,
): Promise<ProbeTimings> {
  let timings: ProbeTimings | undefined;
  await oneCachedToken(
    w,
    messages,
    onProgress ? { return_progress: true } : {},
    (chunk) => {
      if (chunk.timings) timings = chunk.timings;
      const p = chunk.prompt_progress;
      if (p && onProgress) onProgress({ processed: p.processed - p.cache, total: p.total - p.cache });
    },
    { log, signal, stage: "warm_prefix" },
  );
  if (!timings)
    throw new EdgeError(
      "generation_failed",
      {},
      "llama.cpp reported no timings for the conversation start, so its cache could not be measured.",
    );
  return timings;
}
