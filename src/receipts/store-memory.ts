// Page-lifetime receipts, for when the browser refuses IndexedDB to the widget — typically a
// cross-site iframe with third-party storage blocked ("The user denied permission to access the
// database"). Receipts are still chained and emitted to the host page (edge-receipt); they just do
// not outlive the page. The widget says so in its header. JavaScript runs one task at a time and
// appends are serialized, so each receipt chains onto the one before it.
import { EdgeError } from "../contract/errors.ts";
import { chainReceipt } from "./chain.ts";
import type { ReceiptStore } from "./store.ts";
import type { Receipt, ReceiptBody } from "./types.ts";

const clone = <T>(value: T): T => structuredClone(value);

export function createMemoryReceiptStore(): ReceiptStore {
  const receipts: Receipt[] = [];
  let appending: Promise<unknown> = Promise.resolve();
  return {
    append(body: ReceiptBody): Promise<Receipt> {
      // Serialized: each receipt chains onto the one appended before it.
      const next = appending.then(async () => {
        if (receipts.some((r) => r.id === body.id)) {
          throw EdgeError.withTableFix(
            "receipt_id_conflict",
            { id: body.id },
            `A receipt with id ${body.id} is already stored; receipt ids must be unique.`,
          );
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
