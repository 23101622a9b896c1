// "Try a tool": pick a tool of the frozen active set, fill the form generated from its schema, run
// it through the real sandboxed runner (callTool: ajv check, fresh worker, hash check, HMAC), and
// see the result, timing, stderr and the receipt (kind "tool_call", chained with chat receipts).
import { directCallReceiptBody } from "../chat/receipt-direct.ts";
import type { Receipt, ReceiptBody } from "../receipts/types.ts";
import { toErrorJson } from "../contract/errors.ts";
import { callTool, type ToolCallReport } from "../toolset/call.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";
import type { App } from "./app.ts";
import { errorText, h, hashCode, ms, pretty, replace, setStatus } from "./dom.ts";
import { createSchemaForm, type SchemaForm } from "./schema-form.ts";

export interface TryToolPanel {
  /** Select a tool by name (e.g. from a link elsewhere). */
  select(name: string): void;
}

/** The receipt of a direct tool call from the playground (no model involved). */
export function tryReceiptBody(toolset: FrozenToolset, report: ToolCallReport): ReceiptBody {
  const tool = toolset.active.find((t) => t.schema.name === report.tool_name);
  return directCallReceiptBody(toolset, report, {
    kind: "tool_call",
    executionLevel: tool?.schema.execution_level ?? null,
    extra: { via: "playground_try_a_tool" },
  });
}

export function mountTryTool(app: App, root: HTMLElement, openReceipt: (id: string) => void): TryToolPanel {
  const select = h("select", { id: "try-tool-select" });
  const desc = h("p", { id: "try-tool-desc", class: "muted" });
  const formHost = h("form", { id: "try-form", class: "try-form", "aria-labelledby": "try-h" });
  const argsPreview = h("pre", { id: "try-args", class: "json small", "aria-label": "Arguments that will be sent" });
  const runBtn = h("button", { type: "submit", id: "try-run", class: "primary", form: "try-form" }, "Run tool");
  const status = h("p", { id: "try-status", class: "status", role: "status", "aria-live": "polite" });
  const output = h("div", { id: "try-output", class: "try-output" });
  const note = h("p", { id: "try-note", class: "notice", hidden: true });
  let form: SchemaForm | null = null;
  let toolset: FrozenToolset | null = null;
  let running: AbortController | undefined;

  replace(
    root,
    h("h2", { id: "try-h" }, "Try a tool"),
    h("p", { class: "muted" }, "Runs one tool of the frozen session directly, in a fresh sandboxed Python runner — no model involved."),
    h("div", { class: "field" }, h("label", { for: "try-tool-select" }, "Tool"), select),
    desc,
    note,
    formHost,
    h("details", {}, h("summary", {}, "Arguments as JSON"), argsPreview),
    h("div", { class: "button-row" }, runBtn),
    status,
    output,
  );

  function updatePreview(): void {
    if (!form) return;
    const r = form.collect();
    argsPreview.textContent = r.ok ? pretty(r.args) : r.problems.join("\n");
  }

  function renderForm(): void {
    const name = select.value;
    const tool = toolset?.active.find((t) => t.schema.name === name);
    replace(formHost);
    replace(output);
    status.textContent = "";
    if (!tool) {
      desc.textContent = toolset ? "" : "No frozen session with Python tools yet.";
      form = null;
      runBtn.disabled = true;
      return;
    }
    runBtn.disabled = false;
    desc.textContent = tool.schema.description || "(no description)";
    note.hidden = tool.schema.execution_level !== "commit";
    note.textContent =
      tool.schema.execution_level === "commit"
        ? "This is a commit tool: pressing Run executes it now (you are the confirmation). In chat it never runs without the confirmation card."
        : "";
    form = createSchemaForm(tool.schema.name, tool.schema.parameters);
    form.onInput(updatePreview);
    formHost.appendChild(form.element);
    updatePreview();
  }

  function renderTools(): void {
    const cur = app.current;
    toolset = cur?.toolset ?? null;
    const previous = select.value;
    replace(select);
    for (const t of toolset?.active ?? []) select.appendChild(h("option", { value: t.schema.name }, `${t.schema.name} (${t.schema.execution_level})`));
    if (toolset?.active.some((t) => t.schema.name === previous)) select.value = previous;
    renderForm();
  }

  function renderOutcome(report: ToolCallReport, receipt: Receipt | null, receiptError: string | null): void {
    replace(
      output,
      h(
        "dl",
        { class: "facts-grid" },
        h("dt", {}, "Status"),
        h("dd", { "data-testid": "try-outcome", "data-state": report.ok ? "ok" : "error" }, report.ok ? "ok" : errorText(report.error)),
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
      report.diagnostics ? h("details", {}, h("summary", {}, "Diagnostics (traceback)"), h("pre", { class: "json" }, pretty(report.diagnostics))) : null,
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

  formHost.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void run();
  });

  async function run(): Promise<void> {
    if (!form || !toolset) return;
    const collected = form.collect();
    if (!collected.ok) {
      setStatus(status, `Fix the form first: ${collected.problems.join("; ")}`, "error");
      return;
    }
    const name = select.value;
    running = new AbortController();
    runBtn.disabled = true;
    setStatus(status, `Running ${name} in a fresh sandboxed runner…`, "busy");
    try {
      const report = await callTool(toolset, app.host, name, collected.args, { signal: running.signal, workspace: app.workspace });
      let receipt: Receipt | null = null;
      let receiptError: string | null = null;
      try {
        receipt = await app.stores.receipts.append(tryReceiptBody(toolset, report));
        app.emit("receipts");
      } catch (err) {
        receiptError = errorText(toErrorJson(err));
      }
      setStatus(status, report.ok ? `${name} ran in ${ms(report.duration_ms)}.` : `${name} failed closed: ${errorText(report.error)}`, report.ok ? "ok" : "error");
      renderOutcome(report, receipt, receiptError);
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
    } finally {
      runBtn.disabled = false;
      running = undefined;
    }
  }

  select.addEventListener("change", renderForm);
  app.on((change) => {
    if (change === "session") renderTools();
  });
  renderTools();
  return {
    select(name) {
      select.value = name;
      renderForm();
    },
  };
}
