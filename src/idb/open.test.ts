// IndexedDB itself is tested in real Chromium (e2e/store.spec.ts). Here: what Node can check.
import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import { EDGE_STORES, MIGRATIONS, EDGE_DB_VERSION } from "./schema.ts";
import { openEdgeDb } from "./open.ts";

describe("openEdgeDb without IndexedDB", () => {
  it("fails with storage_failed instead of throwing a raw ReferenceError or hanging", async () => {
    expect(typeof (globalThis as { indexedDB?: unknown }).indexedDB).toBe("undefined");
    const err = await openEdgeDb().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EdgeError);
    expect((err as EdgeError).code).toBe("storage_failed");
    expect((err as EdgeError).details).toMatchObject({ op: "open", name: "ReferenceError" });
  });
});

describe("the schema's migrations", () => {
  it("has one migration per version up to the current one, and v1 creates every store with its keys", () => {
    for (let v = 1; v <= EDGE_DB_VERSION; v++) expect(typeof MIGRATIONS[v]).toBe("function");
    const created: Record<string, { keyPath: unknown; indexes: [string, unknown, unknown][] }> = {};
    const fakeDb = {
      createObjectStore(name: string, opts?: { keyPath?: unknown }) {
        const s = { keyPath: opts?.keyPath ?? null, indexes: [] as [string, unknown, unknown][] };
        created[name] = s;
        return { createIndex: (n: string, kp: unknown, o?: unknown) => void s.indexes.push([n, kp, o ?? {}]) };
      },
    };
    MIGRATIONS[1]!(fakeDb as never, {} as never);
    expect(Object.keys(created).sort()).toEqual([...EDGE_STORES].sort());
    expect(created.receipts).toEqual({ keyPath: "id", indexes: [["by_seq", "seq", { unique: true }]] });
    expect(created.meta!.keyPath).toBeNull();
    expect(created.pending).toEqual({ keyPath: "id", indexes: [["by_status", "status", {}]] });
    expect(created.facts).toEqual({ keyPath: ["store", "fact_id"], indexes: [["by_store", "store", {}]] });
    expect(created.vfs!.keyPath).toBe("path");
  });
});
