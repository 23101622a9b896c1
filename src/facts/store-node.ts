// Facts in Node: one JSON file per store under $EDGE_DATA_DIR/facts/<store>.json, replaced
// atomically (temp file + rename) under an inter-process lock, so an import is all or nothing
// and two `edge facts import` processes never lose each other's facts.
import path from "node:path";
import {
  dataDir,
  ensurePrivateDir,
  listDirIfExists,
  readTextIfExists,
  withFileLock,
  writeFileAtomic,
} from "../platform/node-files.ts";
import { toStorageError } from "../platform/storage-error.ts";
import { checkStoreName, type Fact, type FactsFile } from "./format.ts";
import {
  byFactId,
  detailOf,
  exportFile,
  plainFact,
  replacedPageFacts,
  storeNotFound,
  topicCount,
  upsertCounts,
  type FactsStore,
  type FactsStoreSummary,
} from "./store.ts";

const FILE_VERSION = "edge.facts.store.v1";

interface StoreFile {
  schema_version: typeof FILE_VERSION;
  store: string;
  revision: number;
  updated_at: string;
  facts: Fact[];
}

export interface NodeFactsStoreOptions {
  /** Default: dataDir()/facts. */
  dir?: string;
}

export function createNodeFactsStore(options: NodeFactsStoreOptions = {}): FactsStore {
  const dir = options.dir ?? path.join(dataDir(), "facts");
  const fileOf = (store: string): string => path.join(dir, `${checkStoreName(store)}.json`);
  const lock = (): string => path.join(dir, ".lock");

  async function read(store: string): Promise<StoreFile | null> {
    const file = fileOf(store);
    const text = await readTextIfExists(file, "read facts");
    if (text === undefined) return null;
    try {
      const parsed = JSON.parse(text) as StoreFile;
      if (parsed.schema_version !== FILE_VERSION || !Array.isArray(parsed.facts)) throw new Error("unexpected content");
      return parsed;
    } catch (err) {
      throw toStorageError(err, "read facts", { path: file, reason: `corrupt facts store file: ${String(err)}` });
    }
  }

  async function existing(store: string): Promise<StoreFile> {
    const got = await read(store);
    if (!got || got.facts.length === 0) throw storeNotFound(store);
    return got;
  }

  const summaryOf = (s: StoreFile): FactsStoreSummary => ({
    store: s.store,
    facts: s.facts.length,
    topics: topicCount(s.facts),
    updated_at: s.updated_at,
    revision: s.revision,
  });

  return {
    async importFile(file: FactsFile, opts = {}) {
      const store = checkStoreName(opts.store ?? file.store);
      await ensurePrivateDir(dir, { narrow: true });
      return withFileLock(lock(), async () => {
        const prev = await read(store);
        const merged = new Map<string, Fact>((prev?.facts ?? []).map((f) => [f.fact_id, f]));
        const removed = replacedPageFacts(prev?.facts ?? [], file.facts, opts);
        for (const id of removed) merged.delete(id);
        const counts = upsertCounts(new Set(merged.keys()), file.facts);
        for (const f of file.facts) merged.set(f.fact_id, plainFact(f));
        const next: StoreFile = {
          schema_version: FILE_VERSION,
          store,
          revision: (prev?.revision ?? 0) + 1,
          updated_at: new Date().toISOString(),
          facts: [...merged.values()].sort(byFactId),
        };
        await writeFileAtomic(fileOf(store), JSON.stringify(next));
        return {
          store,
          imported: file.facts.length,
          ...counts,
          ...(opts.replacePages ? { removed: removed.length } : {}),
          revision: next.revision,
        };
      });
    },

    async list() {
      const names = await listDirIfExists(dir, "list facts");
      const out: FactsStoreSummary[] = [];
      for (const name of names.filter((n) => n.endsWith(".json") && !n.startsWith("."))) {
        const s = await read(name.slice(0, -".json".length));
        if (s?.facts.length) out.push(summaryOf(s));
      }
      return out;
    },

    async inspect(store) {
      const s = await existing(store);
      return detailOf(summaryOf(s), s.facts);
    },

    async facts(store) {
      return (await existing(store)).facts.map(plainFact);
    },

    async revision(store) {
      const s = await read(store);
      return s?.facts.length ? s.revision : null;
    },

    async delete(store) {
      const file = fileOf(store);
      await ensurePrivateDir(dir, { narrow: true });
      return withFileLock(lock(), async () => {
        const s = await existing(store);
        // An empty file keeps the revision counter going, so a store deleted and imported again
        // never reuses a revision number a running lookup has cached.
        const emptied: StoreFile = { ...s, revision: s.revision + 1, updated_at: new Date().toISOString(), facts: [] };
        await writeFileAtomic(file, JSON.stringify(emptied));
        return { store, deleted: s.facts.length };
      });
    },

    async export(store) {
      return exportFile(store, (await existing(store)).facts);
    },
  };
}
