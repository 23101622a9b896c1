// "Try a tool", the panel's controller: pick a tool of the frozen active set, fill the form generated
// from its schema, run it through the real sandboxed runner (callTool: ajv check, fresh worker, hash
// check, HMAC), and see the result, timing, stderr and the receipt (kind "tool_call", chained with
// chat receipts). The view and the outcome's rendering are try-view.ts.
import { directCallReceiptBody } from "../chat/receipt-direct.ts";
import type { Receipt, ReceiptBody } from "../receipts/types.ts";
import { toErrorJson } from "../contract/errors.ts";
import { callTool, type ToolCallReport } from "../toolset/call.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";
import type { App } from "./app.ts";
import { errorText, ms, pretty, setStatus } from "./dom.ts";
import { createSchemaForm, type SchemaForm } from "./schema-form.ts";
import { mountTryView, renderOutcome } from "./try-view.ts";

export interface TryToolPanel {
  /** Select a tool by name (e.g. from a link elsewhere). */
  select(name: string): void;
}

/** The receipt of a direct tool call from the playground (no model involved). */
function tryReceiptBody(toolset: FrozenToolset, report: ToolCallReport): ReceiptBody {
  const tool = toolset.active.find((t) => t.schema.name === report.tool_name);
  return directCallReceiptBody(toolset, report, {
    kind: "tool_call",
    executionLevel: tool?.schema.execution_level ?? null,
    extra: { via: "playground_try_a_tool" },
  });
}

export function mountTryTool(app: App, root: HTMLElement, openReceipt: (id: string) => void): TryToolPanel {
  const view = mountTryView(root);
  const { select, desc, formHost, argsPreview, runBtn, status, output } = view;
  let form: SchemaForm | null = null;
  let toolset: FrozenToolset | null = null;
  let running: AbortController | undefined;

  function updatePreview(): void {
    if (!form) return;
    const r = form.collect();
    argsPreview.textContent = r.ok ? pretty(r.args) : r.problems.join("\n");
  }

  function renderForm(): void {
    const name = select.value;
    const tool = toolset?.active.find((t) => t.schema.name === name);
    view.clearTool();
    if (!tool) {
      desc.textContent = toolset ? "" : "No frozen session with Python tools yet.";
      form = null;
      runBtn.disabled = true;
      return;
    }
    view.showTool(tool);
    form = createSchemaForm(tool.schema.name, tool.schema.parameters);
    form.onInput(updatePreview);
    formHost.appendChild(form.element);
    updatePreview();
  }

  function renderTools(): void {
    const cur = app.current;
    toolset = cur?.toolset ?? null;
    const previous = select.value;
    view.showTools(toolset?.active ?? []);
    if (toolset?.active.some((t) => t.schema.name === previous)) select.value = previous;
    renderForm();
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
      const report = await callTool(toolset, app.host, name, collected.args, {
        signal: running.signal,
        workspace: app.workspace,
      });
      let receipt: Receipt | null = null;
      let receiptError: string | null = null;
      try {
        receipt = await app.stores.receipts.append(tryReceiptBody(toolset, report));
        app.storeChanged("receipts");
      } catch (err) {
        receiptError = errorText(toErrorJson(err));
      }
      setStatus(
        status,
        report.ok ? `${name} ran in ${ms(report.duration_ms)}.` : `${name} failed closed: ${errorText(report.error)}`,
        report.ok ? "ok" : "error",
      );
      renderOutcome(output, report, receipt, receiptError, openReceipt);
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
