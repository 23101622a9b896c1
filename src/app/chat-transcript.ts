// The playground's rendering of the chat transcript (src/chat/transcript.ts) into the conversation
// list: the person's message, the model's text as it streams (raw, as the model wrote it), a card
// per tool call (arguments, result, duration, status code, stderr, what was verified), repair
// notices, the answer with its notes and receipt line, a direct result, the confirmation card, a
// failure. Each entry is one list item, updated in place as its entry changes. All output is text.
import type { ChatRun } from "../chat/types.ts";
import {
  changedEntries,
  reduce,
  type ToolEntry,
  type TranscriptEntry,
  type TranscriptEvent,
} from "../chat/transcript.ts";
import type { Receipt, ReceiptBody } from "../receipts/types.ts";
import { errorText, h, hashCode, ms, pretty, replace } from "./dom.ts";
import { runNotes } from "./run-notes.ts";

export interface ChatTranscript {
  apply(event: TranscriptEvent): void;
  /** Forget the entries (the conversation list was emptied). */
  clear(): void;
}

export interface ChatTranscriptView {
  /** Appends an item of this kind to the conversation (keeping its end in view). */
  entry(kind: string, ...children: (Node | string | null)[]): HTMLLIElement;
  openReceipt(id: string): void;
  confirmationCard(run: ChatRun): HTMLElement;
}

function isStored(r: Receipt | ReceiptBody): r is Receipt {
  return typeof (r as Receipt).seq === "number";
}

export function chatTranscript(view: ChatTranscriptView): ChatTranscript {
  let entries: TranscriptEntry[] = [];
  let items: HTMLLIElement[] = [];

  function receiptLine(r: Receipt | ReceiptBody): HTMLElement {
    if (!isStored(r)) return h("p", { class: "receipt-line muted" }, `receipt ${r.id} (not stored)`);
    return h(
      "p",
      { class: "receipt-line" },
      `${r.outcome}${r.code ? ` (${r.code})` : ""} · receipt #${r.seq} `,
      h("button", { type: "button", class: "link", onclick: () => view.openReceipt(r.id) }, r.id),
    );
  }

  /** The item for entry `e` (`li` is its item so far, if it has one). */
  function show(was: TranscriptEntry | undefined, e: TranscriptEntry, li: HTMLLIElement | undefined): HTMLLIElement {
    switch (e.kind) {
      case "prompt":
        return view.entry("user", h("p", { class: "who" }, "You"), h("p", { class: "text" }, e.text));
      case "model": {
        if (!li)
          return view.entry("assistant", h("p", { class: "who" }, "Model"), h("p", { class: "text stream" }, e.text));
        const stream = li.querySelector(".stream");
        if (stream && stream.textContent !== e.text) stream.textContent = e.text;
        return li;
      }
      case "tool":
        return toolItem(view, was, e, li);
      case "repair":
        return view.entry("notice", h("p", {}, `Repair turn: ${e.code} — ${e.message}`));
      case "answer": {
        const run = e.run;
        if (!li)
          return view.entry(
            "assistant answer",
            h("p", { class: "who" }, "Model"),
            h("p", { class: "text" }, e.text),
            ...runNotes(run),
            receiptLine(run.receipt),
          );
        const p = li.querySelector(".stream");
        if (p) p.textContent = e.text;
        li.classList.add("answer");
        li.append(...runNotes(run), receiptLine(run.receipt));
        return li;
      }
      case "direct":
        return view.entry(
          "assistant direct",
          h("p", { class: "who" }, "Returned directly by the tool"),
          h("pre", { class: "json", "data-testid": "direct-result" }, pretty(e.result)),
          ...runNotes(e.run),
          receiptLine(e.run.receipt),
        );
      case "pending":
        return view.entry("confirm", view.confirmationCard(e.run), receiptLine(e.run.receipt));
      case "failure":
        return e.run
          ? view.entry(
              "error",
              h("p", { class: "error" }, `Failed closed: ${errorText(e.error)}`),
              receiptLine(e.run.receipt),
            )
          : view.entry("error", h("p", { class: "error" }, errorText(e.error)));
    }
  }

  return {
    apply(event) {
      const before = entries;
      entries = reduce(entries, event);
      const next = [...items];
      for (const i of changedEntries(before, entries)) next[i] = show(before[i], entries[i]!, items[i]);
      items = next;
    },
    clear() {
      entries = [];
      items = [];
    },
  };
}

/** A tool call's card: it takes the place of the call's streamed text; its result fills it. */
function toolItem(
  view: ChatTranscriptView,
  was: TranscriptEntry | undefined,
  e: ToolEntry,
  li: HTMLLIElement | undefined,
): HTMLLIElement {
  if (was?.kind !== "tool") {
    const card = h(
      "div",
      { class: "tool-card", "data-tool": e.tool_name, "data-state": "running" },
      h(
        "p",
        { class: "who" },
        "Tool call ",
        h("strong", {}, e.tool_name),
        " ",
        h("span", { class: "tool-state" }, "running…"),
      ),
      h("p", { class: "small muted" }, "Arguments"),
      h("pre", { class: "json small", "data-testid": "tool-args" }, pretty(e.arguments)),
    );
    if (li) {
      replace(li, card);
      li.className = "entry tool";
    } else li = view.entry("tool", card);
  }
  const card = li?.querySelector<HTMLElement>(".tool-card");
  const c = e.receipt;
  if (!li || !card || !c || (was?.kind === "tool" && was.receipt)) return li!;
  card.dataset.state = c.status;
  const state = card.querySelector(".tool-state");
  if (state) state.textContent = `${c.status}${c.code ? ` · ${c.code}` : ""} · ${ms(c.duration_ms)}`;
  if (e.result !== undefined)
    card.append(
      h("p", { class: "small muted" }, "Result"),
      h("pre", { class: "json small", "data-testid": "tool-result" }, pretty(e.result)),
    );
  if (e.error)
    card.append(
      h(
        "p",
        { class: `${e.error.code === "tool_confirmation_required" ? "warn-text" : "error"} small` },
        errorText(e.error),
      ),
    );
  if (e.stderr) card.append(h("details", {}, h("summary", {}, "stderr"), h("pre", { class: "json small" }, e.stderr)));
  card.append(
    h(
      "p",
      { class: "small muted" },
      c.status === "pending_confirmation"
        ? "not run yet: it runs in a fresh runner once you confirm · args "
        : `runner secret verified: ${c.runner_secret_verified ? "yes" : "no"} · tools file verified: ${c.tools_file_sha256_verified ? "yes" : "no"} · args `,
      hashCode(c.args_sha256),
      c.workspace_sha256
        ? h(
            "span",
            { "data-testid": "workspace-sha", "data-sha": c.workspace_sha256 },
            " · read the workspace ",
            hashCode(c.workspace_sha256),
          )
        : null,
    ),
  );
  return li;
}
