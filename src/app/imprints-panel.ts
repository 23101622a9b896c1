// Neural Imprints: learn from a sample (the example or a file) with the current engine and frozen
// tools, list / export / import / delete, and use one for chat (the session then restores it
// through the schema-level gate and says tool_instruction_mode: "imprint").
import { toErrorJson } from "../contract/errors.ts";
import { learn } from "../imprint/learn.ts";
import { parseLearnSampleText } from "../imprint/sample.ts";
import { exportImprint, importImprint } from "../imprint/transfer.ts";
import type { App } from "./app.ts";
import { download, errorText, h, pickFile, pretty, replace, setStatus } from "./dom.ts";

const EXAMPLE_SAMPLE = "/examples/learn_sample.json";

export function mountImprintsPanel(app: App, root: HTMLElement): void {
  const learnExample = h("button", { type: "button", id: "learn-example" }, "Learn from the example sample");
  const learnFile = h("button", { type: "button", id: "learn-file", class: "secondary" }, "Learn from a sample file…");
  const importBtn = h("button", { type: "button", id: "imprint-import", class: "secondary" }, "Import an imprint…");
  const stopUsing = h("button", { type: "button", id: "imprint-stop", class: "secondary", hidden: true }, "Stop using the imprint");
  const status = h("p", { id: "imprint-status", class: "status", role: "status", "aria-live": "polite" });
  const list = h("ul", { id: "imprint-list", class: "card-list", "aria-label": "Stored imprints" });
  const lastLearn = h("div", { id: "imprint-learned" });
  replace(
    root,
    h("h2", {}, "Neural Imprints"),
    h(
      "p",
      { class: "muted" },
      "An imprint bakes the tool contract, a sample's profile and its tool policy into a sealed prefix bound to the model. Restoring it checks model, tool names and every schema hash before anything is generated.",
    ),
    h("div", { class: "button-row" }, learnExample, learnFile, importBtn, stopUsing),
    status,
    lastLearn,
    list,
  );

  async function refresh(): Promise<void> {
    let rows;
    try {
      rows = await (await app.stores.imprints()).list();
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
      return;
    }
    stopUsing.hidden = !app.imprint;
    replace(list);
    if (!rows.length) list.appendChild(h("li", { class: "muted" }, "No imprints stored yet."));
    for (const r of [...rows].reverse()) {
      const inUse = app.imprint?.id === r.id;
      list.appendChild(
        h(
          "li",
          { class: `card${inUse ? " in-use" : ""}`, "data-imprint-id": r.id },
          h("p", {}, h("strong", {}, r.id), inUse ? h("span", { class: "badge level-read" }, "in use") : null, r.corrupted ? h("span", { class: "badge level-commit" }, "corrupted") : null),
          h("p", { class: "small muted" }, `model ${r.model_id ?? "—"} · sample ${r.sample_id ?? "—"} · tools ${r.tools?.join(", ") ?? "none"} · ${r.created_at ? new Date(r.created_at).toLocaleString() : ""}`),
          h(
            "div",
            { class: "button-row" },
            h("button", { type: "button", class: "small", disabled: r.corrupted || inUse, onclick: () => void use(r.id), "data-action": "use" }, "Use for chat"),
            h("button", { type: "button", class: "small secondary", disabled: r.corrupted, onclick: () => void exportOne(r.id) }, "Export"),
            h("button", { type: "button", class: "small danger", onclick: () => void remove(r.id) }, "Delete"),
          ),
        ),
      );
    }
  }

  async function runLearn(text: string, name: string): Promise<void> {
    const engine = app.engine;
    const toolset = app.current?.toolset ?? null;
    if (!engine) return;
    setStatus(status, `Learning from ${name} with ${engine.info().label}…`, "busy");
    try {
      const sample = parseLearnSampleText(text);
      const scripted = engine.info().kind === "scripted";
      // The scripted demo has no model to evaluate: say so rather than score replayed text.
      const r = await learn({ sample, toolset, engine, store: await app.stores.imprints(), receipts: app.stores.receipts, evaluate: !scripted });
      setStatus(status, `Learned ${r.imprint_id}${scripted ? " (evaluation skipped: the scripted demo has no model to evaluate)" : ""}.`, "ok");
      replace(
        lastLearn,
        h(
          "details",
          {},
          h("summary", {}, `Learn result ${r.imprint_id}`),
          h("pre", { class: "json small" }, pretty({ imprint_id: r.imprint_id, prefix_sha256: r.prefix_sha256, active_set_sha256: r.active_set_sha256, evaluation: r.evaluation, warnings: r.warnings })),
        ),
      );
      app.emit("imprints");
      app.emit("receipts");
    } catch (err) {
      setStatus(status, `Learn failed: ${errorText(toErrorJson(err))}`, "error");
    }
  }

  async function use(id: string): Promise<void> {
    const previous = app.imprint;
    try {
      app.imprint = await (await app.stores.imprints()).get(id);
      await app.newSession();
      setStatus(status, `Chat now restores ${id} (gate passed).`, "ok");
    } catch (err) {
      app.imprint = previous;
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
        app.imprint = null;
        await app.newSession().catch(() => undefined);
      }
      setStatus(status, `Deleted ${id}.`, "ok");
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
    }
    void refresh();
  }

  learnExample.addEventListener("click", async () => {
    const res = await fetch(EXAMPLE_SAMPLE);
    if (!res.ok) {
      setStatus(status, `Could not load ${EXAMPLE_SAMPLE}: HTTP ${res.status}`, "error");
      return;
    }
    await runLearn(await res.text(), "learn_sample.json");
  });
  learnFile.addEventListener("click", async () => {
    const file = await pickFile(".json,application/json");
    if (file) await runLearn(await file.text(), file.name);
  });
  importBtn.addEventListener("click", async () => {
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
  stopUsing.addEventListener("click", async () => {
    app.imprint = null;
    try {
      await app.newSession();
      setStatus(status, "Chat uses the plain tool contract again.", "ok");
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
    }
    void refresh();
  });
  app.on((change) => {
    if (change === "imprints" || change === "session") void refresh();
  });
  void refresh();
}
