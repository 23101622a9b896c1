// One web-llm chat completion, request to result. The request always carries max_tokens (an
// unbounded generation would run until the KV cache is full) and asks for the usage chunk. The
// stream is read chunk by chunk, each read raced against Stop and against a lost worker, because
// web-llm's client waits for the worker's reply forever: Stop must work even when the worker
// cannot answer any more.
//
// Chunk shapes (web-llm 0.2.86, MLCEngine.streamCurrentGeneration / makeStream*Chunk): delta
// chunks `{choices: [{delta: {content, role}, finish_reason: null, …}]}` (the first one carries
// everything decoded after prefill — with Qwen3's enable_thinking:false that starts with
// "<think>\n\n</think>\n\n"), then one final chunk `{choices: [{delta: {}, finish_reason}]}`, then,
// with stream_options.include_usage, a usage chunk `{choices: [], usage}`.
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionRequestStreaming } from "@mlc-ai/web-llm";
import { EdgeError } from "../contract/errors.ts";
import { raceSignal } from "../contract/abort.ts";
import { abortedError, type ChatRequest, type ChatResult, type ChatUsage } from "./engine.ts";

export interface CompletionOptions {
  modelId: string;
  toolRole: "user" | "tool";
  /** max_tokens when the request sets none. */
  maxTokens: number;
}

/** Edge's request → web-llm's ChatCompletionRequest (streaming). */
export function completionRequest(request: ChatRequest, options: CompletionOptions): ChatCompletionRequestStreaming {
  const messages = request.messages.map((m): ChatCompletionMessageParam => {
    if (m.role === "tool") {
      return options.toolRole === "tool"
        ? { role: "tool", content: m.content, tool_call_id: "edge" }
        : { role: "user", content: m.content };
    }
    return { role: m.role, content: m.content } as ChatCompletionMessageParam;
  });
  const body: ChatCompletionRequestStreaming = {
    messages,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: request.maxTokens ?? options.maxTokens,
  };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.responseFormat)
    body.response_format = request.responseFormat as ChatCompletionRequestStreaming["response_format"];
  // Qwen3 thinks aloud by default; a tool call must be the whole reply, so turn it off. web-llm
  // still prepends an empty think block, which the loop strips (src/chat/think.ts).
  if (options.modelId.startsWith("Qwen3")) body.extra_body = { enable_thinking: false };
  return body;
}

export interface StreamRace {
  signal: AbortSignal;
  /** Rejects (with engine_lost) when the worker or GPU is lost. */
  lost: Promise<never>;
  onToken?: (delta: string) => void;
  /** performance.now() when the request was made (time to first token if web-llm reports none). */
  startedAt: number;
}

/** The text streamed so far (kept outside the reader so a failure still knows its partial text). */
export interface StreamProgress {
  text: string;
}

async function race<T>(work: Promise<T>, r: StreamRace, progress: StreamProgress): Promise<T> {
  return Promise.race([raceSignal(work, r.signal, () => abortedError({ partialText: progress.text })), r.lost]);
}

/** Send the request and read its stream to the end. */
export async function runCompletion(
  create: () => Promise<AsyncIterable<ChatCompletionChunk>>,
  r: StreamRace,
  progress: StreamProgress,
): Promise<ChatResult> {
  const stream = await race(create(), r, progress);
  const it = stream[Symbol.asyncIterator]();
  let finish: string | null | undefined;
  let usage: ChatCompletionChunk["usage"];
  let firstTokenAt: number | undefined;
  try {
    for (;;) {
      const next = await race(it.next(), r, progress);
      if (next.done) break;
      const chunk = next.value;
      const choice = chunk.choices[0];
      const delta = choice?.delta?.content;
      if (delta) {
        firstTokenAt ??= performance.now();
        progress.text += delta;
        r.onToken?.(delta);
      }
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
  } catch (e) {
    // Let web-llm's client close the worker-side generator (it holds the model's lock until it
    // finishes); harmless when the worker is gone.
    void it.return?.()?.catch(() => undefined);
    throw e;
  }
  if (finish === "abort") throw abortedError({ partialText: progress.text });
  if (finish !== "stop" && finish !== "length") {
    // The stream ended without web-llm's final chunk: the generation did not finish properly.
    throw new EdgeError(
      "generation_failed",
      { reason: "stream_ended_early", finishReason: finish ?? null, partialText: progress.text },
      "The model's stream ended before the generation finished; nothing was used. Try again, or reload the model.",
    );
  }
  const result: ChatResult = { text: progress.text, finishReason: finish };
  const out = usageOf(usage, firstTokenAt === undefined ? undefined : firstTokenAt - r.startedAt);
  if (out) result.usage = out;
  return result;
}

/** web-llm's usage → ChatUsage. Its prompt_tokens are the tokens prefilled for THIS request (only
 *  the new ones when it reused its KV cache), hence promptTokensEvaluated; the whole prompt's size
 *  is not in it. Without a usage chunk, only the page's own time to first token is known. */
function usageOf(
  u: ChatCompletionChunk["usage"] | undefined,
  pageFirstTokenMs: number | undefined,
): ChatUsage | undefined {
  if (!u) return pageFirstTokenMs === undefined ? undefined : { timeToFirstTokenMs: pageFirstTokenMs };
  const out: ChatUsage = {
    promptTokensEvaluated: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    totalTokens: u.total_tokens,
  };
  const extra = u.extra;
  if (extra) {
    out.prefillTokensPerS = extra.prefill_tokens_per_s;
    out.decodeTokensPerS = extra.decode_tokens_per_s;
    if (typeof extra.time_to_first_token_s === "number") out.timeToFirstTokenMs = extra.time_to_first_token_s * 1000;
    if (extra.grammar_init_s !== undefined) out.grammarInitS = extra.grammar_init_s;
    if (extra.grammar_per_token_s !== undefined) out.grammarPerTokenS = extra.grammar_per_token_s;
  }
  if (out.timeToFirstTokenMs === undefined && pageFirstTokenMs !== undefined) out.timeToFirstTokenMs = pageFirstTokenMs;
  return out;
}
