// The playground's confirmation card for a commit tool's pending action: what will run (read back
// from the pending store), its hashes, an expiry countdown, and Confirm / Reject (confirm runs the
// tool once in a fresh runner). All output is text.
import type { ChatRun } from "../chat/types.ts";
import { toErrorJson } from "../contract/errors.ts";
import type { ConfirmOutcome } from "../confirm/types.ts";
import { viewOf } from "../confirm/pending.ts";
import type { App } from "./app.ts";
import { errorText, h, hashCode, pretty, replace, setStatus } from "./dom.ts";

export function confirmationCard(
  app: App,
  run: ChatRun,
  openReceipt: (id: string) => void,
  scrollLogToEnd: () => void,
): HTMLElement {
  const ticket = run.pending_action!;
  const card = h("div", {
    class: "confirm-card",
    role: "group",
    "aria-label": "Confirmation needed",
    "data-pending-id": ticket.id,
  });
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
  const details = pendingDetails(app, ticket.id, scrollLogToEnd);
  const show = (out: ConfirmOutcome, verb: string): void => {
    done();
    if (out.ok) {
      replace(
        result,
        h("p", { class: "ok" }, `${verb}: ${out.status}.`),
        out.result ? h("pre", { class: "json", "data-testid": "confirm-result" }, pretty(out.result)) : null,
        out.receipt_id
          ? h(
              "p",
              {},
              "Receipt ",
              h(
                "button",
                { type: "button", class: "link", onclick: () => openReceipt(out.receipt_id!) },
                out.receipt_id,
              ),
            )
          : null,
      );
    } else {
      replace(result, h("p", { class: "error" }, `${verb} refused: ${errorText(out.error)}`));
    }
    app.storeChanged("receipts");
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
      show(
        await app.edge.confirm(ticket.id, ticket.confirmation_token, source, { workspace: app.workspace }),
        "Confirmed",
      );
    } catch (err) {
      replace(result, h("p", { class: "error" }, errorText(toErrorJson(err))));
    }
  });
  rejectBtn.addEventListener("click", async () => {
    try {
      show(await app.edge.reject(ticket.id), "Rejected");
    } catch (err) {
      replace(result, h("p", { class: "error" }, errorText(toErrorJson(err))));
    }
  });
  card.append(
    h("h3", {}, "Confirmation needed ", countdown),
    details,
    h("div", { class: "button-row" }, confirmBtn, rejectBtn),
    result,
  );
  return card;
}

/** What the pending action will run, read back from the pending store (not from the run): the
 *  tool, its arguments and the hashes its confirmation is bound to. Filled in when the read ends. */
function pendingDetails(app: App, pendingId: string, scrollLogToEnd: () => void): HTMLElement {
  const details = h("div", { class: "confirm-details" }, "Loading the pending action…");
  void app.stores.pending.get(pendingId).then((record) => {
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
  return details;
}
