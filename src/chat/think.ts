// Reasoning blocks. Some models open their reply with "<think>…</think>" (Qwen3 does; with
// web-llm's `enable_thinking: false` it still prepends an EMPTY block, "<think>\n\n</think>\n\n").
// The loop strips one LEADING block before it parses the reply and before anything is shown; the
// raw text stays in the conversation history, because the engine's KV cache holds exactly what
// the model produced and the next prompt must extend it byte for byte. Only a leading block counts:
// "<think>" later in an answer is the answer's own text.

const OPEN = "<think>";
const CLOSE = "</think>";

export interface SplitReply {
  /** What the person (and the call parser) sees: the reply without its leading think block. */
  visible: string;
  /** The block's content (trimmed); "" for an empty block; null when the reply has none. */
  reasoning: string | null;
}

/** Split off a leading think block (after optional whitespace). An unclosed block (the model was
 *  cut off while reasoning) is all reasoning: nothing is visible. */
export function splitThink(raw: string): SplitReply {
  const start = raw.length - raw.trimStart().length;
  if (!raw.startsWith(OPEN, start)) return { visible: raw, reasoning: null };
  const end = raw.indexOf(CLOSE, start + OPEN.length);
  if (end === -1) return { visible: "", reasoning: raw.slice(start + OPEN.length).trim() };
  return { visible: raw.slice(end + CLOSE.length).trimStart(), reasoning: raw.slice(start + OPEN.length, end).trim() };
}

/**
 * Wrap a streaming callback so a leading think block never reaches it. Text is held back only
 * while it could still be the start of a block (leading whitespace, a prefix of "<think>", or an
 * open block); once the reply clearly has no block, or the block closed, pieces pass through.
 */
export function withoutThinkBlock(
  onToken: ((delta: string) => void) | undefined,
): ((delta: string) => void) | undefined {
  if (!onToken) return undefined;
  let held = "";
  let passing = false;
  return (delta: string) => {
    if (passing) {
      if (delta) onToken(delta);
      return;
    }
    held += delta;
    const lead = held.trimStart();
    if (lead === "" || (OPEN.startsWith(lead) && lead.length < OPEN.length)) return; // still undecided
    if (!lead.startsWith(OPEN)) {
      passing = true;
      onToken(held);
      return;
    }
    const split = splitThink(held);
    const closed = held.includes(CLOSE, held.indexOf(OPEN) + OPEN.length);
    if (!closed) return;
    // The visible part begins after the block and its trailing whitespace; whitespace-only so far
    // may still be followed by more, so wait for the first visible character.
    if (split.visible === "") return;
    passing = true;
    onToken(split.visible);
  };
}
