// A panel's list of stored things (the facts stores, the imprints): the panel's heading, intro and
// button row, the card of one thing (its title line, a small muted line of details, its Use /
// Export / Delete buttons) and the list of them with its line for none. Shared by the facts and
// imprints views so that both panels keep the same markup.
import { h, replace } from "./dom.ts";

/** What a card's buttons do with its key (a store name, an imprint id). */
export interface CardActions {
  use(key: string): void;
  exportOne(key: string): void;
  remove(key: string): void;
}

export interface StoredCard {
  attrs: Record<string, string>;
  title: HTMLElement;
  details: string;
  useLabel: string;
  useDisabled: boolean;
  exportDisabled: boolean;
}

/** The panel's heading, its muted intro and its row of buttons. */
export function panelHeader(title: string, intro: string, ...buttons: HTMLElement[]): HTMLElement[] {
  return [h("h2", {}, title), h("p", { class: "muted" }, intro), h("div", { class: "button-row" }, ...buttons)];
}

export function storeCard(key: string, card: StoredCard, actions: CardActions): HTMLLIElement {
  return h(
    "li",
    card.attrs,
    card.title,
    h("p", { class: "small muted" }, card.details),
    h(
      "div",
      { class: "button-row" },
      h(
        "button",
        {
          type: "button",
          class: "small",
          disabled: card.useDisabled,
          onclick: () => actions.use(key),
          "data-action": "use",
        },
        card.useLabel,
      ),
      h(
        "button",
        {
          type: "button",
          class: "small secondary",
          disabled: card.exportDisabled,
          onclick: () => actions.exportOne(key),
        },
        "Export",
      ),
      h("button", { type: "button", class: "small danger", onclick: () => actions.remove(key) }, "Delete"),
    ),
  );
}

/** Replace the list's items with one card per item, or the muted `none` line when there is none. */
export function renderCards<T>(
  list: HTMLElement,
  items: readonly T[],
  none: string,
  card: (item: T) => HTMLLIElement,
): void {
  replace(list);
  if (!items.length) list.appendChild(h("li", { class: "muted" }, none));
  for (const item of items) list.appendChild(card(item));
}
