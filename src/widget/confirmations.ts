// The <edge-chat> element's confirmations, a lit reactive controller: the state of each pending
// action's card (pending, working, done, failed, rejected) by action id, and the visitor's or the
// page's decision on it (confirm runs the commit tool once, reject means it can never run). The
// action itself is an entry of the transcript; its card renders in transcript-view.ts.
import type { ReactiveControllerHost } from "lit";
import type { Receipt } from "../receipts/types.ts";
import type { WidgetCore } from "./core.ts";
import { ChangeTracker, errorDetail, type WidgetPorts } from "./host.ts";
import type { PendingCard } from "./transcript-view.ts";
import type { EdgeErrorDetail, WidgetConfirmOutcome } from "./types.ts";

export interface ConfirmationsPorts extends Pick<WidgetPorts, "status"> {
  core(): Promise<WidgetCore>;
  /** Whether this widget's transcript shows the action (only then has it a card). */
  shows(id: string): boolean;
  receipt(receipt: Receipt): void;
  error(detail: EdgeErrorDetail): void;
}

/** `changed`: a card changed since the element's last update (the log shows its end). */
export class Confirmations extends ChangeTracker {
  private cards: ReadonlyMap<string, PendingCard> = new Map();

  constructor(
    host: ReactiveControllerHost,
    private readonly ports: ConfirmationsPorts,
  ) {
    super(host);
  }

  card(id: string): PendingCard {
    return this.cards.get(id) ?? { state: "pending" };
  }

  async decide(id: string, action: "confirm" | "reject"): Promise<WidgetConfirmOutcome> {
    const known = this.ports.shows(id);
    const setCard = (patch: Partial<PendingCard>): void => {
      if (!known) return;
      this.cards = new Map(this.cards).set(id, { ...this.card(id), ...patch });
      this.touch();
    };
    setCard({ state: "working" });
    this.ports.status(action === "confirm" ? "Confirming…" : "Rejecting…");
    try {
      const core = await this.ports.core();
      let outcome: WidgetConfirmOutcome;
      if (action === "confirm") {
        const done = await core.confirm(id);
        outcome = done.outcome;
        if (done.receipt) this.ports.receipt(done.receipt);
      } else {
        outcome = await core.reject(id);
      }
      if (outcome.ok) {
        setCard({
          state: action === "confirm" ? "done" : "rejected",
          ...(outcome.result ? { result: outcome.result } : {}),
        });
        this.ports.status(action === "confirm" ? "Confirmed: the tool ran." : "Rejected: it will not run.");
      } else {
        setCard({ state: "failed", ...(outcome.error ? { error: outcome.error } : {}) });
        this.ports.status(`Not run: ${outcome.error?.code ?? "failed"}.`);
        if (outcome.error) this.ports.error({ code: outcome.error.code, message: outcome.error.message });
      }
      return outcome;
    } catch (err) {
      const detail = errorDetail(err);
      setCard({ state: "failed", error: { code: detail.code, message: detail.message } });
      this.ports.status(`Failed: ${detail.code}.`);
      this.ports.error(detail);
      throw err;
    }
  }
}
