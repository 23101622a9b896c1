// Import = validate the whole file, then one store transaction. A file with any problem throws
// before the store is touched (invalid_facts_file / facts_file_too_large, every problem in
// details.errors), so a bad file changes nothing.
import { sha256Bytes, type Sha256 } from "../contract/hash.ts";
import { checkStoreName, requireFactsFile } from "./format.ts";
import type { FactsStore, ImportFileOptions, ImportReport } from "./store.ts";

export interface ImportResult extends ImportReport {
  /** The store named inside the file (the import may target another with options.store). */
  file_store: string;
  facts_file_sha256: Sha256;
}

export async function importFacts(
  facts: FactsStore,
  raw: string | Uint8Array,
  options: ImportFileOptions = {},
): Promise<ImportResult> {
  const bytes = typeof raw === "string" ? new TextEncoder().encode(raw) : raw;
  if (options.store !== undefined) checkStoreName(options.store);
  const file = requireFactsFile(bytes);
  const report = await facts.importFile(file, options);
  return { ...report, file_store: file.store, facts_file_sha256: await sha256Bytes(bytes) };
}
