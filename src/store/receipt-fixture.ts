// Test fixture (unit tests, the CLI tests and the e2e store page): a realistic receipt body
// the way the tool loop writes one, hash-first, with one tool call.
import { RECEIPT_VERSION, type ReceiptBody } from "../chat/receipt-types.ts";

const H = (c: string): `sha256:${string}` => `sha256:${c.repeat(64).slice(0, 64)}`;

export function sampleReceiptBody(id: string, overrides: Partial<ReceiptBody> = {}): ReceiptBody {
  return {
    receipt_version: RECEIPT_VERSION,
    id,
    kind: "chat",
    created_at: "2025-01-02T03:04:05.000Z",
    model_id: "Qwen2.5-0.5B-Instruct-q4f16_1-MLC",
    engine: "scripted",
    prompt_sha256: H("a"),
    answer_sha256: H("b"),
    tools_file_sha256: H("c"),
    active_set_sha256: H("d"),
    schema_generator_version: "1",
    tool_instruction_mode: "contract",
    tool_instruction_sha256: H("e"),
    imprint_id: null,
    outcome: "answered",
    code: null,
    network_used_by_edge: false,
    calls: [
      {
        call_id: `${id}-c1`,
        tool_name: "fee_quote",
        execution_level: "read",
        args_sha256: H("1"),
        result_sha256: H("2"),
        tool_schema_sha256: H("3"),
        tools_file_sha256_verified: true,
        runner_secret_verified: true,
        network_used_by_edge: false,
        status: "ok",
        duration_ms: 12,
      },
    ],
    ...overrides,
  };
}
