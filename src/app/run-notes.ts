// What the playground shows under an answer: an "Incomplete" note when it was cut off at the token
// limit (never shown as complete), and the engine's numbers when it reports them.
import type { ChatRun } from "../chat/types.ts";
import { h, ms } from "./dom.ts";

export function runNotes(run: Pick<ChatRun, "truncated" | "engine_stats">): HTMLElement[] {
  const notes: HTMLElement[] = [];
  if (run.truncated) {
    notes.push(
      h(
        "p",
        { class: "warn-text small", "data-testid": "truncated", role: "note" },
        "Incomplete: the answer was cut off at the token limit (finish_reason: length).",
      ),
    );
  }
  const st = run.engine_stats;
  if (st) {
    const parts = [
      st.time_to_first_token_ms !== undefined ? `first token ${ms(st.time_to_first_token_ms)}` : "",
      st.decode_tokens_per_s !== undefined ? `${st.decode_tokens_per_s} tokens/s` : "",
      st.completion_tokens !== undefined ? `${st.completion_tokens} tokens` : "",
    ].filter(Boolean);
    if (parts.length) notes.push(h("p", { class: "small muted", "data-testid": "engine-stats" }, parts.join(" · ")));
  }
  return notes;
}
