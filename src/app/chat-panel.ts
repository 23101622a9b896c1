// Chat, the panel's controller: a message is sent to the session (a new one first when tools.py was
// edited), its events fold into the transcript (chat-transcript.ts renders it: streaming answers,
// tool cards, the confirmation card of confirm-card.ts), Stop aborts, Clear forgets; the view and
// the scripted demo's script editor are chat-view.ts. All output is text.
import type { ChatRun } from "../chat/types.ts";
import { StartWarmer, warmStatusText } from "../chat/warm-start.ts";
import { toErrorJson } from "../contract/errors.ts";
import type { App } from "./app.ts";
import { chatTranscript, type ChatTranscript } from "./chat-transcript.ts";
import { mountChatView, type ChatView } from "./chat-view.ts";
import { confirmationCard } from "./confirm-card.ts";
import { errorText, h, replace, setStatus } from "./dom.ts";
import { defaultScript, type PlaygroundScript } from "./scripted.ts";
import type { SessionInfo } from "./state.ts";
import { writeApprovalCard } from "./write-card.ts";

export interface ChatPanel {
  send(prompt: string): Promise<ChatRun | null>;
}

export function mountChatPanel(
  app: App,
  script: PlaygroundScript,
  root: HTMLElement,
  openReceipt: (id: string) => void,
): ChatPanel {
  const view = mountChatView(root);
  const { sendBtn, stopBtn, status, entry, scrollLogToEnd } = view;
  let running: AbortController | undefined;
  let renewing = false;

  const renderInfo = infoAndScript(app, script, view);
  const transcript = chatTranscript({
    entry,
    openReceipt,
    confirmationCard: (run) => confirmationCard(app, run, openReceipt, scrollLogToEnd),
  });
  // Each new session's tool contract is read into the model's prompt cache before the question.
  const warmer = new StartWarmer((s) => {
    view.warm.textContent = warmStatusText(s, app.current?.session.runtime.schemas().length ?? 0);
    view.warm.hidden = s.state === "idle";
    view.warm.dataset["state"] = s.state;
  }, document);

  async function send(text: string): Promise<ChatRun | null> {
    if (running || renewing) return null;
    renewing = true;
    sendBtn.disabled = true;
    const fresh = await renewIfEdited(app, view, text).finally(() => {
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
    transcript.apply({ type: "prompt", text });
    running = new AbortController();
    sendBtn.disabled = true;
    stopBtn.disabled = false;
    setStatus(status, "Generating…", "busy");
    try {
      const run = await cur.session.chat(text, {
        signal: running.signal,
        onToken: (delta) => transcript.apply({ type: "token", delta }),
        onEvent: transcript.apply,
      });
      transcript.apply({ type: "run", run });
      setStatus(status, ...runStatus(run));
      app.storeChanged("receipts");
      return run;
    } catch (err) {
      transcript.apply({ type: "failure", error: toErrorJson(err) });
      setStatus(status, errorText(toErrorJson(err)), "error");
      return null;
    } finally {
      running = undefined;
      sendBtn.disabled = false;
      stopBtn.disabled = true;
    }
  }

  wireControls(app, view, transcript, send, () => running?.abort());
  app.on((change) => {
    if (change === "session" || change === "engine") renderInfo();
    if (change === "session") warmer.begin(app.current?.session ?? null);
    if (change === "session" && app.current) announceSession(view, app.current);
    if (change === "notice") entry("notice", h("p", {}, app.notice));
  });
  renderInfo();
  // A built-in write waits here for the person: its diff, Approve / Reject.
  app.setWriteApprover((plan, signal) => writeApprovalCard(entry("tool write"), plan, signal));
  return { send };
}

/**
 * The first send after an edit starts a new session with the edited file, and says so: the
 * edit is what the person wants to try. Checked before the turn starts, so a turn never
 * switches files (an edit during a turn still fails that turn's next call, tools_file_changed).
 * An edited file that cannot start a session leaves the message unsent and the session as it was.
 */
async function renewIfEdited(app: App, view: ChatView, text: string): Promise<boolean> {
  if (!(await app.sourceDiffersFromSession())) return true;
  try {
    await app.newSession("edited");
    return true;
  } catch (err) {
    view.entry(
      "error",
      h(
        "p",
        { class: "error" },
        `tools.py changed, and the edited file cannot start a session: ${errorText(toErrorJson(err))} This session keeps the file it froze; fix the file and send again.`,
      ),
    );
    view.prompt.value = text;
    return false;
  }
}

/** The form's controls: Enter or Send sends the message, Stop aborts the run (`abortRun`) and the
 *  engine's generation, Clear forgets the conversation but keeps the session's frozen tools. */
function wireControls(
  app: App,
  view: ChatView,
  transcript: ChatTranscript,
  send: (text: string) => Promise<unknown>,
  abortRun: () => void,
): void {
  const { log, prompt, stopBtn, newBtn, status, formEl } = view;
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
    abortRun();
    app.engine?.abort();
  });
  newBtn.addEventListener("click", () => {
    app.current?.session.reset();
    replace(log);
    transcript.clear();
    setStatus(status, "Conversation cleared (the frozen tools stay).", "idle");
  });
}

/** The divider a new session puts in the conversation: its engine, tools and imprint, and, when
 *  an edit of tools.py started it, that the session now runs the edited file. */
function announceSession(view: ChatView, cur: Readonly<SessionInfo>): void {
  const label = cur.toolset
    ? `${cur.toolset.active.length} tool(s), active set ${cur.toolset.active_set_sha256.slice(0, 19)}…`
    : `${cur.mode.kind}`;
  const why =
    cur.cause === "edited" && cur.toolset
      ? `tools.py changed: new session with the edited file (tools_file_sha256 ${cur.toolset.tools_file_sha256.slice(0, 19)}…) · `
      : "";
  view.entry(
    cur.cause === "edited" ? "divider edited" : "divider",
    h(
      "p",
      {},
      `${why}New session · ${cur.engine.info().label} · ${label}${cur.imprint ? ` · imprint ${cur.imprint.id}` : ""}`,
    ),
  );
}

/** The status line once a run ended, in words and colour: a run that waits on the person is not
 *  "done", and one that stopped is not green. */
function runStatus(run: ChatRun): [string, "ok" | "warn" | "error"] {
  if (run.outcome === "pending_confirmation")
    return ["Waiting for you: confirm or reject the action in the card above.", "warn"];
  if (run.outcome === "failed_closed")
    return [`Stopped: ${run.error?.code ?? run.receipt.code ?? "failed_closed"} (the conversation says why).`, "error"];
  return [`Done: ${run.outcome}.`, "ok"];
}

/** The engine line and the scripted demo's script (the default one for the active tools until the
 *  person edits it); returns the function that renders them for the current session. */
function infoAndScript(app: App, script: PlaygroundScript, view: ChatView): () => void {
  const { info, scriptBox, scriptArea, scriptReset } = view;
  let scriptEdited = false;
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

  return function renderInfo(): void {
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
  };
}
