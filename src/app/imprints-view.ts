// The Neural Imprints panel's view: its buttons (learn from the example sample or a file, import an
// imprint, stop using one), the status line, the last learn's result and the list of stored
// imprints, one card each with its Use / Export / Delete buttons. What the buttons do is the
// panel's controller (imprints-panel.ts).
import type { LearnResult } from "../imprint/learn.ts";
import type { ImprintListing } from "../imprint/record.ts";
import { h, pretty, replace } from "./dom.ts";
import { panelHeader, renderCards, storeCard, type CardActions } from "./stored-list.ts";

export type ImprintsView = ReturnType<typeof mountImprintsView>;

export function mountImprintsView(root: HTMLElement) {
  const learnExample = h("button", { type: "button", id: "learn-example" }, "Learn from the example sample");
  const learnFile = h("button", { type: "button", id: "learn-file", class: "secondary" }, "Learn from a sample file…");
  const importBtn = h("button", { type: "button", id: "imprint-import", class: "secondary" }, "Import an imprint…");
  const stopUsing = h(
    "button",
    { type: "button", id: "imprint-stop", class: "secondary", hidden: true },
    "Stop using the imprint",
  );
  const status = h("p", { id: "imprint-status", class: "status", role: "status", "aria-live": "polite" });
  const list = h("ul", { id: "imprint-list", class: "card-list", "aria-label": "Stored imprints" });
  const lastLearn = h("div", { id: "imprint-learned" });
  replace(
    root,
    ...panelHeader(
      "Neural Imprints",
      "An imprint bakes the tool contract, a sample's profile and its tool policy into a sealed prefix bound to the model. Restoring it checks model, tool names and every schema hash before anything is generated.",
      learnExample,
      learnFile,
      importBtn,
      stopUsing,
    ),
    status,
    lastLearn,
    list,
  );
  return { learnExample, learnFile, importBtn, stopUsing, status, list, lastLearn };
}

/** The stored imprints, newest first, one card each; `inUse` is the id the chat restores, if any. */
export function renderImprints(
  list: HTMLElement,
  rows: ImprintListing[],
  inUse: string | undefined,
  actions: CardActions,
): void {
  renderCards(list, [...rows].reverse(), "No imprints stored yet.", (r) => {
    const used = r.id === inUse;
    return storeCard(
      r.id,
      {
        attrs: { class: `card${used ? " in-use" : ""}`, "data-imprint-id": r.id },
        title: h(
          "p",
          {},
          h("strong", {}, r.id),
          used ? h("span", { class: "badge level-read" }, "in use") : null,
          r.corrupted ? h("span", { class: "badge level-commit" }, "corrupted") : null,
        ),
        details: `model ${r.model_id ?? "—"} · sample ${r.sample_id ?? "—"} · tools ${r.tools?.join(", ") ?? "none"} · ${r.created_at ? new Date(r.created_at).toLocaleString() : ""}`,
        useLabel: "Use for chat",
        useDisabled: r.corrupted || used,
        exportDisabled: r.corrupted,
      },
      actions,
    );
  });
}

/** The last learn's result, folded: the imprint, its prefix and active set, evaluation and warnings. */
export function renderLearnResult(lastLearn: HTMLElement, r: LearnResult): void {
  replace(
    lastLearn,
    h(
      "details",
      {},
      h("summary", {}, `Learn result ${r.imprint_id}`),
      h(
        "pre",
        { class: "json small" },
        pretty({
          imprint_id: r.imprint_id,
          prefix_sha256: r.prefix_sha256,
          active_set_sha256: r.active_set_sha256,
          evaluation: r.evaluation,
          warnings: r.warnings,
        }),
      ),
    ),
  );
}
