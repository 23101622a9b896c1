// The approval card for a built-in write: every path the plan changes with a line diff (jsdiff)
// of its text, or sizes for binary files, and Approve / Reject. The card resolves the approval
// handler's question; nothing is written before Approve, and the written result is exactly the
// plan shown here.
import type { FileChange, WritePlan } from "../builtins/write-plan.ts";
import { DIR } from "../builtins/write-plan.ts";
import { h } from "./dom.ts";
import { asText } from "../builtins/workspace/text.ts";

/** More diff lines than this are cut (the card stays usable; the full file is in the workspace). */
const MAX_LINES = 400;

function what(c: FileChange): string {
  if (c.type === "directory") return c.after === null ? "folder removed" : "new folder";
  if (c.before === null) return `new file, ${c.after!.byteLength} bytes`;
  if (c.after === null) return `deleted (was ${c.before.byteLength} bytes)`;
  return `changed, ${c.before.byteLength} → ${c.after.byteLength} bytes`;
}

async function diffOf(c: FileChange): Promise<HTMLElement | null> {
  if (c.type === "directory" || c.before === DIR || c.after === DIR) return null;
  const before = c.before ? asText(c.before) : "";
  const after = c.after ? asText(c.after) : "";
  if (before === null || after === null) return h("p", { class: "small muted" }, "Binary content: no line diff.");
  const { structuredPatch } = await import("diff");
  const patch = structuredPatch(c.path, c.path, before, after, "", "", { context: 3 });
  const pre = h("pre", { class: "write-diff", "data-testid": "write-diff" });
  let shown = 0;
  for (const hunk of patch.hunks) {
    pre.append(h("span", { class: "muted" }, `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@\n`));
    for (const line of hunk.lines) {
      if (++shown > MAX_LINES) break;
      pre.append(h("span", { class: line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "" }, `${line}\n`));
    }
  }
  if (shown > MAX_LINES) pre.append(h("span", { class: "muted" }, `… ${shown - MAX_LINES} more lines not shown\n`));
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
    { class: "confirm-card write-card", role: "group", "aria-label": "Approve a change to the workspace", "data-tool": plan.tool },
    h("h3", {}, `Approve this change to the workspace? (${plan.tool})`),
    h("p", { class: "small muted" }, "Nothing has been written yet. Approve applies exactly this diff; Reject writes nothing."),
    list,
    h("div", { class: "button-row" }, approve, reject),
    outcome,
  );
  for (const c of plan.changes) {
    const item = h("li", { class: "card", "data-path": c.path }, h("p", {}, h("code", {}, c.path), " ", h("span", { class: "muted small" }, what(c))));
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
