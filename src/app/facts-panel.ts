// Local facts, the panel's controller: import the example facts (or a file) into IndexedDB, list
// the stores, export or delete one, and make a store (or a tools manifest) the chat's tool source
// instead of tools.py. Web pages become facts too: fetched from a URL (only where the site allows
// CORS) or read from a saved HTML file; the HTML parser and extractor load only when used. The
// view is facts-view.ts.
import type { FactsStoreSummary } from "../facts/store.ts";
import { toErrorJson } from "../contract/errors.ts";
import type { FactOptions, UrlImportReport } from "../facts/url-import.ts";
import { importFacts } from "../facts/import.ts";
import type { App } from "./app.ts";
import { download, errorText, pickFile, setStatus } from "./dom.ts";
import type { ToolMode } from "./state.ts";
import { mountFactsView, renderFactsStores, type FactsView, type PageImportView } from "./facts-view.ts";

const EXAMPLE_FACTS = "/examples/facts.json";
const EXAMPLE_MANIFEST = "/examples/tools.manifest.json";

export function mountFactsPanel(app: App, root: HTMLElement): void {
  const view = mountFactsView(root);
  const { status, list } = view;
  wirePageImport(app, status, view.page);

  async function refresh(): Promise<void> {
    let stores: FactsStoreSummary[];
    try {
      stores = await (await app.stores.facts()).list();
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
      return;
    }
    const mode = app.current?.mode;
    renderFactsStores(list, stores, mode?.kind === "facts" ? mode.store : undefined, {
      use: (store) => void useToolMode({ kind: "facts", store }, `Chat tools: local_facts_lookup over “${store}”.`, ""),
      exportOne: (store) => void exportStore(store),
      remove: (store) => void deleteStore(store),
    });
  }

  async function doImport(raw: string | Uint8Array, name: string): Promise<void> {
    try {
      const r = await importFacts(await app.stores.facts(), raw);
      setStatus(
        status,
        `Imported ${name} into “${r.store}”: ${r.inserted} new, ${r.updated} updated, ${r.total} in the store.`,
        "ok",
      );
    } catch (err) {
      setStatus(status, `Import refused (nothing changed): ${errorText(toErrorJson(err))}`, "error");
    }
    void refresh();
  }

  /** A facts store or a manifest as the chat's tool source; refused, the previous source stays. */
  async function useToolMode(mode: ToolMode, done: string, refused: string): Promise<void> {
    const previous = app.toolMode;
    app.setToolMode(mode);
    try {
      await app.newSession();
      setStatus(status, done, "ok");
    } catch (err) {
      app.setToolMode(previous);
      setStatus(status, `${refused}${errorText(toErrorJson(err))}`, "error");
    }
    void refresh();
  }

  async function exportStore(store: string): Promise<void> {
    try {
      download(
        `${store}.facts.json`,
        `${JSON.stringify(await (await app.stores.facts()).export(store), null, 2)}\n`,
        "application/json",
      );
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
        app.setToolMode({ kind: "python" });
        await app.newSession().catch(() => undefined);
      }
    } catch (err) {
      setStatus(status, errorText(toErrorJson(err)), "error");
    }
    void refresh();
  }

  wireSourceButtons(view, doImport, (bytes, name) =>
    useToolMode(
      { kind: "manifest", name, bytes },
      `Chat tools: the lookups declared in ${name}.`,
      "Manifest refused: ",
    ),
  );
  app.on((change) => {
    if (change === "facts" || change === "session") void refresh();
  });
  void refresh();
}

type UseBytes = (bytes: Uint8Array, name: string) => Promise<void>;

/** The four buttons above the list: the example facts or a facts file, the example manifest or a
 *  manifest file. */
function wireSourceButtons(view: FactsView, importBytes: UseBytes, useManifest: UseBytes): void {
  const { status } = view;
  /** A button that fetches one of the page's example files and uses its bytes (a failed fetch is said in the status line). */
  const wireExample = (button: HTMLElement, url: string, name: string, use: UseBytes): void =>
    button.addEventListener("click", async () => {
      const res = await fetch(url);
      if (!res.ok) return setStatus(status, `Could not load ${url}: HTTP ${res.status}`, "error");
      await use(new Uint8Array(await res.arrayBuffer()), name);
    });
  const wireFile = (button: HTMLElement, use: UseBytes): void =>
    button.addEventListener("click", async () => {
      const file = await pickFile(".json,application/json");
      if (file) await use(new Uint8Array(await file.arrayBuffer()), file.name);
    });
  wireExample(view.importExample, EXAMPLE_FACTS, "facts.json", importBytes);
  wireFile(view.importFile, importBytes);
  wireExample(view.manifestExample, EXAMPLE_MANIFEST, "tools.manifest.json", useManifest);
  wireFile(view.manifestFile, useManifest);
}

/** "Import a web page": from a URL (CORS permitting) or a saved HTML file, into a named store. */
function wirePageImport(app: App, status: HTMLElement, view: PageImportView): void {
  const { store, url, split, topic, tags, fromUrl, fromFile } = view;

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

  async function run(
    what: string,
    job: (mod: typeof import("../facts/url-import.ts")) => Promise<UrlImportReport>,
  ): Promise<void> {
    setStatus(status, `Importing ${what}…`, "busy");
    try {
      const r = await job(await import("../facts/url-import.ts"));
      setStatus(
        status,
        `Imported ${r.imported} facts from ${what} into “${r.store}”: ${r.inserted} new, ${r.updated} updated, ${r.total} in the store.`,
        "ok",
      );
      app.storeChanged("facts");
    } catch (err) {
      setStatus(status, `Import refused (nothing changed): ${errorText(toErrorJson(err))}`, "error");
    }
  }

  fromUrl.addEventListener("click", () => {
    const opts = options();
    if (!opts) return;
    if (!url.value.trim()) return setStatus(status, "Give the page's URL (or import a saved HTML page).", "error");
    void run(url.value.trim(), async (mod) =>
      mod.importUrl(await app.stores.facts(), url.value.trim(), {
        ...opts,
        maxBytes: 2_000_000,
        timeoutMs: 30_000,
        redirects: "follow",
        browser: true,
      }),
    );
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
}
