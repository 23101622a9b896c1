// The local facts panel's view: its buttons (import the example facts or a file, use the example
// manifest or a file), the "Import a web page" form, the status line and the list of stores, one
// card each with its Use / Export / Delete buttons. What the buttons do is the panel's controller
// (facts-panel.ts).
import type { FactsStoreSummary } from "../facts/store.ts";
import { h, replace } from "./dom.ts";
import { panelHeader, renderCards, storeCard, type CardActions } from "./stored-list.ts";

export type FactsView = ReturnType<typeof mountFactsView>;
export type PageImportView = ReturnType<typeof pageImportView>;

export function mountFactsView(root: HTMLElement) {
  const importExample = h("button", { type: "button", id: "facts-import-example" }, "Import the example facts");
  const importFile = h(
    "button",
    { type: "button", id: "facts-import-file", class: "secondary" },
    "Import a facts file…",
  );
  const manifestExample = h(
    "button",
    { type: "button", id: "facts-manifest-example", class: "secondary" },
    "Use the example tools manifest",
  );
  const manifestFile = h(
    "button",
    { type: "button", id: "facts-manifest-file", class: "secondary" },
    "Use a manifest file…",
  );
  const status = h("p", { id: "facts-status", class: "status", role: "status", "aria-live": "polite" });
  const list = h("ul", { id: "facts-list", class: "card-list", "aria-label": "Facts stores" });
  const page = pageImportView();
  replace(
    root,
    ...panelHeader(
      "Local facts",
      "A facts store is a small local knowledge base in this browser. Used as the chat's tool source, the model gets the read-only local_facts_lookup tool (run by Edge itself, no Python, no network) instead of tools.py.",
      importExample,
      importFile,
      manifestExample,
      manifestFile,
    ),
    page.section,
    status,
    list,
  );
  return { importExample, importFile, manifestExample, manifestFile, status, list, page };
}

/** The stores, one card each; `inUse` is the store the chat's tools read, if any. */
export function renderFactsStores(
  list: HTMLElement,
  stores: FactsStoreSummary[],
  inUse: string | undefined,
  actions: CardActions,
): void {
  renderCards(list, stores, "No facts stores yet.", (s) => {
    const used = s.store === inUse;
    return storeCard(
      s.store,
      {
        attrs: { class: `card${used ? " in-use" : ""}`, "data-store": s.store },
        title: h(
          "p",
          {},
          h("strong", {}, s.store),
          used ? h("span", { class: "badge level-read" }, "chat tool source") : null,
        ),
        details: `${s.facts} facts · ${s.topics} topics · revision ${s.revision}${s.updated_at ? ` · updated ${new Date(s.updated_at).toLocaleString()}` : ""}`,
        useLabel: "Use as the chat's tools",
        useDisabled: used,
        exportDisabled: false,
      },
      actions,
    );
  });
}

/** "Import a web page": the store, URL, split, topic and tags fields and the two import buttons. */
function pageImportView() {
  const store = h("input", {
    id: "facts-page-store",
    type: "text",
    required: true,
    placeholder: "docs",
    autocomplete: "off",
    spellcheck: false,
  });
  const url = h("input", {
    id: "facts-page-url",
    type: "url",
    placeholder: "https://example.org/docs/page.html",
    autocomplete: "off",
  });
  const split = h(
    "select",
    { id: "facts-page-split" },
    h("option", { value: "page" }, "the page's main text"),
    h("option", { value: "html-table-rows" }, "one fact per table row"),
  );
  const topic = h("input", { id: "facts-page-topic", type: "text", placeholder: "(the page title)" });
  const tags = h("input", { id: "facts-page-tags", type: "text", placeholder: "docs, billing" });
  const fromUrl = h("button", { type: "button", id: "facts-page-import-url" }, "Import from the URL");
  const fromFile = h(
    "button",
    { type: "button", id: "facts-page-import-file", class: "secondary" },
    "Import a saved HTML page…",
  );
  const field = (label: string, input: HTMLElement): HTMLElement =>
    h("label", { class: "field" }, h("span", {}, label), input);
  const section = h(
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
  return { store, url, split, topic, tags, fromUrl, fromFile, section };
}
