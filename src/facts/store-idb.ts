// Facts in the one IndexedDB database (store `facts`, keyPath [store, fact_id], index by_store;
// the per-store revision lives in `meta` under "facts.revision/<store>"). An import is ONE
// readwrite transaction over both stores: a failure anywhere aborts it and nothing changes.
import type { EdgeDb, EdgeDbSchema, FactRecord, FactsRevisionRecord } from "../idb/schema.ts";
import { toStorageError } from "../platform/storage-error.ts";
import { checkStoreName, type Fact, type FactsFile } from "./format.ts";
import {
  detailOf,
  exportFile,
  plainFact,
  replacedPageFacts,
  storeNotFound,
  topicCount,
  upsertCounts,
  byFactId,
  type FactsStore,
  type FactsStoreSummary,
  type ImportFileOptions,
  type ImportReport,
} from "./store.ts";

type RevisionRecord = FactsRevisionRecord;

/** A store's revision from `meta` (which holds only these today); anything else reads as none. */
function asRevision(value: EdgeDbSchema["meta"]["value"] | undefined): RevisionRecord | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return typeof value.revision === "number" && typeof value.updated_at === "string"
    ? { revision: value.revision, updated_at: value.updated_at }
    : undefined;
}

const revKey = (store: string): string => `facts.revision/${store}`;

function toFact(r: FactRecord): Fact {
  return plainFact(r);
}

/** A store's facts (by fact_id) and its revision record, read in one transaction. */
async function readStore(db: EdgeDb, store: string): Promise<{ facts: Fact[]; rev: RevisionRecord | null }> {
  try {
    const tx = db.transaction(["facts", "meta"], "readonly");
    const [records, rev] = await Promise.all([
      tx.objectStore("facts").index("by_store").getAll(store),
      tx.objectStore("meta").get(revKey(store)),
    ]);
    await tx.done;
    return { facts: records.map(toFact).sort(byFactId), rev: asRevision(rev) ?? null };
  } catch (err) {
    throw toStorageError(err, "read facts", { store });
  }
}

function summaryOf(store: string, facts: Fact[], rev: RevisionRecord): FactsStoreSummary {
  return {
    store,
    facts: facts.length,
    topics: topicCount(facts),
    updated_at: rev.updated_at || null,
    revision: rev.revision,
  };
}

/** FactsStore.importFile: one readwrite transaction over facts and meta, so a failed put leaves
 *  the store as it was. */
async function importFacts(db: EdgeDb, file: FactsFile, options: ImportFileOptions): Promise<ImportReport> {
  const store = checkStoreName(options.store ?? file.store);
  const now = new Date().toISOString();
  try {
    const tx = db.transaction(["facts", "meta"], "readwrite");
    const facts = tx.objectStore("facts");
    const meta = tx.objectStore("meta");
    const keys = await facts.index("by_store").getAllKeys(store);
    // A page imported again replaces its facts (ImportFileOptions.replacePages).
    const removed = options.replacePages
      ? replacedPageFacts((await facts.index("by_store").getAll(store)).map(toFact), file.facts, options)
      : [];
    const ids = new Set(keys.map((k) => k[1]));
    for (const id of removed) ids.delete(id);
    const counts = upsertCounts(ids, file.facts);
    const prev = asRevision(await meta.get(revKey(store)));
    const revision = (prev?.revision ?? 0) + 1;
    // Queue every put without awaiting each one; tx.done rejects (and rolls back) if any fails.
    const puts: Promise<unknown>[] = removed.map((id) => facts.delete([store, id]));
    puts.push(...file.facts.map((f) => facts.put({ store, ...plainFact(f), imported_at: now })));
    puts.push(meta.put({ revision, updated_at: now }, revKey(store)));
    await Promise.all([...puts, tx.done]);
    return {
      store,
      imported: file.facts.length,
      ...counts,
      ...(options.replacePages ? { removed: removed.length } : {}),
      revision,
    };
  } catch (err) {
    throw toStorageError(err, "import facts", { store });
  }
}

/** FactsStore.list: every store that holds facts, by name. */
async function listStores(db: EdgeDb): Promise<FactsStoreSummary[]> {
  let records: FactRecord[];
  try {
    records = await db.getAll("facts");
  } catch (err) {
    throw toStorageError(err, "list facts");
  }
  const byStore = new Map<string, Fact[]>();
  for (const r of records) {
    const list = byStore.get(r.store) ?? [];
    list.push(toFact(r));
    byStore.set(r.store, list);
  }
  const out: FactsStoreSummary[] = [];
  for (const store of [...byStore.keys()].sort()) {
    const rev = asRevision(await db.get("meta", revKey(store)).catch(() => undefined)) ?? {
      revision: 0,
      updated_at: "",
    };
    out.push(summaryOf(store, byStore.get(store)!, rev));
  }
  return out;
}

/** FactsStore.delete: the store's facts go, its revision counter stays (bumped). */
async function deleteStore(db: EdgeDb, store: string): Promise<{ store: string; deleted: number }> {
  checkStoreName(store);
  try {
    const tx = db.transaction(["facts", "meta"], "readwrite");
    const keys = await tx.objectStore("facts").index("by_store").getAllKeys(store);
    if (keys.length === 0) {
      tx.abort();
      await tx.done.catch(() => undefined);
      throw storeNotFound(store);
    }
    const ops: Promise<unknown>[] = keys.map((k) => tx.objectStore("facts").delete(k));
    // Keep the revision counter (bumped) so a re-import never reuses an old revision number.
    const prev = asRevision(await tx.objectStore("meta").get(revKey(store)));
    ops.push(
      tx
        .objectStore("meta")
        .put({ revision: (prev?.revision ?? 0) + 1, updated_at: new Date().toISOString() }, revKey(store)),
    );
    await Promise.all([...ops, tx.done]);
    return { store, deleted: keys.length };
  } catch (err) {
    throw toStorageError(err, "delete facts", { store });
  }
}

export function createIdbFactsStore(db: EdgeDb): FactsStore {
  async function existing(store: string): Promise<{ facts: Fact[]; rev: RevisionRecord }> {
    checkStoreName(store);
    const got = await readStore(db, store);
    if (got.facts.length === 0) throw storeNotFound(store);
    return { facts: got.facts, rev: got.rev ?? { revision: 0, updated_at: "" } };
  }

  return {
    importFile: (file, options = {}) => importFacts(db, file, options),
    list: () => listStores(db),

    async inspect(store) {
      const { facts, rev } = await existing(store);
      return detailOf(summaryOf(store, facts, rev), facts);
    },

    async facts(store) {
      return (await existing(store)).facts;
    },

    async revision(store) {
      checkStoreName(store);
      const { facts, rev } = await readStore(db, store);
      return facts.length === 0 ? null : (rev?.revision ?? 0);
    },

    delete: (store) => deleteStore(db, store),

    async export(store) {
      return exportFile(store, (await existing(store)).facts);
    },
  };
}
