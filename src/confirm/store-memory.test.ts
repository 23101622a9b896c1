// The widget's page-lifetime pending actions (used when the browser refuses IndexedDB, e.g. in a
// cross-site iframe): they still follow the at-most-once claim.
import { describe, expect, it } from "vitest";
import { createMemoryPendingStore } from "./store-memory.ts";
import type { PendingAction } from "./types.ts";

describe("memory pending store", () => {
  it("claims at most once", async () => {
    const store = createMemoryPendingStore();
    const record = {
      id: "pa_" + "1".repeat(32),
      status: "pending",
      created_at: new Date().toISOString(),
    } as PendingAction;
    await store.create(record);
    await expect(store.create(record)).rejects.toMatchObject({ code: "storage_failed" });
    const claim = () =>
      store.update(record.id, (cur) => (cur.status === "pending" ? { ...cur, status: "claimed" } : null));
    const [a, b] = await Promise.all([claim(), claim()]);
    expect([a.written, b.written].filter(Boolean)).toHaveLength(1);
    expect((await store.get(record.id))!.status).toBe("claimed");
    await store.delete(record.id);
    expect(await store.list()).toEqual([]);
  });
});
