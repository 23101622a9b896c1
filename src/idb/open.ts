// Opening the one IndexedDB database (browser only). Failures are never a hang and never a raw
// DOMException: an upgrade blocked by another tab, a newer schema than this code knows, missing
// IndexedDB (some private modes), quota — all reject with storage_failed, the DOMException name in
// details. When ANOTHER tab needs to upgrade, this connection closes itself at once and tells the
// caller (onClose), so the other tab is not blocked by us.
import { openDB } from "idb";
import { EdgeError } from "../contract/errors.ts";
import { EDGE_DB_NAME, EDGE_DB_VERSION, EDGE_STORES, migrate, type EdgeDb, type EdgeDbSchema } from "./schema.ts";
import { toStorageError } from "../platform/storage-error.ts";

export interface EdgeDbClosed {
  /** version_change: another tab opens a newer schema; terminated: the browser dropped the connection (storage cleared, disk error). */
  reason: "version_change" | "terminated";
  newVersion: number | null;
}

export interface OpenEdgeDbOptions {
  /** Database name; tests use their own. Default `edge-web`. */
  name?: string;
  /**
   * An upgrade is `blocked` while an older tab keeps its connection open. Tabs running this code
   * close theirs at once; if the other tab does not let go within this many ms, opening fails with
   * storage_failed (reason upgrade_blocked) instead of hanging. Default 2000.
   */
  blockedTimeoutMs?: number;
  /** This connection was closed (see EdgeDbClosed); every later operation fails with storage_failed. Tell the user to reload. */
  onClose?: (event: EdgeDbClosed) => void;
}

export function openEdgeDb(options: OpenEdgeDbOptions = {}): Promise<EdgeDb> {
  const name = options.name ?? EDGE_DB_NAME;
  const blockedTimeoutMs = options.blockedTimeoutMs ?? 2000;
  return new Promise<EdgeDb>((resolve, reject) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fail = (err: EdgeError): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      reject(err);
    };
    let opening: Promise<EdgeDb>;
    try {
      opening = openDB<EdgeDbSchema>(name, EDGE_DB_VERSION, {
        upgrade(db, oldVersion, newVersion, tx) {
          migrate(db, oldVersion, newVersion ?? EDGE_DB_VERSION, tx);
        },
        blocked(currentVersion, blockedVersion) {
          if (timer !== undefined) return;
          timer = setTimeout(() => {
            fail(
              new EdgeError(
                "storage_failed",
                { op: "open", reason: "upgrade_blocked", name: "blocked", currentVersion, blockedVersion },
                "Saving to local storage failed: another tab with an older version of Edge keeps the database open. Close or reload the other Edge tabs, then try again.",
              ),
            );
          }, blockedTimeoutMs);
        },
        blocking(_currentVersion, blockedVersion, event) {
          // Let the other tab's upgrade proceed; this tab must reload to use the new schema.
          (event.target as IDBDatabase).close();
          options.onClose?.({ reason: "version_change", newVersion: blockedVersion });
        },
        terminated() {
          options.onClose?.({ reason: "terminated", newVersion: null });
        },
      });
    } catch (err) {
      // e.g. no indexedDB global at all.
      fail(toStorageError(err, "open", { db: name }));
      return;
    }
    opening.then(
      (db) => {
        if (settled) {
          // We already told the caller it failed (blocked); do not leak a connection that would block others.
          db.close();
          return;
        }
        const missing = EDGE_STORES.filter((s) => !db.objectStoreNames.contains(s));
        if (missing.length) {
          db.close();
          fail(
            EdgeError.withTableFix(
              "storage_failed",
              { op: "open", db: name, reason: "schema_missing", missing },
              `Saving to local storage failed: the database ${name} lacks the stores ${missing.join(", ")}.`,
            ),
          );
          return;
        }
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        resolve(db);
      },
      (err: unknown) => fail(toStorageError(err, "open", { db: name })),
    );
  });
}
