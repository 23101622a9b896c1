// Export and import of imprints as files: the sealed record as pretty JSON. Import verifies the seal
// before storing, so an edited file is refused (imprint_corrupted) and never lands in the store.
import type { Imprint, ImprintStore } from "./record.ts";
import { parseImprintText } from "./record.ts";

export async function exportImprint(store: ImprintStore, id: string): Promise<string> {
  const imprint = await store.get(id);
  return `${JSON.stringify(imprint, null, 2)}\n`;
}

export async function importImprint(store: ImprintStore, text: string): Promise<Imprint> {
  const imprint = await parseImprintText(text);
  await store.put(imprint);
  return imprint;
}

/** Load an imprint for restore: from the store by id. */
export function restoreImprint(store: ImprintStore, id: string): Promise<Imprint> {
  return store.get(id);
}
