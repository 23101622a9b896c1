// Token budgets shared by the engines and the loop: the answer budget (max_tokens) when nobody
// set one, and what a chat template adds around the message contents. Engines that can tokenize
// the contents but not render their template (web-llm keeps the tokenizer inside its worker and
// exposes no template rendering) add the allowance to get an upper bound of the prompt's size.

/** The answer budget when neither the caller nor the window says otherwise. */
const DEFAULT_MAX_TOKENS = 1024;

/** max_tokens for a generation: the caller's value, else 1024 but at most a quarter of the window
 *  (a 4,096-token model keeps 3,072 tokens for the prompt). */
export function answerBudget(window: number | undefined, maxTokens?: number): number {
  if (maxTokens !== undefined) return maxTokens;
  return window ? Math.max(1, Math.min(DEFAULT_MAX_TOKENS, Math.floor(window / 4))) : DEFAULT_MAX_TOKENS;
}

/** Per message: role markers and separators. ChatML (Qwen) adds 5 tokens, Llama 3 adds 5. */
const TEMPLATE_TOKENS_PER_MESSAGE = 8;
/** Once per prompt: a template's default system text, the reply header, Qwen3's empty think
 *  block, Llama 3's date lines. */
const TEMPLATE_TOKENS_PER_PROMPT = 64;

/** Content token counts (one per message) → an upper bound of the whole prompt. */
export function withTemplateAllowance(contentTokens: readonly number[]): number {
  return contentTokens.reduce((sum, n) => sum + n + TEMPLATE_TOKENS_PER_MESSAGE, TEMPLATE_TOKENS_PER_PROMPT);
}

/** An upper bound of what one more message adds to a prompt: a token covers at least one UTF-8
 *  byte (byte-level BPE, SentencePiece with byte fallback), plus its role markers. */
export function messageTokenBound(content: string): number {
  return new TextEncoder().encode(content).length + TEMPLATE_TOKENS_PER_MESSAGE;
}
