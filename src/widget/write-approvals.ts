// The <edge-chat> element's write approvals, a lit reactive controller: a built-in tool's planned
// write waits for the visitor on a card (every change and its diff, Approve / Reject); the card's
// state (pending, approved, rejected) lives here, its place in the conversation in the element's log.
import { html, nothing, type ReactiveControllerHost, type TemplateResult } from "lit";
import type { WritePlan } from "../builtins/write-plan.ts";
import { ChangeTracker, type WidgetPorts } from "./host.ts";

/** A write card's place in the element's log; its content and state are here, by id. */
export interface WriteEntry {
  kind: "write";
  id: number;
}

interface WriteCard {
  tool: string;
  changes: { path: string; what: string; diff: string }[];
  state: "pending" | "approved" | "rejected";
}

export interface WriteApprovalsPorts extends Pick<WidgetPorts, "uid" | "status"> {
  /** Puts the card in the log, after what is there. */
  place(entry: WriteEntry): void;
}

/** `changed`: a card changed since the element's last update (the log shows its end). */
export class WriteApprovals extends ChangeTracker {
  private count = 0;
  private readonly cards = new Map<number, WriteCard>();
  private readonly waiters = new Map<number, (yes: boolean) => void>();

  constructor(
    host: ReactiveControllerHost,
    private readonly ports: WriteApprovalsPorts,
  ) {
    super(host);
  }

  /** A built-in write waits for the visitor: the card shows every change and its diff. Resolves
   *  true once approved; false once rejected or when the run is stopped. */
  async ask(plan: WritePlan, signal: AbortSignal): Promise<boolean> {
    const { planText } = await import("../builtins/workspace/plan-text.ts");
    const id = ++this.count;
    this.cards.set(id, { tool: plan.tool, changes: await planText(plan), state: "pending" });
    this.ports.place({ kind: "write", id });
    this.ports.status(`${plan.tool} wants to change your files: approve or reject.`);
    const yes = await new Promise<boolean>((resolve) => {
      this.waiters.set(id, resolve);
      signal.addEventListener("abort", () => resolve(false), { once: true });
    });
    this.waiters.delete(id);
    const card = this.cards.get(id);
    if (card) this.cards.set(id, { ...card, state: yes ? "approved" : "rejected" });
    this.touch();
    return yes;
  }

  render(id: number): TemplateResult | typeof nothing {
    const e = this.cards.get(id);
    if (!e) return nothing;
    const headingId = `${this.ports.uid}-w-${id}`;
    return html`<article class="card confirm" part="confirm-card" aria-labelledby=${headingId}>
      <h3 id=${headingId}>Let <code>${e.tool}</code> change your files?</h3>
      <p class="muted">Nothing is written before you approve; these files stay in this page.</p>
      ${e.changes.map((c) => html`<p><code>${c.path}</code> <span class="muted">${c.what}</span></p>${c.diff ? html`<pre aria-label="Changes to ${c.path}">${c.diff}</pre>` : nothing}`)}
      ${
        e.state === "pending"
          ? html`<div class="actions">
            <button type="button" part="button confirm" @click=${() => this.waiters.get(id)?.(true)}>Approve</button>
            <button type="button" part="button reject" class="secondary" @click=${() => this.waiters.get(id)?.(false)}>Reject</button>
          </div>`
          : html`<p><span class="status ${e.state === "approved" ? "ok" : "failed"}">${e.state}</span></p>`
      }
    </article>`;
  }
}
