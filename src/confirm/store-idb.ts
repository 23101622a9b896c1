// The pending action store over the app's one IndexedDB database (store `pending`, schema v1).
//
// update() is the claim: ONE readwrite transaction reads the record and writes the next state.
// Readwrite transactions on the same store never overlap, also across tabs, so two tabs cannot
// both move pending → claimed. Around it, when the Web Locks API exists, an exclusive lock per
// action id serializes the tabs' attempts explicitly (a second guard, and it keeps a tab from
// even starting its transaction while another tab is mid-claim).
import { EdgeError } from "../contract/errors.ts";
import type { EdgeDb } from "../idb/schema.ts";
import { toStorageError } from "../platform/storage-error.ts";
import type { PendingAction } from "./types.ts";
import type { PendingStore } from "./store.ts";

interface LockManagerLike {
  request<T>(name: string, options: { mode: "exclusive" }, callback: () => Promise<T>): Promise<T>;
}

function locks(): LockManagerLike | undefined {
  const nav = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator;
  return nav?.locks && typeof nav.locks.request === "function" ? nav.locks : undefined;
}

/** Run fn under the Web Lock `name` when the API exists, else directly. */
function withWebLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const lm = locks();
  return lm ? lm.request(name, { mode: "exclusive" }, fn) : fn();
}

const PENDING_LOCK_PREFIX = "edge-web:pending:";

export function createIdbPendingStore(db: EdgeDb): PendingStore {
  return {
    async create(record) {
      try {
        const tx = db.transaction("pending", "readwrite");
        await Promise.all([tx.store.add(record), tx.done]);
      } catch (err) {
        throw toStorageError(err, "create pending action");
      }
    },
    async get(id) {
      try {
        return await db.get("pending", id);
      } catch (err) {
        throw toStorageError(err, "read pending action");
      }
    },
    async list() {
      try {
        const all: PendingAction[] = await db.getAll("pending");
        return all.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
      } catch (err) {
        throw toStorageError(err, "list pending actions");
      }
    },
    update(id, fn) {
      return withWebLock(`${PENDING_LOCK_PREFIX}${id}`, async () => {
        try {
          const tx = db.transaction("pending", "readwrite");
          const step = (async () => {
            const current = await tx.store.get(id);
            if (!current) return { current: undefined, written: null };
            const next = fn(current);
            if (!next) return { current, written: null };
            if (next.id !== id)
              throw new EdgeError("pending_action_id_changed", {}, "A pending action's id cannot change.");
            await tx.store.put(next);
            return { current: next, written: next };
          })();
          step.catch(() => tx.abort());
          const [result] = await Promise.all([step, tx.done]);
          return result;
        } catch (err) {
          throw toStorageError(err, "update pending action");
        }
      });
    },
    async delete(id) {
      try {
        await db.delete("pending", id);
      } catch (err) {
        throw toStorageError(err, "delete pending action");
      }
    },
  };
}
