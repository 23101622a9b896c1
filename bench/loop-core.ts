// Host-side overhead of one tool call in the loop, without the runner and the model: parse the
// model's text, check name + arguments (ajv, cached validator), hash arguments and result, build
// and chain the receipt, write it to the store. Shared by the Node bench and the Chromium page.
import { RECEIPT_VERSION, type ReceiptBody } from "../src/receipts/types.ts";
import type { ReceiptStore } from "../src/receipts/store.ts";
import { parseModelOutput } from "../src/chat/parse.ts";
import { validateAgainst } from "../src/contract/ajv.ts";
import { sha256Json, sha256Text } from "../src/contract/hash.ts";
import type { JsonObject } from "../src/contract/types.ts";

const PARAMETERS: JsonObject = {
  type: "object",
  properties: {
    amount: { type: "number" },
    tier: { type: "string", enum: ["basic", "pro"], default: "basic" },
    note: { type: ["string", "null"], default: null },
  },
  required: ["amount"],
  additionalProperties: false,
};
const RESULT = { amount: 120.5, tier: "pro", fee: 2.59, total: 123.09 };

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
}

export interface OverheadSample {
  /** Parse + ajv + hashes + receipt body, in memory. */
  compute: number;
  /** Chaining and persisting the receipt in the store. */
  store: number;
}

/** One call's host work, split into in-memory work and the receipt write. */
async function hostOverheadOnce(store: ReceiptStore, i: number): Promise<OverheadSample> {
  const text = JSON.stringify({ tool_name: "fee_quote", arguments: { amount: 100 + i, tier: "pro" } });
  const t = performance.now();
  const parsed = parseModelOutput(text);
  if (parsed.kind !== "call") throw new Error("bench: not a call");
  if (!validateAgainst(PARAMETERS, parsed.args).valid) throw new Error("bench: invalid args");
  const args_sha256 = await sha256Json(parsed.args);
  const result_sha256 = await sha256Json(RESULT);
  const body: ReceiptBody = {
    receipt_version: RECEIPT_VERSION,
    id: `bench_${i}_${Math.random().toString(36).slice(2)}`,
    kind: "chat",
    created_at: new Date().toISOString(),
    model_id: "scripted-demo",
    engine: "scripted",
    prompt_sha256: await sha256Text(`prompt ${i}`),
    answer_sha256: null,
    tools_file_sha256: null,
    active_set_sha256: null,
    schema_generator_version: null,
    tool_instruction_mode: "contract",
    tool_instruction_sha256: null,
    imprint_id: null,
    outcome: "answered",
    code: null,
    network_used_by_edge: false,
    calls: [
      {
        call_id: `c${i}`,
        tool_name: "fee_quote",
        execution_level: "read",
        args_sha256,
        result_sha256,
        tool_schema_sha256: null,
        tools_file_sha256_verified: true,
        runner_secret_verified: true,
        network_used_by_edge: false,
        status: "ok",
        duration_ms: 0,
      },
    ],
  };
  const t2 = performance.now();
  await store.append(body);
  return { compute: t2 - t, store: performance.now() - t2 };
}

export interface OverheadStats {
  p50: number;
  p95: number;
  compute_p50: number;
  store_p50: number;
}

/** p50/p95 of `n` calls after a short warm-up. */
export async function measureHostOverhead(store: ReceiptStore, n = 1000): Promise<OverheadStats> {
  for (let i = 0; i < 20; i++) await hostOverheadOnce(store, -1 - i);
  const samples: OverheadSample[] = [];
  for (let i = 0; i < n; i++) samples.push(await hostOverheadOnce(store, i));
  const total = samples.map((s) => s.compute + s.store);
  return {
    p50: percentile(total, 50),
    p95: percentile(total, 95),
    compute_p50: percentile(
      samples.map((s) => s.compute),
      50,
    ),
    store_p50: percentile(
      samples.map((s) => s.store),
      50,
    ),
  };
}
