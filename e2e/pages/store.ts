// Test page for e2e/store.spec.ts: the real IndexedDB store (openEdgeDb + createIdbReceiptStore)
// driven from Playwright through window.edgeStoreTest.
import { verifyReceipts, type VerifyResult } from "../../src/receipts/chain.ts";
import type { Receipt } from "../../src/receipts/types.ts";
import { EdgeError } from "../../src/contract/errors.ts";
import { openEdgeDb, type EdgeDbClosed } from "../../src/idb/open.ts";
import { createIdbReceiptStore } from "../../src/receipts/store-idb.ts";
import type { EdgeDb } from "../../src/idb/schema.ts";
import { sampleReceiptBody } from "../../test/fixtures/receipt.ts";

type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; code: string; details: Record<string, unknown>; message: string };

async function outcome<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    if (err instanceof EdgeError) return { ok: false, code: err.code, details: err.details, message: err.message };
    return { ok: false, code: "raw_error", details: { name: (err as Error).name }, message: String(err) };
  }
}

let db: EdgeDb | undefined;
const closed: EdgeDbClosed[] = [];

const api = {
  closed,
  open: (name?: string) =>
    outcome(async () => {
      db = await openEdgeDb({ name, onClose: (e) => closed.push(e) });
      return db.version;
    }),
  /** Append n receipts one after another (ids prefix-0 …); returns their seqs. */
  append: (n: number, prefix: string) =>
    outcome(async () => {
      const store = createIdbReceiptStore(db!);
      const seqs: number[] = [];
      for (let i = 0; i < n; i++) seqs.push((await store.append(sampleReceiptBody(`${prefix}-${i}`))).seq);
      return seqs;
    }),
  list: (): Promise<Outcome<Receipt[]>> => outcome(() => createIdbReceiptStore(db!).list()),
  get: (id: string) => outcome(() => createIdbReceiptStore(db!).get(id)),
  verify: (): Promise<Outcome<VerifyResult>> =>
    outcome(async () => verifyReceipts(await createIdbReceiptStore(db!).list())),
  stores: () => [...db!.objectStoreNames].sort(),
};

declare global {
  interface Window {
    edgeStoreTest: typeof api;
  }
}
window.edgeStoreTest = api;
document.getElementById("status")!.textContent = "ready";
