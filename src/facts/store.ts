// The facts store seam: where imported facts live (IndexedDB in the browser, files under
// $EDGE_DATA_DIR in Node). Both adapters share the merge and summary logic below, so upsert
// counting, ordering and export are identical. No DOM, no Node.
import { EdgeError } from "../contract/errors.ts";
import { FACTS_SCHEMA_VERSION, type Fact, type FactsFile } from "./format.ts";

export interface ImportReport {
  store: string;
  /** Facts in the file. */
  imported: number;
  /** New fact ids. */
  inserted: number;
  /** Existing fact ids whose record was replaced (upsert by fact_id). */
  updated: number;
  /** Facts in the store after the import. */
  total: number;
  /** With replacePages: facts of the same pages that the new import no longer has (removed). */
  removed?: number;
  /** Changes on every import or delete; lookups use it to know when to rebuild their index. */
  revision: number;
}

export interface FactsStoreSummary {
  store: string;
  facts: number;
  topics: number;
  updated_at: string | null;
  revision: number;
}

export interface FactsStoreDetail extends FactsStoreSummary {
  /** Topics with their fact counts, most facts first. */
  topic_counts: { topic: string; facts: number }[];
  tag_counts: { tag: string; facts: number }[];
}

export interface ImportFileOptions {
  /** Import into this store instead of the file's. */
  store?: string;
  /**
   * A page is one set of facts per store (URL imports): the store's facts from the same pages
   * (provenance.source_url) that this file does not carry any more are removed in the same
   * transaction, so importing a page again — by import-url or by a crawl — updates it in place.
   */
  replacePages?: boolean;
}

export interface FactsStore {
  /** Upsert every fact of an already validated file, in one transaction, into `store` (default: the file's). */
  importFile(file: FactsFile, options?: ImportFileOptions): Promise<ImportReport>;
  list(): Promise<FactsStoreSummary[]>;
  /** Throws facts_store_not_found. */
  inspect(store: string): Promise<FactsStoreDetail>;
  /** The store's facts sorted by fact_id. Throws facts_store_not_found. */
  facts(store: string): Promise<Fact[]>;
  /** null when the store does not exist. */
  revision(store: string): Promise<number | null>;
  /** Throws facts_store_not_found. */
  delete(store: string): Promise<{ store: string; deleted: number }>;
  /** The store as an importable edge.demo.facts.v1 file. Throws facts_store_not_found. */
  export(store: string): Promise<FactsFile>;
}

export function storeNotFound(store: string): EdgeError {
  return new EdgeError(
    "facts_store_not_found",
    { store },
    `No local facts store named "${store}" exists; import a facts file into it first (edge facts import FILE --store ${store}).`,
  );
}

/** Count what an upsert of `incoming` into a store holding `existingIds` does. */
export function upsertCounts(
  existingIds: ReadonlySet<string>,
  incoming: readonly Fact[],
): { inserted: number; updated: number; total: number } {
  let inserted = 0;
  for (const f of incoming) if (!existingIds.has(f.fact_id)) inserted++;
  return { inserted, updated: incoming.length - inserted, total: existingIds.size + inserted };
}

/** With replacePages: the ids of `existing` facts from the pages `incoming` brings that it does not keep. */
export function replacedPageFacts(
  existing: readonly Fact[],
  incoming: readonly Fact[],
  options: ImportFileOptions,
): string[] {
  if (!options.replacePages) return [];
  const pages = new Set(incoming.map((f) => f.provenance?.source_url).filter((u): u is string => u !== undefined));
  const kept = new Set(incoming.map((f) => f.fact_id));
  return existing
    .filter((f) => f.provenance?.source_url !== undefined && pages.has(f.provenance.source_url) && !kept.has(f.fact_id))
    .map((f) => f.fact_id);
}

export function byFactId(a: Fact, b: Fact): number {
  return a.fact_id < b.fact_id ? -1 : a.fact_id > b.fact_id ? 1 : 0;
}

/** Only the fact fields, in file order (records may carry store bookkeeping). */
export function plainFact(f: Fact): Fact {
  return {
    fact_id: f.fact_id,
    topic: f.topic,
    text: f.text,
    tags: [...f.tags],
    source_label: f.source_label,
    ...(f.provenance ? { provenance: { ...f.provenance } } : {}),
  };
}

export function exportFile(store: string, facts: readonly Fact[]): FactsFile {
  return { schema_version: FACTS_SCHEMA_VERSION, store, facts: [...facts].sort(byFactId).map(plainFact) };
}

export function detailOf(summary: FactsStoreSummary, facts: readonly Fact[]): FactsStoreDetail {
  const topics = new Map<string, number>();
  const tags = new Map<string, number>();
  for (const f of facts) {
    topics.set(f.topic, (topics.get(f.topic) ?? 0) + 1);
    for (const t of new Set(f.tags)) tags.set(t, (tags.get(t) ?? 0) + 1);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return {
    ...summary,
    topic_counts: sorted(topics).map(([topic, n]) => ({ topic, facts: n })),
    tag_counts: sorted(tags).map(([tag, n]) => ({ tag, facts: n })),
  };
}

export function topicCount(facts: readonly Fact[]): number {
  return new Set(facts.map((f) => f.topic)).size;
}
