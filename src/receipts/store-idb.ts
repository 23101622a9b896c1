// The receipt store over IndexedDB (browser). Appends are one chain across tabs:
//
// WebCrypto hashing is asynchronous and an IndexedDB transaction commits as soon as it has no
// pending request, so the hash cannot be computed inside the write transaction. append therefore
// reads the head, chains the body, and then in ONE readwrite transaction reads the head again and
// writes only if it is still the receipt it chained after (compare-and-swap). Readwrite
// transactions on the same store never overlap (also across tabs), so the check and the write are
// atomic; a lost race simply re-chains on the new head. The unique by_seq index is the last guard.
import type { Receipt, ReceiptBody } from "./types.ts";
import type { ReceiptStore } from "./store.ts";
import { chainReceipt } from "./chain.ts";
import { EdgeError } from "../contract/errors.ts";
import type { EdgeDb } from "../idb/schema.ts";
import { toStorageError } from "../platform/storage-error.ts";

export interface IdbReceiptStoreOptions {
  /** How often a lost race is retried before append fails with storage_failed. Default 50. */
  maxAttempts?: number;
}

export function createIdbReceiptStore(db: EdgeDb, options: IdbReceiptStoreOptions = {}): ReceiptStore {
  const maxAttempts = options.maxAttempts ?? 50;

  async function head(): Promise<Receipt | null> {
    const cursor = await db.transaction("receipts").store.index("by_seq").openCursor(null, "prev");
    return cursor?.value ?? null;
  }

  async function tryAppend(body: ReceiptBody): Promise<Receipt | null> {
    const prev = await head();
    const receipt = await chainReceipt(body, prev);
    const tx = db.transaction("receipts", "readwrite");
    const write = (async (): Promise<Receipt | null> => {
      const current = await tx.store.index("by_seq").openCursor(null, "prev");
      if ((current?.value.receipt_sha256 ?? null) !== (prev?.receipt_sha256 ?? null)) return null; // lost the race
      if ((await tx.store.getKey(receipt.id)) !== undefined) {
        throw EdgeError.withTableFix(
          "receipt_id_conflict",
          { id: receipt.id },
          `A receipt with id ${receipt.id} is already stored; receipt ids must be unique.`,
        );
      }
      await tx.store.add(receipt);
      return receipt;
    })();
    // Await both, so an abort (quota at commit) surfaces as the transaction's error, not an unhandled rejection.
    const [written] = await Promise.all([write, tx.done]);
    return written;
  }

  return {
    async append(body) {
      try {
        for (let attempt = 1; attempt <= maxAttempts; attempt++) {
          const written = await tryAppend(body);
          if (written) return written;
          // Another tab appended in between: back off a little, with jitter, and re-chain.
          await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
        }
      } catch (err) {
        throw toStorageError(err, "append receipt");
      }
      throw EdgeError.withTableFix(
        "storage_failed",
        { op: "append receipt", reason: "contention", attempts: maxAttempts },
        `Saving to local storage failed: too many other tabs were appending receipts at once; nothing was written.`,
      );
    },
    async get(id) {
      try {
        return await db.get("receipts", id);
      } catch (err) {
        throw toStorageError(err, "read receipt");
      }
    },
    async list() {
      try {
        return await db.getAllFromIndex("receipts", "by_seq");
      } catch (err) {
        throw toStorageError(err, "list receipts");
      }
    },
  };
}
