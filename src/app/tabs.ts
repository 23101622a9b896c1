// Accessible tabs (WAI-ARIA tabs pattern): arrow keys / Home / End move between tabs, the active
// tab is the only one in the tab order, panels are labelled by their tabs.
export interface Tabs {
  select(id: string, focus?: boolean): void;
}

export function mountTabs(tablist: HTMLElement, onSelect?: (id: string) => void): Tabs {
  const tabs = [...tablist.querySelectorAll<HTMLButtonElement>("[role=tab]")];
  function select(id: string, focus = false): void {
    onSelect?.(id);
    for (const tab of tabs) {
      const on = tab.id === id;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      const panel = document.getElementById(tab.getAttribute("aria-controls") ?? "");
      if (panel) panel.hidden = !on;
      if (on && focus) tab.focus();
    }
  }
  for (const tab of tabs) {
    tab.addEventListener("click", () => select(tab.id));
    tab.addEventListener("keydown", (ev) => {
      const i = tabs.indexOf(tab);
      let next: number | null = null;
      if (ev.key === "ArrowRight") next = (i + 1) % tabs.length;
      else if (ev.key === "ArrowLeft") next = (i - 1 + tabs.length) % tabs.length;
      else if (ev.key === "Home") next = 0;
      else if (ev.key === "End") next = tabs.length - 1;
      if (next !== null) {
        ev.preventDefault();
        select(tabs[next]!.id, true);
      }
    });
  }
  const initial = tabs.find((t) => t.getAttribute("aria-selected") === "true") ?? tabs[0];
  if (initial) select(initial.id);
  return { select };
}
