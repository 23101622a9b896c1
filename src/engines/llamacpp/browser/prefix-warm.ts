// Engine.warmPrefix for the browser backend. wllama exposes no tokenizer and no template
// rendering, only llama.cpp's server core: chat completions with `cache_prompt` and their timings
// (cache_n: prompt tokens reused from the slot's cache, prompt_n: evaluated). So a conversation
// start is measured as the Node backend measures it — two renderings that differ only in the next
// user turn's text share exactly the start — but through the cache: once [start, user "A"] is
// cached, [start, user "B"] reuses exactly the start's tokens (its cache_n). Each probe is a short
// turn generating one token. The length is remembered per start for the loaded model, so a later
// warm is one probe, which evaluates only what the cache lacks of the start (plus that short turn).
// The first probe reports its progress (llama.cpp's prompt_progress, after each batch of the prompt).
import type { PromptMessage } from "../backend.ts";
import { checkAnswerBudget, MIN_ANSWER_TOKENS } from "../answer-budget.ts";

export interface ProbeTimings {
  /** Prompt tokens reused from the cache. */
  cache_n: number;
  /** Prompt tokens evaluated. */
  prompt_n: number;
}

/** Of a prompt's tokens the cache lacks, how many are evaluated so far. */
export type WarmProgress = (p: { processed: number; total: number }) => void;

/** One cached completion of `messages` (one token generated); resolves with its timings. `signal`
 *  stops it between batches. */
export type CacheProbe = (
  messages: PromptMessage[],
  signal: AbortSignal,
  onProgress?: WarmProgress,
) => Promise<ProbeTimings>;

export type PrefixWarmer = (
  messages: PromptMessage[],
  signal: AbortSignal,
  onProgress?: WarmProgress,
) => Promise<{ tokens: number; evaluated: number }>;

export function prefixWarmer(probe: CacheProbe, contextWindow: () => number): PrefixWarmer {
  const lengths = new Map<string, number>();
  return async (messages, signal, onProgress) => {
    const key = JSON.stringify(messages);
    const first = await probe([...messages, { role: "user", content: "A" }], signal, onProgress);
    let tokens = lengths.get(key);
    if (tokens === undefined) {
      tokens = (await probe([...messages, { role: "user", content: "B" }], signal)).cache_n;
      lengths.set(key, tokens);
    }
    // The start must leave room for a turn and its answer, as any prompt must.
    checkAnswerBudget(tokens, contextWindow(), undefined, MIN_ANSWER_TOKENS);
    return { tokens, evaluated: tokens - Math.min(first.cache_n, tokens) };
  };
}
