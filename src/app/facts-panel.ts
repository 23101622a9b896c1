// Local facts: import the example facts (or a file) into IndexedDB, list the stores, export or
// delete one, and make a store (or a tools manifest) the chat's tool source instead of tools.py.
// Web pages become facts too: fetched from a URL (only where the site allows CORS) or read from a
// saved HTML file; the HTML parser and extractor load only when used.
import { toErrorJson } from "../contract/errors.ts";
import type { FactOptions, UrlImportReport } from "../facts/url-import.ts";
import { importFacts } from "../facts/import.ts";
import type { App } from "./app.ts";
import { download, errorText, h, pickFile, replace, setStatus } from "./dom.ts";

const EXAMPLE_FACTS = "/examples/facts.json";
const EXAMPLE_MANIFEST = "/examples/tools.manifest.json";

export function mountFactsPanel(app: App, root: HTMLElement): void {
  const importExample = h("button", { type: "button", id: "facts-import-example" }, "Import the example facts");
  const importFile = h("button", { type: "button", id: "facts-import-file", class: "secondary" }, "Import a facts file…");
  const manifestExample = h("button", { type: "button", id: "facts-manifest-example", class: "secondary" }, "Use the example tools manifest");
  const manifestFile = h("button", { type: "button", id: "facts-manifest-file", class: "secondary" }, "Use a manifest file…");
  const status = h("p", { id: "facts-status", class: "status", role: "status", "aria-live": "polite" });
  const list = h("ul", { id: "facts-list", class: "card-list", "aria-label": "Facts stores" });
  const page = mountPageImport(app, status);
  replace(
    root,
    h("h2", {}, "Local facts"),
    h(
      "p",
      { class: "muted" },
      "A facts store is a small local knowledge base in this browser. Used as the chat's tool source, the model gets the read-only local_facts_lookup tool (run by Edge itself, no Python, no network) instead of tools.py.",
    ),
    h("div", { class: "button-row" }, importExample, importFile, manifestExample, manifestFile),
    page,
    status,
    list,
  );

  async function refresh(): Promise<void> {
    let stores;
    try {
      stores = await (await app.stores.facts()).list();
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
      return;
    }
    replace(list);
    if (!stores.length) list.appendChild(h("li", { class: "muted" }, "No facts stores yet."));
    const mode = app.current?.mode;
    for (const s of stores) {
      const inUse = mode?.kind === "facts" && mode.store === s.store;
      list.appendChild(
        h(
          "li",
          { class: `card${inUse ? " in-use" : ""}`, "data-store": s.store },
          h("p", {}, h("strong", {}, s.store), inUse ? h("span", { class: "badge level-read" }, "chat tool source") : null),
          h("p", { class: "small muted" }, `${s.facts} facts · ${s.topics} topics · revision ${s.revision}${s.updated_at ? ` · updated ${new Date(s.updated_at).toLocaleString()}` : ""}`),
          h(
            "div",
            { class: "button-row" },
            h("button", { type: "button", class: "small", disabled: inUse, onclick: () => void useStore(s.store), "data-action": "use" }, "Use as the chat's tools"),
            h("button", { type: "button", class: "small secondary", onclick: () => void exportStore(s.store) }, "Export"),
            h("button", { type: "button", class: "small danger", onclick: () => void deleteStore(s.store) }, "Delete"),
          ),
        ),
      );
    }
  }

  async function doImport(raw: string | Uint8Array, name: string): Promise<void> {
    try {
      const r = await importFacts(await app.stores.facts(), raw);
      setStatus(status, `Imported ${name} into “${r.store}”: ${r.inserted} new, ${r.updated} updated, ${r.total} in the store.`, "ok");
    } catch (err) {
      setStatus(status, `Import refused (nothing changed): ${errorText(toErrorJson(err))}`, "error");
    }
    void refresh();
  }

  async function useStore(store: string): Promise<void> {
    const previous = app.toolMode;
    app.toolMode = { kind: "facts", store };
    try {
      await app.newSession();
      setStatus(status, `Chat tools: local_facts_lookup over “${store}”.`, "ok");
    } catch (err) {
      app.toolMode = previous;
      setStatus(status, errorText(toErrorJson(err)), "error");
    }
    void refresh();
  }

  async function useManifest(bytes: Uint8Array, name: string): Promise<void> {
    const previous = app.toolMode;
    app.toolMode = { kind: "manifest", name, bytes };
    try {
      await app.newSession();
      setStatus(status, `Chat tools: the lookups declared in ${name}.`, "ok");
    } catch (err) {
      app.toolMode = previous;
      setStatus(status, `Manifest refused: ${errorText(toErrorJson(err))}`, "error");
    }
    void refresh();
  }

  async function exportStore(store: string): Promise<void> {
    try {
      download(`${store}.facts.json`, `${JSON.stringify(await (await app.stores.facts()).export(store), null, 2)}\n`, "application/json");
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
    }
  }

  async function deleteStore(store: string): Promise<void> {
    try {
      const r = await (await app.stores.facts()).delete(store);
      setStatus(status, `Deleted “${store}” (${r.deleted} facts).`, "ok");
      const mode = app.current?.mode;
      if (mode?.kind === "facts" && mode.store === store) {
        app.toolMode = { kind: "python" };
        await app.newSession().catch(() => undefined);
      }
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
    }
    void refresh();
  }

  importExample.addEventListener("click", async () => {
    const res = await fetch(EXAMPLE_FACTS);
    if (!res.ok) return setStatus(status, `Could not load ${EXAMPLE_FACTS}: HTTP ${res.status}`, "error");
    await doImport(new Uint8Array(await res.arrayBuffer()), "facts.json");
  });
  importFile.addEventListener("click", async () => {
    const file = await pickFile(".json,application/json");
    if (file) await doImport(new Uint8Array(await file.arrayBuffer()), file.name);
  });
  manifestExample.addEventListener("click", async () => {
    const res = await fetch(EXAMPLE_MANIFEST);
    if (!res.ok) return setStatus(status, `Could not load ${EXAMPLE_MANIFEST}: HTTP ${res.status}`, "error");
    await useManifest(new Uint8Array(await res.arrayBuffer()), "tools.manifest.json");
  });
  manifestFile.addEventListener("click", async () => {
    const file = await pickFile(".json,application/json");
    if (file) await useManifest(new Uint8Array(await file.arrayBuffer()), file.name);
  });
  app.on((change) => {
    if (change === "facts" || change === "session") void refresh();
  });
  void refresh();
}

/** "Import a web page": from a URL (CORS permitting) or a saved HTML file, into a named store. */
function mountPageImport(app: App, status: HTMLElement): HTMLElement {
  const store = h("input", { id: "facts-page-store", type: "text", required: true, placeholder: "docs", autocomplete: "off", spellcheck: false });
  const url = h("input", { id: "facts-page-url", type: "url", placeholder: "https://example.org/docs/page.html", autocomplete: "off" });
  const split = h("select", { id: "facts-page-split" }, h("option", { value: "page" }, "the page's main text"), h("option", { value: "html-table-rows" }, "one fact per table row"));
  const topic = h("input", { id: "facts-page-topic", type: "text", placeholder: "(the page title)" });
  const tags = h("input", { id: "facts-page-tags", type: "text", placeholder: "docs, billing" });
  const fromUrl = h("button", { type: "button", id: "facts-page-import-url" }, "Import from the URL");
  const fromFile = h("button", { type: "button", id: "facts-page-import-file", class: "secondary" }, "Import a saved HTML page…");
  const field = (label: string, input: HTMLElement): HTMLElement => h("label", { class: "field" }, h("span", {}, label), input);

  function options(): (FactOptions & { store: string }) | null {
    if (!store.value.trim()) {
      setStatus(status, "Give the facts store a name first.", "error");
      store.focus();
      return null;
    }
    return {
      store: store.value.trim(),
      split: split.value === "html-table-rows" ? "html-table-rows" : "page",
      ...(topic.value.trim() ? { topic: topic.value.trim() } : {}),
      ...(tags.value.trim() ? { tags: tags.value.split(",") } : {}),
    };
  }

  async function run(what: string, job: (mod: typeof import("../facts/url-import.ts")) => Promise<UrlImportReport>): Promise<void> {
    setStatus(status, `Importing ${what}…`, "busy");
    try {
      const r = await job(await import("../facts/url-import.ts"));
      setStatus(status, `Imported ${r.imported} facts from ${what} into “${r.store}”: ${r.inserted} new, ${r.updated} updated, ${r.total} in the store.`, "ok");
      app.emit("facts");
    } catch (err) {
      setStatus(status, `Import refused (nothing changed): ${errorText(toErrorJson(err))}`, "error");
    }
  }

  fromUrl.addEventListener("click", () => {
    const opts = options();
    if (!opts) return;
    if (!url.value.trim()) return setStatus(status, "Give the page's URL (or import a saved HTML page).", "error");
    void run(url.value.trim(), async (mod) => mod.importUrl(await app.stores.facts(), url.value.trim(), { ...opts, maxBytes: 2_000_000, timeoutMs: 30_000, redirects: "follow", browser: true }));
  });
  fromFile.addEventListener("click", async () => {
    const opts = options();
    if (!opts) return;
    const file = await pickFile(".html,.htm,text/html,application/xhtml+xml");
    if (!file) return;
    const bytes = new Uint8Array(await file.arrayBuffer());
    // The URL field, when given, is where the page came from: links are made absolute against it.
    const source = /^https?:\/\//i.test(url.value.trim()) ? url.value.trim() : `file:${file.name}`;
    void run(file.name, async (mod) => mod.importHtml(await app.stores.facts(), bytes, { ...opts, url: source }));
  });

  return h(
    "section",
    { class: "facts-page", "aria-labelledby": "facts-page-h" },
    h("h3", { id: "facts-page-h" }, "Import a web page"),
    h(
      "p",
      { class: "muted small" },
      "The page's main text (navigation, scripts and boilerplate dropped) or its table rows become facts, each recording the page's URL and sha256. A browser page can fetch another site only when that site allows it (CORS); most do not. Then save the page in your browser (Save page as… → Webpage, HTML only) and import the saved file, with its URL above if you want links made absolute.",
    ),
    h("div", { class: "field-row" }, field("Store", store), field("Page URL", url)),
    h("div", { class: "field-row" }, field("Split into", split), field("Topic", topic), field("Tags", tags)),
    h("div", { class: "button-row" }, fromUrl, fromFile),
  );
}
