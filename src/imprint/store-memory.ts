// An in-memory imprint store (tests, and pages that must not persist). Same contract as the
// IndexedDB and file stores: records are verified on the way in and on the way out.
import { EdgeError } from "../contract/errors.ts";
import { listingOf, verifyImprint } from "./record.ts";
import type { ImprintStore } from "./store.ts";

export function createMemoryImprintStore(): ImprintStore & { readonly raw: Map<string, unknown> } {
  const raw = new Map<string, unknown>();
  return {
    raw,
    async put(imprint) {
      const verified = await verifyImprint(imprint);
      if (raw.has(verified.id))
        throw new EdgeError(
          "storage_failed",
          { op: "store imprint", id: verified.id, reason: "exists" },
          `Saving to local storage failed: an imprint ${verified.id} is already stored and is never replaced. Delete the stored imprint first to store it again.`,
        );
      raw.set(verified.id, structuredClone(verified));
    },
    async get(id) {
      if (!raw.has(id))
        throw EdgeError.withTableFix("imprint_not_found", { id }, `No imprint with id "${id}" is stored.`);
      const imprint = await verifyImprint(structuredClone(raw.get(id)));
      if (imprint.id !== id) throw new EdgeError("imprint_corrupted", { id, reason: "key does not match the record" });
      return imprint;
    },
    async list() {
      return Promise.all([...raw.entries()].map(([id, v]) => listingOf(v, id)));
    },
    async delete(id) {
      if (!raw.delete(id))
        throw EdgeError.withTableFix("imprint_not_found", { id }, `No imprint with id "${id}" is stored.`);
    },
  };
}
