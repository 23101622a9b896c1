// The imprint store over the app's one IndexedDB database (the `imprints` object store of schema
// v1, keyed by id). Reads re-verify the seal, so a record changed in storage is refused.
import { EdgeError } from "../contract/errors.ts";
import type { EdgeDb, ImprintRecord } from "../idb/schema.ts";
import { toStorageError } from "../platform/storage-error.ts";
import { listingOf, verifyImprint, type ImprintListing } from "./record.ts";
import type { ImprintStore } from "./store.ts";

export function createIdbImprintStore(db: EdgeDb): ImprintStore {
  return {
    async put(imprint) {
      const verified = await verifyImprint(imprint);
      try {
        // add(), not put(): an id is never replaced (ConstraintError → storage_failed).
        await db.add("imprints", verified);
      } catch (err) {
        throw toStorageError(err, "store imprint", { id: verified.id });
      }
    },
    async get(id) {
      let value: ImprintRecord | undefined;
      try {
        value = await db.get("imprints", id);
      } catch (err) {
        throw toStorageError(err, "read imprint", { id });
      }
      if (value === undefined)
        throw EdgeError.withTableFix("imprint_not_found", { id }, `No imprint with id "${id}" is stored.`);
      const imprint = await verifyImprint(value);
      if (imprint.id !== id) throw new EdgeError("imprint_corrupted", { id, reason: "key does not match the record" });
      return imprint;
    },
    async list(): Promise<ImprintListing[]> {
      let all: ImprintRecord[];
      try {
        all = await db.getAll("imprints");
      } catch (err) {
        throw toStorageError(err, "list imprints");
      }
      const rows = await Promise.all(all.map((v) => listingOf(v, v.id)));
      return rows.sort((a, b) =>
        (a.created_at ?? "") < (b.created_at ?? "")
          ? -1
          : (a.created_at ?? "") > (b.created_at ?? "")
            ? 1
            : a.id < b.id
              ? -1
              : 1,
      );
    },
    async delete(id) {
      try {
        const tx = db.transaction("imprints", "readwrite");
        const found = (await tx.store.getKey(id)) !== undefined;
        if (found) await tx.store.delete(id);
        await tx.done;
        if (!found) throw EdgeError.withTableFix("imprint_not_found", { id }, `No imprint with id "${id}" is stored.`);
      } catch (err) {
        throw toStorageError(err, "delete imprint", { id });
      }
    },
  };
}
