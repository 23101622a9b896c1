// The approval card for a built-in write: every path the plan changes with a line diff (jsdiff)
// of its text, or sizes for binary files, and Approve / Reject. The card resolves the approval
// handler's question; nothing is written before Approve, and the written result is exactly the
// plan shown here.
import type { FileChange, WritePlan } from "../builtins/write-plan.ts";
import { describeChange, diffLines } from "../builtins/workspace/plan-text.ts";
import { h } from "./dom.ts";

async function diffOf(c: FileChange): Promise<HTMLElement | null> {
  const d = await diffLines(c);
  if (!d) return null;
  if (d.binary) return h("p", { class: "small muted" }, "Binary content: no line diff.");
  const pre = h("pre", { class: "write-diff", "data-testid": "write-diff" });
  for (const line of d.lines)
    pre.append(
      h(
        "span",
        { class: line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "muted" : "" },
        `${line}\n`,
      ),
    );
  if (d.cut) pre.append(h("span", { class: "muted" }, `… ${d.cut} more lines not shown\n`));
  return pre;
}

/** Renders the card into `entry` and resolves with the person's answer (false when aborted). */
export function writeApprovalCard(entry: HTMLElement, plan: WritePlan, signal: AbortSignal): Promise<boolean> {
  const approve = h("button", { type: "button", class: "primary", "data-action": "approve" }, "Approve");
  const reject = h("button", { type: "button", class: "secondary", "data-action": "reject" }, "Reject");
  const outcome = h("p", { class: "small", role: "status", "aria-live": "polite" });
  const list = h("ul", { class: "card-list" });
  const card = h(
    "div",
    {
      class: "confirm-card write-card",
      role: "group",
      "aria-label": "Approve a change to the workspace",
      "data-tool": plan.tool,
    },
    h("h3", {}, `Approve this change to the workspace? (${plan.tool})`),
    h(
      "p",
      { class: "small muted" },
      "Nothing has been written yet. Approve applies exactly this diff; Reject writes nothing.",
    ),
    list,
    h("div", { class: "button-row" }, approve, reject),
    outcome,
  );
  for (const c of plan.changes) {
    const item = h(
      "li",
      { class: "card", "data-path": c.path },
      h("p", {}, h("code", {}, c.path), " ", h("span", { class: "muted small" }, describeChange(c))),
    );
    list.append(item);
    void diffOf(c).then((d) => d && item.append(d));
  }
  entry.append(card);
  return new Promise<boolean>((resolve) => {
    const done = (yes: boolean, text: string): void => {
      approve.disabled = true;
      reject.disabled = true;
      outcome.textContent = text;
      card.dataset.state = yes ? "approved" : "rejected";
      resolve(yes);
    };
    approve.addEventListener("click", () => done(true, "Approved: applying this diff."));
    reject.addEventListener("click", () => done(false, "Rejected: nothing was written."));
    signal.addEventListener("abort", () => done(false, "Stopped: nothing was written."), { once: true });
    approve.scrollIntoView({ block: "nearest" });
  });
}
