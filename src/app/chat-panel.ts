// Chat: streaming answers, a card per tool call (arguments, result, duration, status code), the
// confirmation card for commit tools (Confirm / Reject with an expiry countdown), a stop button,
// and the scripted demo's script editor when that engine is active. All output is text.
import type { ChatEvent, ChatRun } from "../chat/types.ts";
import type { Receipt, ReceiptBody } from "../receipts/types.ts";
import { toErrorJson, type ErrorJson } from "../contract/errors.ts";
import { confirm, reject } from "../confirm/confirm.ts";
import type { ConfirmOutcome } from "../confirm/types.ts";
import { viewOf } from "../confirm/pending.ts";
import type { App } from "./app.ts";
import { errorText, h, hashCode, ms, pretty, replace, setStatus } from "./dom.ts";
import { runNotes } from "./run-notes.ts";
import { defaultScript, type PlaygroundScript } from "./scripted.ts";
import { writeApprovalCard } from "./write-card.ts";

export interface ChatPanel {
  send(prompt: string): Promise<ChatRun | null>;
}

function isStored(r: Receipt | ReceiptBody): r is Receipt {
  return typeof (r as Receipt).seq === "number";
}

export function mountChatPanel(app: App, script: PlaygroundScript, root: HTMLElement, openReceipt: (id: string) => void): ChatPanel {
  const info = h("p", { id: "chat-info", class: "muted" });
  const scriptArea = h("textarea", { id: "script", rows: 6, spellcheck: "false", "aria-describedby": "script-help" });
  const scriptReset = h("button", { type: "button", class: "secondary", id: "script-reset" }, "Default script for the active tools");
  const scriptBox = h(
    "details",
    { id: "script-box", class: "script-box", open: true },
    h("summary", {}, "Scripted demo: the model's outputs"),
    h(
      "p",
      { id: "script-help", class: "muted small" },
      "No model runs with the scripted demo. Each prompt replays this JSON array from the start, one item per model turn: a string is the model's text, an object {\"tool_name\", \"arguments\"} is a tool call. {{tool_result}} or {{tool_result.KEY}} quotes the last tool result.",
    ),
    h("label", { for: "script", class: "visually-hidden" }, "Script (JSON array of model outputs)"),
    scriptArea,
    h("div", { class: "button-row" }, scriptReset),
  );
  const log = h("ol", { id: "chat-log", class: "chat-log" });
  const logRegion = h("div", { role: "log", "aria-live": "polite", "aria-label": "Conversation", class: "chat-log-region" }, log);
  const prompt = h("textarea", { id: "prompt", rows: 2, placeholder: "Ask something… (Enter sends, Shift+Enter for a new line)" });
  const sendBtn = h("button", { type: "submit", id: "send", class: "primary" }, "Send");
  const stopBtn = h("button", { type: "button", id: "stop", class: "danger", disabled: true }, "Stop");
  const newBtn = h("button", { type: "button", id: "chat-new", class: "secondary" }, "Clear conversation");
  const status = h("p", { id: "chat-status", class: "status", role: "status", "aria-live": "polite" });
  const formEl = h(
    "form",
    { id: "chat-form", class: "chat-form" },
    h("label", { for: "prompt" }, "Message"),
    prompt,
    h("div", { class: "button-row" }, sendBtn, stopBtn, newBtn),
  );
  replace(root, h("h2", { class: "visually-hidden" }, "Chat"), info, scriptBox, logRegion, status, formEl);

  let scriptEdited = false;
  let running: AbortController | undefined;
  let renewing = false;
  /** The conversation's scrollHeight when it was last at its end (see the observer below). */
  let logHeight = 0;

  function setScript(text: string): void {
    scriptArea.value = text;
    script.text = text;
  }
  scriptArea.addEventListener("input", () => {
    scriptEdited = true;
    script.text = scriptArea.value;
  });
  scriptReset.addEventListener("click", () => {
    scriptEdited = false;
    setScript(defaultScript(app.current?.toolset?.active ?? []));
  });

  function renderInfo(): void {
    const cur = app.current;
    const engine = app.engine;
    scriptBox.hidden = engine?.info().kind !== "scripted";
    if (!cur) {
      info.textContent = "Starting…";
      return;
    }
    // Everything the model is offered: Python tools, built-ins, lookups.
    const tools = cur.session.runtime.schemas().map((t) => t.name);
    replace(
      info,
      `Engine: ${cur.engine.info().label} · tools: ${tools.join(", ") || "none"}`,
      cur.imprint
        ? ` · imprint ${cur.imprint.id} (tool_instruction_mode: ${cur.imprint.tools === null && tools.length ? "imprint_with_contract" : "imprint"})`
        : " · tool_instruction_mode: contract",
    );
    if (!scriptEdited) setScript(defaultScript(cur.toolset?.active ?? []));
  }

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

  function receiptLine(r: Receipt | ReceiptBody): HTMLElement {
    if (!isStored(r)) return h("p", { class: "receipt-line muted" }, `receipt ${r.id} (not stored)`);
    return h(
      "p",
      { class: "receipt-line" },
      `${r.outcome}${r.code ? ` (${r.code})` : ""} · receipt #${r.seq} `,
      h("button", { type: "button", class: "link", onclick: () => openReceipt(r.id) }, r.id),
    );
  }

  function confirmationCard(run: ChatRun): HTMLElement {
    const ticket = run.pending_action!;
    const card = h("div", { class: "confirm-card", role: "group", "aria-label": "Confirmation needed", "data-pending-id": ticket.id });
    const countdown = h("span", { class: "countdown", "aria-live": "off" });
    const result = h("div", { class: "confirm-result", role: "status", "aria-live": "polite" });
    const confirmBtn = h("button", { type: "button", class: "primary", "data-action": "confirm" }, "Confirm");
    const rejectBtn = h("button", { type: "button", class: "secondary", "data-action": "reject" }, "Reject");
    const expires = Date.parse(ticket.expires_at);
    const tick = (): void => {
      const left = Math.max(0, expires - Date.now());
      const m = Math.floor(left / 60000);
      const s = Math.floor((left % 60000) / 1000);
      countdown.textContent = left > 0 ? `expires in ${m}:${String(s).padStart(2, "0")}` : "expired";
      if (left <= 0) {
        confirmBtn.disabled = true;
        window.clearInterval(timer);
      }
    };
    const timer = window.setInterval(tick, 1000);
    tick();
    const done = (): void => {
      window.clearInterval(timer);
      confirmBtn.disabled = true;
      rejectBtn.disabled = true;
      countdown.textContent = "";
    };
    const details = h("div", { class: "confirm-details" }, "Loading the pending action…");
    void app.stores.pending.get(ticket.id).then((record) => {
      if (!record) {
        details.textContent = "The pending action is not in storage any more.";
        return;
      }
      const v = viewOf(record);
      replace(
        details,
        h(
          "p",
          {},
          "The model asked to run ",
          h("strong", {}, v.tool_name),
          ` (execution_level ${v.execution_level}). It has not run. It will run once, exactly with these arguments, only if you confirm:`,
        ),
        h("pre", { class: "json", "data-testid": "pending-args" }, pretty(v.arguments)),
        h(
          "dl",
          { class: "facts-grid small" },
          h("dt", {}, "tools_file_sha256"),
          h("dd", {}, hashCode(v.tools_file_sha256)),
          h("dt", {}, "tool_schema_sha256"),
          h("dd", {}, hashCode(v.tool_schema_sha256)),
          h("dt", {}, "args_sha256"),
          h("dd", {}, hashCode(v.args_sha256)),
          h("dt", {}, "binding_sha256"),
          h("dd", {}, hashCode(v.binding_sha256)),
        ),
      );
      // The card grew: keep its buttons in view (inside the conversation).
      scrollLogToEnd();
    });
    const show = (out: ConfirmOutcome, verb: string): void => {
      done();
      if (out.ok) {
        replace(
          result,
          h("p", { class: "ok" }, `${verb}: ${out.status}.`),
          out.result ? h("pre", { class: "json", "data-testid": "confirm-result" }, pretty(out.result)) : null,
          out.receipt_id ? h("p", {}, "Receipt ", h("button", { type: "button", class: "link", onclick: () => openReceipt(out.receipt_id!) }, out.receipt_id)) : null,
        );
      } else {
        replace(result, h("p", { class: "error" }, `${verb} refused: ${errorText(out.error)}`));
      }
      app.emit("receipts");
    };
    confirmBtn.addEventListener("click", async () => {
      confirmBtn.disabled = true;
      rejectBtn.disabled = true;
      setStatus(result, "Verifying the binding, claiming the action and running the tool in a fresh runner…", "busy");
      const source = app.current?.source;
      if (!source) {
        replace(result, h("p", { class: "error" }, "No tools source for this session."));
        return;
      }
      try {
        show(await confirm(ticket.id, ticket.confirmation_token, { store: app.stores.pending, host: app.host, source, receipts: app.stores.receipts, workspace: app.workspace }), "Confirmed");
      } catch (err) {
        replace(result, h("p", { class: "error" }, errorText(toErrorJson(err))));
      }
    });
    rejectBtn.addEventListener("click", async () => {
      try {
        show(await reject(ticket.id, { store: app.stores.pending }), "Rejected");
      } catch (err) {
        replace(result, h("p", { class: "error" }, errorText(toErrorJson(err))));
      }
    });
    card.append(h("h3", {}, "Confirmation needed ", countdown), details, h("div", { class: "button-row" }, confirmBtn, rejectBtn), result);
    return card;
  }

  /**
   * The first send after an edit starts a new session with the edited file, and says so: the
   * edit is what the person wants to try. Checked before the turn starts, so a turn never
   * switches files (an edit during a turn still fails that turn's next call, tools_file_changed).
   * An edited file that cannot start a session leaves the message unsent and the session as it was.
   */
  async function renewIfEdited(text: string): Promise<boolean> {
    if (!(await app.sourceDiffersFromSession())) return true;
    try {
      await app.newSession("edited");
      return true;
    } catch (err) {
      entry("error", h("p", { class: "error" }, `tools.py changed, and the edited file cannot start a session: ${errorText(toErrorJson(err))} This session keeps the file it froze; fix the file and send again.`));
      prompt.value = text;
      return false;
    }
  }

  async function send(text: string): Promise<ChatRun | null> {
    if (running || renewing) return null;
    renewing = true;
    sendBtn.disabled = true;
    const fresh = await renewIfEdited(text).finally(() => {
      renewing = false;
      sendBtn.disabled = false;
    });
    const cur = app.current;
    if (!fresh || !cur || running) return null;
    if (cur.engine === script.engine) {
      try {
        script.outputs();
      } catch (err) {
        setStatus(status, (err as Error).message, "error");
        return null;
      }
      script.startPrompt();
    }
    entry("user", h("p", { class: "who" }, "You"), h("p", { class: "text" }, text));
    running = new AbortController();
    sendBtn.disabled = true;
    stopBtn.disabled = false;
    setStatus(status, "Generating…", "busy");
    let stream: HTMLElement | null = null;
    let streamEntry: HTMLLIElement | null = null;
    const cards = new Map<string, HTMLElement>();
    const onToken = (delta: string): void => {
      if (!stream) {
        stream = h("p", { class: "text stream" });
        streamEntry = entry("assistant", h("p", { class: "who" }, "Model"), stream);
      }
      stream.textContent += delta;
    };
    const onEvent = (ev: ChatEvent): void => {
      if (ev.type === "model_output") {
        stream = null;
      } else if (ev.type === "repair") {
        entry("notice", h("p", {}, `Repair turn: ${ev.code} — ${ev.message}`));
      } else if (ev.type === "tool_call") {
        const raw = streamEntry;
        const card = h(
          "div",
          { class: "tool-card", "data-tool": ev.tool_name, "data-state": "running" },
          h("p", { class: "who" }, "Tool call ", h("strong", {}, ev.tool_name), " ", h("span", { class: "tool-state" }, "running…")),
          h("p", { class: "small muted" }, "Arguments"),
          h("pre", { class: "json small", "data-testid": "tool-args" }, pretty(ev.arguments)),
        );
        if (raw) {
          replace(raw, card);
          raw.className = "entry tool";
        } else entry("tool", card);
        cards.set(ev.call_id, card);
        streamEntry = null;
      } else if (ev.type === "tool_result") {
        const card = cards.get(ev.call.call_id);
        if (!card) return;
        const c = ev.call;
        card.dataset.state = c.status;
        const state = card.querySelector(".tool-state");
        if (state) state.textContent = `${c.status}${c.code ? ` · ${c.code}` : ""} · ${ms(c.duration_ms)}`;
        if (ev.result !== undefined) card.append(h("p", { class: "small muted" }, "Result"), h("pre", { class: "json small", "data-testid": "tool-result" }, pretty(ev.result)));
        if (ev.error) card.append(h("p", { class: `${ev.error.code === "tool_confirmation_required" ? "warn-text" : "error"} small` }, errorText(ev.error as ErrorJson)));
        if (ev.stderr) card.append(h("details", {}, h("summary", {}, "stderr"), h("pre", { class: "json small" }, ev.stderr)));
        card.append(
          h(
            "p",
            { class: "small muted" },
            `runner secret verified: ${c.runner_secret_verified ? "yes" : "no"} · tools file verified: ${c.tools_file_sha256_verified ? "yes" : "no"} · args `,
            hashCode(c.args_sha256),
            c.workspace_sha256 ? h("span", { "data-testid": "workspace-sha", "data-sha": c.workspace_sha256 }, " · read the workspace ", hashCode(c.workspace_sha256)) : null,
          ),
        );
      }
    };
    try {
      const run = await cur.session.chat(text, { signal: running.signal, onToken, onEvent });
      if (run.outcome === "answered") {
        const finalStream = streamEntry as HTMLLIElement | null;
        if (finalStream) {
          const p = finalStream.querySelector(".stream");
          if (p) p.textContent = run.answer ?? "";
          finalStream.classList.add("answer");
          finalStream.append(...runNotes(run), receiptLine(run.receipt));
        } else entry("assistant answer", h("p", { class: "who" }, "Model"), h("p", { class: "text" }, run.answer ?? ""), ...runNotes(run), receiptLine(run.receipt));
      } else if (run.outcome === "return_direct") {
        entry("assistant direct", h("p", { class: "who" }, "Returned directly by the tool"), h("pre", { class: "json", "data-testid": "direct-result" }, pretty(run.result)), ...runNotes(run), receiptLine(run.receipt));
      } else if (run.outcome === "pending_confirmation" && run.pending_action) {
        entry("confirm", confirmationCard(run), receiptLine(run.receipt));
      } else {
        entry("error", h("p", { class: "error" }, `Failed closed: ${errorText(run.error)}`), receiptLine(run.receipt));
      }
      setStatus(status, `Done: ${run.outcome}.`, run.ok || run.outcome === "pending_confirmation" ? "ok" : "error");
      app.emit("receipts");
      return run;
    } catch (err) {
      entry("error", h("p", { class: "error" }, errorText(toErrorJson(err))));
      setStatus(status, errorText(toErrorJson(err)), "error");
      return null;
    } finally {
      running = undefined;
      sendBtn.disabled = false;
      stopBtn.disabled = true;
    }
  }

  formEl.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = prompt.value.trim();
    if (!text) return;
    prompt.value = "";
    void send(text);
  });
  prompt.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      formEl.requestSubmit();
    }
  });
  stopBtn.addEventListener("click", () => {
    running?.abort();
    app.engine?.abort();
  });
  newBtn.addEventListener("click", () => {
    app.current?.session.reset();
    replace(log);
    setStatus(status, "Conversation cleared (the frozen tools stay).", "idle");
  });
  app.on((change) => {
    if (change === "session" || change === "engine") renderInfo();
    if (change === "session" && app.current) {
      const cur = app.current;
      const label = cur.toolset ? `${cur.toolset.active.length} tool(s), active set ${cur.toolset.active_set_sha256.slice(0, 19)}…` : `${cur.mode.kind}`;
      const why = cur.cause === "edited" && cur.toolset ? `tools.py changed: new session with the edited file (tools_file_sha256 ${cur.toolset.tools_file_sha256.slice(0, 19)}…) · ` : "";
      entry(cur.cause === "edited" ? "divider edited" : "divider", h("p", {}, `${why}New session · ${cur.engine.info().label} · ${label}${cur.imprint ? ` · imprint ${cur.imprint.id}` : ""}`));
    }
    if (change === "notice") entry("notice", h("p", {}, app.notice));
  });
  renderInfo();
  // A built-in write waits here for the person: its diff, Approve / Reject.
  app.writeApprover = (plan, signal) => writeApprovalCard(entry("tool write"), plan, signal);
  return { send };
}
