// Page-lifetime pending actions, for when the browser refuses IndexedDB to the widget (see
// src/receipts/store-memory.ts): they still bind, expire and are claimed at most once; they just
// do not outlive the page. JavaScript runs one task at a time, so update() — a synchronous
// read-modify-write — is atomic within the page, and nothing else can reach these.
import { EdgeError } from "../contract/errors.ts";
import type { PendingStore } from "./store.ts";
import type { PendingAction } from "./types.ts";

const clone = <T>(value: T): T => structuredClone(value);

export function createMemoryPendingStore(): PendingStore {
  const records = new Map<string, PendingAction>();
  return {
    async create(record) {
      if (records.has(record.id))
        throw new EdgeError(
          "storage_failed",
          { id: record.id },
          `A pending action with id ${record.id} already exists. Use a new id for the pending action.`,
        );
      records.set(record.id, clone(record));
    },
    async get(id) {
      const r = records.get(id);
      return r ? clone(r) : undefined;
    },
    async list() {
      return [...records.values()]
        .map(clone)
        .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
    },
    async update(id, fn) {
      const current = records.get(id);
      if (!current) return { current: undefined, written: null };
      const next = fn(clone(current));
      if (!next) return { current: clone(current), written: null };
      if (next.id !== id) throw new EdgeError("pending_action_id_changed", {}, "A pending action's id cannot change.");
      records.set(id, clone(next));
      return { current: clone(next), written: clone(next) };
    },
    async delete(id) {
      records.delete(id);
    },
  };
}
