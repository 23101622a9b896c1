// What a receipt append costs as the store grows (a command must answer at once, also
// after months of use):   node --import tsx bench/receipts.bench.ts [--json]
// The Node receipt store (src/receipts/store-node.ts) with 10 receipts stored, the baseline, and
// with 20,000, measured in the same run: p50 of interleaved appends, each a real, fsync'd append
// under the lock. The 20,000 are written once by the store itself for the first 10 and then as
// files of the same shape (seq-named, each chained to the one before), so only the store's own
// lookup of the head differs. Goal: the large store within 1.5× of the small one.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chainReceipt } from "../src/receipts/chain.ts";
import { createNodeReceiptStore, receiptFileName } from "../src/receipts/store-node.ts";
import type { Receipt } from "../src/receipts/types.ts";
import { sampleReceiptBody } from "../test/fixtures/receipt.ts";
import { percentile } from "./loop-core.ts";

const JSON_ONLY = process.argv.includes("--json");
const LARGE = 20_000;
const ROUNDS = 41;

async function storeWith(count: number): Promise<{ append: (i: number) => Promise<number>; dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), `edge-receipts-bench-${count}-`));
  const store = createNodeReceiptStore({ dir });
  let head: Receipt | null = null;
  for (let i = 1; i <= Math.min(count, 10); i++) head = await store.append(sampleReceiptBody(`seed-${i}`));
  for (let i = 11; i <= count; i++) {
    head = await chainReceipt(sampleReceiptBody(`seed-${i}`), head);
    writeFileSync(path.join(dir, "receipts", receiptFileName(head.seq)), `${JSON.stringify(head, null, 2)}\n`, {
      mode: 0o600,
    });
  }
  rmSync(path.join(dir, "receipts", ".head"), { force: true }); // as after an upgrade: the first append lists
  return {
    dir,
    append: async (i) => {
      const t = performance.now();
      await store.append(sampleReceiptBody(`bench-${i}`));
      return performance.now() - t;
    },
  };
}

const small = await storeWith(10);
const large = await storeWith(LARGE);
const first = await large.append(-1);
await small.append(-1);
const s: number[] = [];
const l: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  s.push(await small.append(i));
  l.push(await large.append(i));
}
const round1 = (x: number): number => Math.round(x * 10) / 10;
const ratio = percentile(l, 50) / percentile(s, 50);
const report = {
  bench: "receipts",
  stored_small: 10,
  stored_large: LARGE,
  append_small_p50_ms: round1(percentile(s, 50)),
  append_large_p50_ms: round1(percentile(l, 50)),
  append_large_first_ms: round1(first),
  ratio_large_vs_small: Math.round(ratio * 100) / 100,
  goals: { large_within_1_5x_small: ratio <= 1.5 },
  method: `p50 of ${ROUNDS} interleaved appends through createNodeReceiptStore (lock, head, chain, fsync'd write); the large store's first append (no .head hint yet: it lists the folder) reported apart`,
};
for (const d of [small.dir, large.dir]) rmSync(d, { recursive: true, force: true });
console.log(JSON_ONLY ? JSON.stringify(report) : JSON.stringify(report, null, 2));
