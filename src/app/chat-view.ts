// The chat panel's view: the engine line, the scripted demo's script editor, the conversation
// list (kept scrolled to its end while the person is there), the message form and its buttons.
// What happens when they are used is the panel's controller (chat-panel.ts).
import { h, replace } from "./dom.ts";

export type ChatView = ReturnType<typeof mountChatView>;

export function mountChatView(root: HTMLElement) {
  const info = h("p", { id: "chat-info", class: "muted" });
  const scriptArea = h("textarea", { id: "script", rows: 6, spellcheck: "false", "aria-describedby": "script-help" });
  const scriptReset = h(
    "button",
    { type: "button", class: "secondary", id: "script-reset" },
    "Default script for the active tools",
  );
  // Open where there is room; on a phone one line, so the question box is on the first screen.
  const scriptBox = h(
    "details",
    { id: "script-box", class: "script-box", open: !window.matchMedia("(max-width: 600px)").matches },
    h("summary", {}, "Scripted demo: the model's outputs"),
    h(
      "p",
      { id: "script-help", class: "muted small" },
      'No model runs with the scripted demo. Each prompt replays this JSON array from the start, one item per model turn: a string is the model\'s text, an object {"tool_name", "arguments"} is a tool call. {{tool_result}} or {{tool_result.KEY}} quotes the last tool result.',
    ),
    h("label", { for: "script", class: "visually-hidden" }, "Script (JSON array of model outputs)"),
    scriptArea,
    h("div", { class: "button-row" }, scriptReset),
  );
  const log = h("ol", { id: "chat-log", class: "chat-log" });
  const logRegion = h(
    "div",
    { role: "log", "aria-live": "polite", "aria-label": "Conversation", class: "chat-log-region" },
    log,
  );
  const prompt = h("textarea", {
    id: "prompt",
    rows: 2,
    placeholder: "Ask something… (Enter sends, Shift+Enter for a new line)",
  });
  const sendBtn = h("button", { type: "submit", id: "send", class: "primary" }, "Send");
  const stopBtn = h("button", { type: "button", id: "stop", class: "danger", disabled: true }, "Stop");
  const newBtn = h("button", { type: "button", id: "chat-new", class: "secondary" }, "Clear conversation");
  const status = h("p", { id: "chat-status", class: "status", role: "status", "aria-live": "polite" });
  // The conversation start being read ahead (chat/warm-start.ts), right above the message box.
  const warm = h("p", { id: "chat-warm", class: "muted small", role: "status", "aria-live": "polite", hidden: true });
  const formEl = h(
    "form",
    { id: "chat-form", class: "chat-form" },
    h("label", { for: "prompt" }, "Message"),
    warm,
    prompt,
    h("div", { class: "button-row" }, sendBtn, stopBtn, newBtn),
  );
  replace(root, h("h2", { class: "visually-hidden" }, "Chat"), info, scriptBox, logRegion, status, formEl);

  /** The conversation's scrollHeight when it was last at its end (see the observer below). */
  let logHeight = 0;

  function entry(kind: string, ...children: (Node | string | null)[]): HTMLLIElement {
    const li = h("li", { class: `entry ${kind}` }, ...children);
    log.appendChild(li);
    scrollLogToEnd();
    return li;
  }

  /** Show the newest entry by scrolling the conversation itself, never the page: the page stays
   *  where the person is (a session starting during boot used to jump a phone 3,900 px down). */
  function scrollLogToEnd(): void {
    log.scrollTo({ top: log.scrollHeight, behavior: "instant" });
    logHeight = log.scrollHeight;
  }

  // An entry grows after it is added (the answer streams in, its receipt line comes last): while
  // the person is at the end of the conversation it follows the growth, so the answer is never cut
  // off below the fold; scrolled up to read, it stays where they are.
  new MutationObserver(() => {
    const wasAtEnd = log.scrollTop + log.clientHeight >= logHeight - 24;
    if (wasAtEnd) scrollLogToEnd();
    else logHeight = log.scrollHeight;
  }).observe(log, { childList: true, subtree: true, characterData: true });

  return {
    info,
    scriptArea,
    scriptReset,
    scriptBox,
    log,
    prompt,
    sendBtn,
    stopBtn,
    newBtn,
    status,
    warm,
    formEl,
    entry,
    scrollLogToEnd,
  };
}
