// Neural Imprints, the panel's controller: learn from a sample (the example or a file) with the
// current engine and frozen tools, list / export / import / delete, and use one for chat (the
// session then restores it through the schema-level gate and says tool_instruction_mode:
// "imprint"). The view is imprints-view.ts.
import type { ImprintListing } from "../imprint/record.ts";
import { toErrorJson } from "../contract/errors.ts";
import { learn } from "../imprint/learn.ts";
import { parseLearnSampleText } from "../imprint/sample.ts";
import { exportImprint, importImprint } from "../imprint/transfer.ts";
import type { App } from "./app.ts";
import { download, errorText, pickFile, setStatus } from "./dom.ts";
import { mountImprintsView, renderImprints, renderLearnResult, type ImprintsView } from "./imprints-view.ts";

const EXAMPLE_SAMPLE = "/examples/learn_sample.json";

export function mountImprintsPanel(app: App, root: HTMLElement): void {
  const view = mountImprintsView(root);
  const { status, list, stopUsing } = view;

  async function refresh(): Promise<void> {
    let rows: ImprintListing[];
    try {
      rows = await (await app.stores.imprints()).list();
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
      return;
    }
    stopUsing.hidden = !app.imprint;
    renderImprints(list, rows, app.imprint?.id, {
      use: (id) => void use(id),
      exportOne: (id) => void exportOne(id),
      remove: (id) => void remove(id),
    });
  }

  async function use(id: string): Promise<void> {
    const previous = app.imprint;
    try {
      app.setImprint(await (await app.stores.imprints()).get(id));
      await app.newSession();
      setStatus(status, `Chat now restores ${id} (gate passed).`, "ok");
    } catch (err) {
      app.setImprint(previous);
      setStatus(status, `Cannot use ${id}: ${errorText(toErrorJson(err))}`, "error");
    }
    void refresh();
  }

  async function exportOne(id: string): Promise<void> {
    try {
      download(`${id}.json`, await exportImprint(await app.stores.imprints(), id), "application/json");
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
    }
  }

  async function remove(id: string): Promise<void> {
    try {
      await (await app.stores.imprints()).delete(id);
      if (app.imprint?.id === id) {
        app.setImprint(null);
        await app.newSession().catch(() => undefined);
      }
      setStatus(status, `Deleted ${id}.`, "ok");
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
    }
    void refresh();
  }

  wireLearn(app, view);
  wireImportAndStop(app, view, refresh);
  app.on((change) => {
    if (change === "imprints" || change === "session") void refresh();
  });
  void refresh();
}

/** "Learn from the example sample" and "Learn from a sample file…": a learn with the current
 *  engine and frozen tools; its result is shown and the imprints and receipts lists hear of it. */
function wireLearn(app: App, view: ImprintsView): void {
  const { status } = view;
  async function runLearn(text: string, name: string): Promise<void> {
    const engine = app.engine;
    const toolset = app.current?.toolset ?? null;
    if (!engine) return;
    setStatus(status, `Learning from ${name} with ${engine.info().label}…`, "busy");
    try {
      const sample = parseLearnSampleText(text);
      const scripted = engine.info().kind === "scripted";
      // The scripted demo has no model to evaluate: say so rather than score replayed text.
      const r = await learn({
        sample,
        toolset,
        engine,
        store: await app.stores.imprints(),
        receipts: app.stores.receipts,
        evaluate: !scripted,
      });
      setStatus(
        status,
        `Learned ${r.imprint_id}${scripted ? " (evaluation skipped: the scripted demo has no model to evaluate)" : ""}.`,
        "ok",
      );
      renderLearnResult(view.lastLearn, r);
      app.storeChanged("imprints");
      app.storeChanged("receipts");
    } catch (err) {
      setStatus(status, `Learn failed: ${errorText(toErrorJson(err))}`, "error");
    }
  }

  view.learnExample.addEventListener("click", async () => {
    const res = await fetch(EXAMPLE_SAMPLE);
    if (!res.ok) {
      setStatus(status, `Could not load ${EXAMPLE_SAMPLE}: HTTP ${res.status}`, "error");
      return;
    }
    await runLearn(await res.text(), "learn_sample.json");
  });
  view.learnFile.addEventListener("click", async () => {
    const file = await pickFile(".json,application/json");
    if (file) await runLearn(await file.text(), file.name);
  });
}

/** "Import an imprint…" (its seal is verified) and "Stop using the imprint"; both refresh the list. */
function wireImportAndStop(app: App, view: ImprintsView, refresh: () => Promise<void>): void {
  const { status } = view;
  view.importBtn.addEventListener("click", async () => {
    const file = await pickFile(".json,application/json");
    if (!file) return;
    try {
      const imp = await importImprint(await app.stores.imprints(), await file.text());
      setStatus(status, `Imported ${imp.id} (seal verified).`, "ok");
    } catch (err) {
      setStatus(status, `Import refused: ${errorText(toErrorJson(err))}`, "error");
    }
    void refresh();
  });
  view.stopUsing.addEventListener("click", async () => {
    app.setImprint(null);
    try {
      await app.newSession();
      setStatus(status, "Chat uses the plain tool contract again.", "ok");
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
    }
    void refresh();
  });
}
