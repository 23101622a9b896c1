// The widget's page-lifetime receipts (used when the browser refuses IndexedDB, e.g. in a
// cross-site iframe): they still form a verifiable chain.
import { describe, expect, it } from "vitest";
import { verifyReceipts } from "./chain.ts";
import { RECEIPT_VERSION, type ReceiptBody } from "./types.ts";
import { createMemoryReceiptStore } from "./store-memory.ts";

function body(id: string): ReceiptBody {
  return {
    receipt_version: RECEIPT_VERSION,
    id,
    kind: "chat",
    created_at: new Date().toISOString(),
    model_id: "scripted-demo",
    engine: "scripted",
    prompt_sha256: `sha256:${"0".repeat(64)}`,
    answer_sha256: null,
    tools_file_sha256: null,
    active_set_sha256: null,
    schema_generator_version: null,
    tool_instruction_mode: "none",
    tool_instruction_sha256: null,
    imprint_id: null,
    outcome: "answered",
    code: null,
    network_used_by_edge: false,
    calls: [],
  } as ReceiptBody;
}

describe("memory receipt store", () => {
  it("chains concurrent appends in order and the chain verifies", async () => {
    const store = createMemoryReceiptStore();
    const out = await Promise.all(["run_a", "run_b", "run_c"].map((id) => store.append(body(id))));
    expect(out.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(out[1]!.prev_receipt_sha256).toBe(out[0]!.receipt_sha256);
    const all = await store.list();
    await expect(verifyReceipts(all)).resolves.toMatchObject({ ok: true });
    await expect(store.append(body("run_a"))).rejects.toMatchObject({ code: "receipt_id_conflict" });
    // Copies out: editing a returned receipt does not change the stored one.
    all[0]!.outcome = "failed_closed";
    expect((await store.get("run_a"))!.outcome).toBe("answered");
  });
});
