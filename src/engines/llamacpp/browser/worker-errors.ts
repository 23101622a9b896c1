// The llama.cpp worker's failures as the table's codes: wllama's errors and llama.cpp's own (its
// log's error lines, kept rather than printed) turned into one EdgeError with the reason.
import { WllamaAbortError, WllamaError } from "@wllama/wllama";
import { EdgeError } from "../../../contract/errors.ts";

/** wllama's log: its errors (its own and llama.cpp's, e.g. a C++ exception's text) are kept for
 *  the coded error the caller gets, not printed: the person sees the failure once, with its
 *  reason, in the transcript. The last few are enough to explain one failure. */
export function errorLog(): {
  logger: Pick<Console, "debug" | "log" | "warn" | "error">;
  since(mark: number): string[];
  mark(): number;
} {
  const lines: string[] = [];
  let count = 0;
  const remember = (...a: unknown[]): void => {
    lines.push(
      a
        .map((x) => (x instanceof Error ? x.message : String(x)))
        .join(" ")
        .slice(0, 500),
    );
    if (lines.length > 20) lines.shift();
    count++;
  };
  const none = (): undefined => undefined;
  return {
    logger: { debug: none, log: none, warn: none, error: remember },
    mark: () => count,
    since: (mark) => lines.slice(Math.max(0, lines.length - (count - mark))),
  };
}
/** llama.cpp's refusal of a prompt beyond the window, as the table's code. */
function contextExceeded(message: string): EdgeError | undefined {
  const m = /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/.exec(message);
  if (!m) return undefined;
  return new EdgeError(
    "context_window_exceeded",
    { promptTokens: Number(m[1]), contextWindow: Number(m[2]) },
    `This turn needs ${m[1]} prompt tokens, but the model's context window is ${m[2]} tokens. Shorten the prompt or the tool results, reset the conversation, or load the model with a larger context.`,
  );
}

/** A failed completion as the table's code (an abort is not a failure: the caller reports it).
 *  `native`: what wllama and llama.cpp logged as errors during the completion. */
export function completionError(
  e: unknown,
  signal: AbortSignal,
  native: readonly string[] = [],
): EdgeError | undefined {
  if (e instanceof WllamaAbortError || signal.aborted) return undefined;
  const exceeded = e instanceof WllamaError ? contextExceeded(e.message) : undefined;
  if (exceeded) return exceeded;
  // wllama 3.13 serializes each streamed piece with a strict JSON dump (llama.cpp's own server
  // replaces invalid bytes): a piece that is not valid UTF-8 throws in C++, and its worker then
  // fails to read a result that was never written (the error the browser reports).
  if (native.some((l) => /invalid UTF-8/i.test(l))) {
    return new EdgeError(
      "generation_failed",
      { original: String(e), native: native.join("\n"), cause: "invalid_utf8" },
      "The model produced bytes that are not valid UTF-8, and llama.cpp in the browser (wllama 3.13) cannot pass them on, so the answer stopped there. Random-weight test models do this; trained models rarely do. Send the message again or start a new conversation.",
    );
  }
  const reason = native.length ? ` (${native[native.length - 1]})` : "";
  return EdgeError.withTableFix(
    "generation_failed",
    { original: String(e), native: native.join("\n") },
    `llama.cpp failed while generating: ${(e as Error).message}${reason}.`,
  );
}
