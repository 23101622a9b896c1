// What the picked option of the model picker is, in the line under it: the download (or that it is
// stored here), where it runs, and how long a person waits for the first answer, in the catalog's
// measured words (catalog.ts: `firstAnswer`, `measured`). Each option carries its own line
// (`data-about`), so the line follows the picker whatever filled it.
import type { CatalogModel } from "../engines/llamacpp/catalog.ts";
import type { ModelStorage } from "../engines/llamacpp/browser/model-store.ts";

export const sizeText = (bytes: number): string =>
  bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(bytes >= 1e7 ? 0 : 1)} MB`;

export const SCRIPTED_ABOUT =
  "Nothing to download: it replays a script you can edit through the real tools, sandboxed runner and receipts.";

/** A catalog model: its download and where it is kept, that it runs on the CPU, what to expect. */
export function catalogAbout(m: CatalogModel, stored: boolean, storage: ModelStorage): string {
  const download = stored
    ? "Stored on this device (no download)"
    : `${sizeText(m.sizeMB * 1e6)} download, ${storage === "none" ? "again on every load (this browser cannot store it)" : "once; then it works offline"}`;
  const expect = m.firstAnswer ? ` · ${m.firstAnswer[0]!.toUpperCase()}${m.firstAnswer.slice(1)}` : "";
  // The eval's score in a few words; the whole sentence is the option's title.
  const score = m.measured ? ` · tool calls: ${m.measured.split(": ")[0]}` : "";
  return `${download} · runs on this device's CPU (llama.cpp)${expect}${score}.`;
}

/** The picker's option text for a catalog model: its name and size, nothing more (the line under
 *  the picker says the rest). */
export function catalogOptionLabel(m: CatalogModel, stored: boolean): string {
  return `${m.label} — ${stored ? "stored on this device" : `${sizeText(m.sizeMB * 1e6)} download`}`;
}

/** The line for the selected option of `select`. */
export function aboutSelected(select: HTMLSelectElement): string {
  return select.selectedOptions[0]?.dataset.about ?? "";
}
