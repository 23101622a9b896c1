// Fitting a prompt into the model's context window (prompt + answer must fit; web-llm's prebuilt
// models have 4,096 tokens). Before each generation the loop counts what it would send — the
// contract (system message), the kept history, the current turn — plus the answer budget
// (max_tokens). If that is too much, the OLDEST WHOLE TURNS are dropped (a turn is one prompt
// with every call, result and answer it produced, so a tool exchange is never split and the
// contract is never dropped). If the current turn alone does not fit, the run fails closed with
// `context_window_exceeded` before the model is asked.
import { EdgeError } from "../contract/errors.ts";
import { contextWindowAdvice, type ChatMessage, type Engine } from "../engines/engine.ts";
import { withTemplateAllowance } from "../engines/token-budget.ts";

const utf8 = new TextEncoder();

/**
 * A conservative token count for engines that cannot tokenize: every token of a byte-level BPE
 * tokenizer (Qwen, Llama 3) or a SentencePiece tokenizer with byte fallback covers at least one
 * UTF-8 byte, so bytes are an upper bound; plus the template allowance. It overestimates ordinary
 * text about 3–4×, so history is trimmed earlier than an exact count would.
 */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  return withTemplateAllowance(messages.map((m) => utf8.encode(m.content).length));
}

/** How the loop counts: the engine's own tokenizer when it has one, else the estimate. */
export function tokenCounter(engine: Engine): {
  count(messages: readonly ChatMessage[]): Promise<number>;
  readonly method: "engine" | "estimate";
} {
  let method: "engine" | "estimate" = engine.countTokens ? "engine" : "estimate";
  return {
    get method() {
      return method;
    },
    async count(messages) {
      if (method === "engine" && engine.countTokens) {
        try {
          return await engine.countTokens(messages);
        } catch (err) {
          // A lost or unloaded engine fails the generation itself, with its own code.
          if (err instanceof EdgeError && (err.code === "engine_lost" || err.code === "engine_not_loaded")) throw err;
          method = "estimate";
        }
      }
      return estimateTokens(messages);
    },
  };
}

export interface FitRequest {
  /** The contract or imprint prefix; never dropped. */
  system: ChatMessage | null;
  /** Earlier turns, oldest first; each is kept or dropped whole. */
  turns: readonly (readonly ChatMessage[])[];
  /** The index of the oldest turn still sent (turns before it were dropped earlier). */
  firstTurn: number;
  /** This run's messages so far (its prompt, calls, results, repair turns). */
  current: readonly ChatMessage[];
  window: number | undefined;
  /** max_tokens of the coming generation. */
  reserve: number;
  count(messages: readonly ChatMessage[]): Promise<number>;
  modelId: string;
  /** The model's trained context, when known: whether a larger window is still possible. */
  trained?: number;
}

export interface FitResult {
  messages: ChatMessage[];
  /** The oldest turn sent now (≥ firstTurn). */
  firstTurn: number;
  /** Counted prompt tokens (undefined when the window is unknown and nothing was counted). */
  promptTokens?: number;
}

function assemble(req: FitRequest, first: number): ChatMessage[] {
  return [...(req.system ? [req.system] : []), ...req.turns.slice(first).flat(), ...req.current];
}

export async function fitToWindow(req: FitRequest): Promise<FitResult> {
  if (!req.window) return { messages: assemble(req, req.firstTurn), firstTurn: req.firstTurn };
  const budget = req.window - req.reserve;
  for (let first = req.firstTurn; ; first++) {
    const messages = assemble(req, first);
    const promptTokens = await req.count(messages);
    if (promptTokens <= budget) return { messages, firstTurn: first, promptTokens };
    if (first >= req.turns.length) {
      throw new EdgeError(
        "context_window_exceeded",
        { window: req.window, promptTokens, reserve: req.reserve, droppedTurns: first },
        `This turn needs about ${promptTokens} prompt tokens plus ${req.reserve} reserved for the answer, but ${req.modelId}'s context window is ${req.window} tokens` +
          `${first > 0 ? ` (the ${first} earlier turn(s) are already left out)` : ""}. ${contextWindowAdvice(req.window, req.trained)}`,
      );
    }
  }
}
