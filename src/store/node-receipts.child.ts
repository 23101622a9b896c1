// Test helper process for node-receipts.test.ts: append N receipts to the store in DIR, as a
// separate OS process, so the test can race two real processes on one chain.
// Usage: node --import tsx node-receipts.child.ts DIR PREFIX N
import { createNodeReceiptStore } from "./node-receipts.ts";
import { sampleReceiptBody } from "./receipt-fixture.ts";

const [dir, prefix, n] = process.argv.slice(2);
const store = createNodeReceiptStore({ dir: dir! });
for (let i = 0; i < Number(n); i++) await store.append(sampleReceiptBody(`${prefix}-${i}`));
process.stdout.write("done\n");
