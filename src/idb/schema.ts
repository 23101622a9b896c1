// The one IndexedDB schema of the app (database `edge-web`), typed for `idb`. Every object store
// the app will ever use is declared here, and every change is one more entry in MIGRATIONS, so
// features never open their own databases or race each other's upgrades.
//
// Version 1 already creates all stores (receipts, meta, pending, imprints, facts, vfs, sessions)
// with their keys and indexes: features built in parallel then never need to bump the version
// just to exist. A feature that needs a new index or store adds MIGRATIONS[2], [3]… and bumps
// EDGE_DB_VERSION. Never edit a shipped migration: browsers that already ran it will not run it again.
import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from "idb";
import type { Receipt } from "../receipts/types.ts";
import type {
  FactRecord,
  FactsRevisionRecord,
  ImprintRecord,
  PendingActionRecord,
  SessionRecord,
  VfsRecord,
} from "./records.ts";
import { EdgeError } from "../contract/errors.ts";

export const EDGE_DB_NAME = "edge-web";
export const EDGE_DB_VERSION = 1;

/** A JSON value (what meta holds). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Every stored record type is declared in records.ts (types only), so the stores need no casts. */
export type {
  FactRecord,
  FactsRevisionRecord,
  ImprintRecord,
  PendingActionRecord,
  SessionRecord,
  VfsRecord,
} from "./records.ts";

export interface EdgeDbSchema extends DBSchema {
  /** Chained receipts (docs/contract.md §9); by_seq is unique, so two writers can never claim the same place. */
  receipts: { key: string; value: Receipt; indexes: { by_seq: number } };
  /** Small app-wide settings and markers, out-of-line string keys (facts revisions among them). */
  meta: { key: string; value: JsonValue | FactsRevisionRecord };
  /** Pending commit actions (docs/contract.md §6). */
  pending: { key: string; value: PendingActionRecord; indexes: { by_status: string } };
  /** Neural imprints (docs/contract.md §7). */
  imprints: { key: string; value: ImprintRecord };
  /** Local facts (docs/contract.md §8), keyed by [store, fact_id] so import upserts by fact_id within a store. */
  facts: { key: [string, string]; value: FactRecord; indexes: { by_store: string } };
  /** The built-in tools' virtual file system (docs/contract.md §10), one record per path. */
  vfs: { key: string; value: VfsRecord };
  /** Chat sessions. */
  sessions: { key: string; value: SessionRecord };
}

export type EdgeDb = IDBPDatabase<EdgeDbSchema>;
export type EdgeStoreName = StoreNames<EdgeDbSchema>;
export type UpgradeTransaction = IDBPTransaction<EdgeDbSchema, EdgeStoreName[], "versionchange">;

/** One function per version: MIGRATIONS[v] takes a database at version v-1 to version v. */
export type Migration = (db: EdgeDb, tx: UpgradeTransaction) => void;

export const MIGRATIONS: Readonly<Record<number, Migration>> = {
  1(db) {
    const receipts = db.createObjectStore("receipts", { keyPath: "id" });
    receipts.createIndex("by_seq", "seq", { unique: true });
    db.createObjectStore("meta");
    const pending = db.createObjectStore("pending", { keyPath: "id" });
    pending.createIndex("by_status", "status");
    db.createObjectStore("imprints", { keyPath: "id" });
    const facts = db.createObjectStore("facts", { keyPath: ["store", "fact_id"] });
    facts.createIndex("by_store", "store");
    db.createObjectStore("vfs", { keyPath: "path" });
    db.createObjectStore("sessions", { keyPath: "id" });
  },
};

/** Run the migrations from oldVersion (exclusive) to newVersion (inclusive), in order, inside the upgrade transaction. */
export function migrate(db: EdgeDb, oldVersion: number, newVersion: number, tx: UpgradeTransaction): void {
  for (let v = oldVersion + 1; v <= newVersion; v++) {
    const step = MIGRATIONS[v];
    if (!step) {
      throw new EdgeError(
        "storage_failed",
        { op: "upgrade", reason: "no_migration", version: v },
        `No IndexedDB migration to version ${v}. This build of Edge cannot upgrade the stored data; reload the page so every tab runs the same build, then try again.`,
      );
    }
    step(db, tx);
  }
}

/** Every store the current version must have (checked after opening). */
export const EDGE_STORES: readonly EdgeStoreName[] = [
  "receipts",
  "meta",
  "pending",
  "imprints",
  "facts",
  "vfs",
  "sessions",
];
