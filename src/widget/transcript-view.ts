// The widget's rendering of the chat transcript (src/chat/transcript.ts): the person's question,
// the model's streamed text (a tool call's start shows as "Preparing a tool call…"), tool cards,
// repairs, answers, direct results, failures and the confirmation card of a pending action. Lit
// text bindings only: everything the model or a tool produced is escaped, never HTML.
import { html, nothing, type TemplateResult } from "lit";
import type { ErrorJson } from "../contract/errors.ts";
import type { ToolEntry, TranscriptEntry } from "../chat/transcript.ts";
import type { PendingActionDetail, WidgetRun } from "./types.ts";

export type WidgetTranscriptEntry = TranscriptEntry<WidgetRun>;

/** A confirmation card's own state (the transcript holds the action; the person decides here). */
export interface PendingCard {
  state: "pending" | "working" | "done" | "failed" | "rejected";
  result?: unknown;
  error?: ErrorJson;
}

export interface TranscriptViewContext {
  /** Prefix of the element's ids (headings the cards are labelled by). */
  uid: string;
  card(id: string): PendingCard;
  confirm(id: string): void;
  reject(id: string): void;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The status line once a question's run ended (read by screen readers; the log shows the run). */
export function runStatus(run: WidgetRun): string {
  if (run.outcome === "answered") return run.truncated ? "Answered, but cut off at the token limit." : "Answered.";
  if (run.outcome === "return_direct")
    return `Result from ${run.receipt.calls[run.receipt.calls.length - 1]?.tool_name ?? "the tool"}.`;
  if (run.outcome === "pending_confirmation" && run.pending_action)
    return `${run.pending_action.tool} needs your confirmation before it runs.`;
  return `Failed: ${run.error?.code ?? "internal_error"}.`;
}

export function renderTranscriptEntry(
  e: WidgetTranscriptEntry,
  ctx: TranscriptViewContext,
): TemplateResult | typeof nothing {
  switch (e.kind) {
    case "prompt":
      return html`<div class="msg user" part="message user"><span class="who">You</span><span class="text">${e.text}</span></div>`;
    case "model":
      // A refused or unanswered generation gives way to the repair note or the error after it.
      if (e.state === "refused" || e.state === "failed") return nothing;
      return assistant(e.text, e.state === "streaming", e.state === "streaming" && e.start === "call");
    case "answer":
      // An answer cut off at the token limit is never shown as complete.
      return html`${assistant(e.text, false, false)}${e.run.truncated ? html`<p class="note">Incomplete: the answer was cut off at the token limit.</p>` : nothing}`;
    case "direct":
      return html`<div class="msg assistant" part="message result">
        <span class="who">Result from <code>${e.tool_name}</code></span>
        <pre>${json(e.result)}</pre>
      </div>`;
    case "repair":
      return html`<p class="note">The model's tool call was refused (${e.code}); it was asked to correct it.</p>`;
    case "failure": {
      const error = e.error ?? { code: "internal_error", message: "The run failed without saying why." };
      return errorMessage("Not answered", error.code, error.message);
    }
    case "tool":
      return renderToolCard(e);
    case "pending":
      return renderPendingCard(e.action, ctx.card(e.action.id), ctx);
  }
}

function assistant(text: string, streaming: boolean, call: boolean): TemplateResult {
  return html`<div class="msg assistant" part="message assistant" aria-busy=${streaming ? "true" : "false"}>
    <span class="who">Assistant</span>${call ? html`<span class="muted">Preparing a tool call…</span>` : html`<span class="text">${text}</span>`}
  </div>`;
}

export function errorMessage(title: string, code: string, message: string): TemplateResult {
  return html`<div class="msg error" part="message error"><span class="who">${title} (${code})</span><span class="text">${message}</span></div>`;
}

function renderToolCard(e: ToolEntry): TemplateResult {
  const status = e.receipt?.status;
  const cls = !status ? "running" : status === "ok" ? "ok" : status === "pending_confirmation" ? "pending" : "failed";
  const label = !status
    ? "running"
    : status === "pending_confirmation"
      ? "needs confirmation"
      : status === "failed_closed"
        ? "failed closed"
        : status;
  return html`<article class="card tool" part="tool-card" aria-label="Tool call ${e.tool_name}">
    <div class="head">
      <span>Tool <code>${e.tool_name}</code></span>
      <span class="status ${cls}">${label}</span>
      ${e.receipt ? html`<span class="muted">${e.receipt.duration_ms} ms${e.receipt.code ? html` · <code>${e.receipt.code}</code>` : nothing}</span>` : nothing}
    </div>
    <details>
      <summary>Arguments</summary>
      <pre>${json(e.arguments)}</pre>
    </details>
    ${
      e.hasResult
        ? html`<details>
          <summary>Result</summary>
          <pre>${json(e.result)}</pre>
        </details>`
        : nothing
    }
    ${e.error && e.error.code !== "tool_confirmation_required" ? html`<p class="muted">${e.error.message}</p>` : nothing}
  </article>`;
}

function renderPendingCard(detail: PendingActionDetail, e: PendingCard, ctx: TranscriptViewContext): TemplateResult {
  const headingId = `${ctx.uid}-pa-${detail.id}`;
  const expires = new Date(detail.expires_at);
  const open = e.state === "pending" || e.state === "working";
  return html`<article class="card confirm" part="confirm-card" aria-labelledby=${headingId}>
    <h3 id=${headingId}>Confirm <code>${detail.tool}</code>?</h3>
    <p class="muted">This tool makes a change. It runs only if you confirm, at most once.</p>
    <pre aria-label="Arguments">${json(detail.arguments)}</pre>
    ${open ? html`<p class="muted">Expires at ${expires.toLocaleTimeString()}.</p>` : nothing}
    ${
      open
        ? html`<div class="actions">
          <button type="button" part="button confirm" ?disabled=${e.state === "working"} @click=${() => ctx.confirm(detail.id)}>
            Confirm
          </button>
          <button type="button" part="button reject" class="secondary" ?disabled=${e.state === "working"} @click=${() => ctx.reject(detail.id)}>
            Reject
          </button>
        </div>`
        : nothing
    }
    ${
      e.state === "done"
        ? html`<p><span class="status ok">confirmed</span> The tool ran.</p>
          <pre aria-label="Result">${json(e.result)}</pre>`
        : nothing
    }
    ${e.state === "rejected" ? html`<p><span class="status failed">rejected</span> It will not run.</p>` : nothing}
    ${e.state === "failed" ? html`<p><span class="status failed">not run</span> <code>${e.error?.code ?? ""}</code> ${e.error?.message ?? ""}</p>` : nothing}
  </article>`;
}
