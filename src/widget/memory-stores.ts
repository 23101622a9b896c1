// Page-lifetime stores for when the browser refuses IndexedDB to the widget — typically a
// cross-site iframe with third-party storage blocked ("The user denied permission to access the
// database"). Receipts are still chained and emitted to the host page (edge-receipt), pending
// actions still bind, expire and are claimed at most once; they just do not outlive the page.
// The widget says so in its header. JavaScript runs one task at a time, so update() — a
// synchronous read-modify-write — is atomic within the page, and nothing else can reach these.
import { chainReceipt } from "../chat/receipt-chain.ts";
import type { Receipt, ReceiptBody, ReceiptStore } from "../chat/receipt-types.ts";
import { EdgeError } from "../contract/errors.ts";
import type { PendingAction, PendingStore } from "../confirm/types.ts";

const clone = <T>(value: T): T => structuredClone(value);

export function createMemoryReceiptStore(): ReceiptStore {
  const receipts: Receipt[] = [];
  let appending: Promise<unknown> = Promise.resolve();
  return {
    append(body: ReceiptBody): Promise<Receipt> {
      // Serialized: each receipt chains onto the one appended before it.
      const next = appending.then(async () => {
        if (receipts.some((r) => r.id === body.id)) {
          throw new EdgeError("invalid_argument", { id: body.id }, `A receipt with id ${body.id} is already stored; receipt ids must be unique.`);
        }
        const receipt = await chainReceipt(body, receipts.at(-1) ?? null);
        receipts.push(receipt);
        return clone(receipt);
      });
      appending = next.catch(() => undefined);
      return next;
    },
    async get(id) {
      const r = receipts.find((x) => x.id === id);
      return r ? clone(r) : undefined;
    },
    async list() {
      return receipts.map(clone);
    },
  };
}

export function createMemoryPendingStore(): PendingStore {
  const records = new Map<string, PendingAction>();
  return {
    async create(record) {
      if (records.has(record.id)) throw new EdgeError("storage_failed", { id: record.id }, `A pending action with id ${record.id} already exists.`);
      records.set(record.id, clone(record));
    },
    async get(id) {
      const r = records.get(id);
      return r ? clone(r) : undefined;
    },
    async list() {
      return [...records.values()].map(clone).sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
    },
    async update(id, fn) {
      const current = records.get(id);
      if (!current) return { current: undefined, written: null };
      const next = fn(clone(current));
      if (!next) return { current: clone(current), written: null };
      if (next.id !== id) throw new EdgeError("invalid_argument", {}, "A pending action's id cannot change.");
      records.set(id, clone(next));
      return { current: clone(next), written: clone(next) };
    },
    async delete(id) {
      records.delete(id);
    },
  };
}
