// The "Try a tool" panel's view: the tool picker, the tool's description and the commit-tool note,
// the form host, the arguments as JSON, Run, the status line and the outcome of a call (status,
// duration, checks, hashes, result, traceback, stderr and the receipt line). What the picker, the
// form and Run do is the panel's controller (try-tool.ts).
import type { Receipt } from "../receipts/types.ts";
import type { ToolCallReport } from "../toolset/call.ts";
import type { FrozenTool } from "../toolset/freeze.ts";
import { errorText, h, hashCode, ms, pretty, replace } from "./dom.ts";

export function mountTryView(root: HTMLElement) {
  const select = h("select", { id: "try-tool-select" });
  const desc = h("p", { id: "try-tool-desc", class: "muted" });
  const formHost = h("form", { id: "try-form", class: "try-form", "aria-labelledby": "try-h" });
  const argsPreview = h("pre", { id: "try-args", class: "json small", "aria-label": "Arguments that will be sent" });
  const runBtn = h("button", { type: "submit", id: "try-run", class: "primary", form: "try-form" }, "Run tool");
  const status = h("p", { id: "try-status", class: "status", role: "status", "aria-live": "polite" });
  const output = h("div", { id: "try-output", class: "try-output" });
  const note = h("p", { id: "try-note", class: "notice", hidden: true });

  replace(
    root,
    h("h2", { id: "try-h" }, "Try a tool"),
    h(
      "p",
      { class: "muted" },
      "Runs one tool of the frozen session directly, in a fresh sandboxed Python runner — no model involved.",
    ),
    h("div", { class: "field" }, h("label", { for: "try-tool-select" }, "Tool"), select),
    desc,
    note,
    formHost,
    h("details", {}, h("summary", {}, "Arguments as JSON"), argsPreview),
    h("div", { class: "button-row" }, runBtn),
    status,
    output,
  );

  /** The picker's options: the frozen active set's tools. */
  function showTools(tools: readonly FrozenTool[]): void {
    replace(select);
    for (const t of tools)
      select.appendChild(h("option", { value: t.schema.name }, `${t.schema.name} (${t.schema.execution_level})`));
  }

  /** Empty the form host, the outcome and the status line for the picked tool. */
  function clearTool(): void {
    replace(formHost);
    replace(output);
    status.textContent = "";
  }

  /** The picked tool's description and, for a commit tool, the note that Run executes it now. */
  function showTool(tool: FrozenTool): void {
    runBtn.disabled = false;
    desc.textContent = tool.schema.description || "(no description)";
    note.hidden = tool.schema.execution_level !== "commit";
    note.textContent =
      tool.schema.execution_level === "commit"
        ? "This is a commit tool: pressing Run executes it now (you are the confirmation). In chat it never runs without the confirmation card."
        : "";
  }

  return { select, desc, formHost, argsPreview, runBtn, status, output, note, showTools, clearTool, showTool };
}

/** A call's outcome: status, duration, checks, hashes, the result, the traceback, stderr, the receipt. */
export function renderOutcome(
  output: HTMLElement,
  report: ToolCallReport,
  receipt: Receipt | null,
  receiptError: string | null,
  openReceipt: (id: string) => void,
): void {
  replace(
    output,
    h(
      "dl",
      { class: "facts-grid" },
      h("dt", {}, "Status"),
      h(
        "dd",
        { "data-testid": "try-outcome", "data-state": report.ok ? "ok" : "error" },
        report.ok ? "ok" : errorText(report.error),
      ),
      h("dt", {}, "Duration"),
      h("dd", { id: "try-duration" }, ms(report.duration_ms)),
      h("dt", {}, "Checks"),
      h(
        "dd",
        {},
        `tools file sha256 verified: ${report.tools_file_sha256_verified ? "yes" : "no"} · runner secret (HMAC) verified: ${report.runner_secret_verified ? "yes" : "no"}`,
      ),
      h("dt", {}, "args_sha256"),
      h("dd", {}, hashCode(report.args_sha256)),
      report.result_sha256 ? h("dt", {}, "result_sha256") : null,
      report.result_sha256 ? h("dd", {}, hashCode(report.result_sha256)) : null,
    ),
    report.ok ? h("h3", {}, "Result") : null,
    report.ok ? h("pre", { id: "try-result", class: "json" }, pretty(report.result)) : null,
    report.diagnostics
      ? h(
          "details",
          {},
          h("summary", {}, "Diagnostics (traceback)"),
          h("pre", { class: "json" }, pretty(report.diagnostics)),
        )
      : null,
    h("h3", {}, "stderr"),
    h("pre", { id: "try-stderr", class: "json small" }, report.stderr || "(empty)"),
    receipt
      ? h(
          "p",
          { id: "try-receipt" },
          `Receipt #${receipt.seq} `,
          h("button", { type: "button", class: "link", onclick: () => openReceipt(receipt.id) }, receipt.id),
          " · ",
          hashCode(receipt.receipt_sha256),
        )
      : h("p", { class: "notice warn" }, `No receipt: ${receiptError ?? "not stored"}`),
  );
}
