import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Json } from "../contract/hash.ts";
import { EdgeError } from "../contract/errors.ts";
import { sampleReceiptBody } from "../../test/fixtures/receipt.ts";
import { chainReceipt, parseJsonLines, toJsonLines, verifyReceipts } from "./chain.ts";
import type { CallReceipt, Receipt } from "./types.ts";

async function chainOf(n: number): Promise<Receipt[]> {
  const out: Receipt[] = [];
  for (let i = 1; i <= n; i++) out.push(await chainReceipt(sampleReceiptBody(`run-${i}`), out.at(-1) ?? null));
  return out;
}

describe("chainReceipt", () => {
  it("numbers from 1, links to the previous hash, and hashes JCS of everything but receipt_sha256", async () => {
    const [a, b] = await chainOf(2);
    expect(a!.seq).toBe(1);
    expect(a!.prev_receipt_sha256).toBeNull();
    expect(b!.seq).toBe(2);
    expect(b!.prev_receipt_sha256).toBe(a!.receipt_sha256);
    const { receipt_sha256, ...rest } = b!;
    expect(receipt_sha256).toBe(await sha256Json(rest));
    expect(a!.receipt_sha256).not.toBe(b!.receipt_sha256);
  });

  it("ignores chain fields smuggled in the body and drops undefined fields (stored = exported = hashed)", async () => {
    const body = {
      ...sampleReceiptBody("x"),
      seq: 99,
      prev_receipt_sha256: "sha256:" + "f".repeat(64),
      text: undefined,
    };
    const r = await chainReceipt(body as never, null);
    expect(r.seq).toBe(1);
    expect(r.prev_receipt_sha256).toBeNull();
    expect("text" in r).toBe(false);
    expect(await verifyReceipts(toJsonLines([r]))).toEqual({ ok: true, count: 1 });
  });

  it("a chain of receipts written before finish_reason / engine_stats / context existed still verifies, and new ones extend it", async () => {
    const old = await chainOf(2);
    const newer = sampleReceiptBody("run-3", {
      finish_reason: "length",
      engine_stats: {
        generations: 2,
        time_to_first_token_ms: 420,
        decode_tokens_per_s: 18.3,
        prompt_tokens_evaluated: 340,
        completion_tokens: 30,
      },
      context: { window: 4096, max_tokens: 1024, prompt_tokens: 2900, turns_dropped: 3, counted_by: "engine" },
    });
    const chain = [...old, await chainReceipt(newer, old.at(-1)!)];
    expect("engine_stats" in old[0]!).toBe(false);
    expect(await verifyReceipts(toJsonLines(chain))).toEqual({ ok: true, count: 3 });
    const tampered = { ...chain[2]!, engine_stats: { ...chain[2]!.engine_stats!, decode_tokens_per_s: 99 } };
    expect((await verifyReceipts([...old, tampered])).firstBroken?.reason).toBe("hash_mismatch");
  });

  it("refuses a body that is not JSON (NaN) instead of hashing something the export cannot carry", async () => {
    await expect(
      chainReceipt(
        sampleReceiptBody("x", { calls: [{ ...sampleReceiptBody("x").calls[0]!, duration_ms: NaN }] }),
        null,
      ),
    ).rejects.toBeInstanceOf(EdgeError);
  });
});

describe("verifyReceipts", () => {
  it("a chain of 5 verifies, as objects and as JSON Lines", async () => {
    const chain = await chainOf(5);
    expect(await verifyReceipts(chain)).toEqual({ ok: true, count: 5 });
    const text = toJsonLines(chain);
    expect(text.split("\n")).toHaveLength(6); // five lines and the final newline
    expect(await verifyReceipts(text)).toEqual({ ok: true, count: 5 });
    expect(parseJsonLines(text)).toEqual(chain);
  });

  it("a field edited in #3 breaks the chain at #3 (hash mismatch)", async () => {
    const chain = await chainOf(5);
    chain[2] = { ...chain[2]!, outcome: "return_direct" };
    const res = await verifyReceipts(chain);
    expect(res.ok).toBe(false);
    expect(res.firstBroken).toMatchObject({ index: 2, seq: 3, id: "run-3", reason: "hash_mismatch" });
  });

  it("an edited #3 whose hash was recomputed breaks the chain at #4 (prev link)", async () => {
    const chain = await chainOf(5);
    const { receipt_sha256: _h, ...rest } = { ...chain[2]!, outcome: "return_direct" as const };
    chain[2] = { ...rest, receipt_sha256: await sha256Json(rest) };
    const res = await verifyReceipts(chain);
    expect(res.firstBroken).toMatchObject({ index: 3, seq: 4, id: "run-4", reason: "prev_mismatch" });
  });

  it("deleting #2 breaks the chain at the old #3", async () => {
    const chain = await chainOf(5);
    chain.splice(1, 1);
    const res = await verifyReceipts(toJsonLines(chain));
    expect(res).toMatchObject({
      ok: false,
      count: 2,
      firstBroken: { index: 1, line: 2, seq: 3, id: "run-3", reason: "seq_mismatch" },
    });
  });

  it("deleting the head shows too", async () => {
    const chain = await chainOf(3);
    const res = await verifyReceipts(chain.slice(1));
    expect(res.firstBroken).toMatchObject({ index: 0, seq: 2, id: "run-2", reason: "seq_mismatch" });
  });

  it("deleting #2 and renumbering (re-hashed) still breaks at the old #3 via the prev link", async () => {
    const chain = await chainOf(4);
    const { receipt_sha256: _h, ...rest } = { ...chain[2]!, seq: 2 };
    const forged = { ...rest, receipt_sha256: await sha256Json(rest) };
    const res = await verifyReceipts([chain[0]!, forged, chain[3]!]);
    expect(res.firstBroken).toMatchObject({ index: 1, seq: 2, id: "run-3", reason: "prev_mismatch" });
  });

  it("reordering #2 and #3 breaks at position 2", async () => {
    const chain = await chainOf(5);
    [chain[1], chain[2]] = [chain[2]!, chain[1]!];
    const res = await verifyReceipts(chain);
    expect(res.firstBroken).toMatchObject({ index: 1, seq: 3, id: "run-3", reason: "seq_mismatch" });
  });

  it("a garbage line is reported by line number", async () => {
    const lines = toJsonLines(await chainOf(4)).split("\n");
    lines.splice(2, 0, "{not json");
    const res = await verifyReceipts(lines.join("\n"));
    expect(res).toMatchObject({
      ok: false,
      count: 3,
      firstBroken: { index: 2, line: 3, seq: null, id: null, reason: "malformed_line" },
    });
    expect(() => parseJsonLines(lines.join("\n"))).toThrow(/Line 3/);
  });

  it("JSON that is not a receipt is invalid_receipt; a duplicate id is reported", async () => {
    expect((await verifyReceipts("[1,2]\n")).firstBroken).toMatchObject({ reason: "invalid_receipt", line: 1 });
    const [a] = await chainOf(1);
    const { seq: _s, ...noSeq } = a!;
    expect((await verifyReceipts([noSeq as Receipt])).firstBroken).toMatchObject({
      reason: "invalid_receipt",
      id: "run-1",
    });
    const b = await chainReceipt(sampleReceiptBody("run-1"), a!);
    expect((await verifyReceipts([a!, b])).firstBroken).toMatchObject({ index: 1, reason: "duplicate_id" });
  });

  it("blank lines and CRLF line ends are tolerated; an empty export verifies with count 0", async () => {
    const text = toJsonLines(await chainOf(2)).replace(/\n/g, "\r\n\r\n");
    expect(await verifyReceipts(text)).toEqual({ ok: true, count: 2 });
    expect(await verifyReceipts("")).toEqual({ ok: true, count: 0 });
    expect(toJsonLines([])).toBe("");
  });

  it("parseJsonLines checks every field against the Receipt type: a mistyped one is receipts_file_invalid, naming line and field", async () => {
    const chain = await chainOf(3);
    const lines = toJsonLines(chain).split("\n");
    const refused = (edit: (r: Record<string, unknown>) => void): EdgeError => {
      const copy = JSON.parse(lines[1]!) as Record<string, unknown>;
      edit(copy);
      const text = [lines[0], canonicalJson(copy), lines[2]].join("\n");
      try {
        parseJsonLines(text);
      } catch (err) {
        return err as EdgeError;
      }
      throw new Error("parseJsonLines returned receipts for a malformed line");
    };
    const cases: [(r: Record<string, unknown>) => void, RegExp][] = [
      [(r) => ((r.calls as Record<string, unknown>[])[0]!.status = "done"), /calls\[0\]\.status must be one of "ok"/],
      [(r) => delete r.seq, /seq is missing/],
      [(r) => (r.seq = 0), /seq must be a positive integer/],
      [(r) => (r.code = "no_such_code"), /code must be a code of the error table/],
      [(r) => (r.prompt_sha256 = "abc"), /prompt_sha256 must be a sha256: hash/],
      [(r) => (r.network_used_by_edge = true), /network_used_by_edge must be false/],
      [(r) => (r.engine_stats = { generations: "2" }), /engine_stats\.generations must be a number/],
      [
        (r) => (r.model_fingerprint = { modelId: "m", integrity: { tokenizer: { "a.json": 1 } } }),
        /model_fingerprint\.integrity\.tokenizer\.a\.json must be a string/,
      ],
      [
        (r) => (r.imprint_prefix = { prefix_cache: "engine", state_fallback: { code: "storage_failed" } }),
        /imprint_prefix\.state_fallback\.reason is missing/,
      ],
    ];
    for (const [edit, field] of cases) {
      const err = refused(edit);
      expect(err).toBeInstanceOf(EdgeError);
      expect(err.code).toBe("receipts_file_invalid");
      expect(err.details.line).toBe(2);
      expect(err.message).toMatch(/^Line 2 is not a receipt: /);
      expect(err.message).toMatch(field);
    }
  });

  it("parseJsonLines reads a receipt with every optional field, and one with fields a newer Edge may add", async () => {
    const full = sampleReceiptBody("full", {
      kind: "confirm",
      code: "runner_timeout",
      model_fingerprint: {
        modelId: "m",
        sha256: `sha256:${"a".repeat(64)}`,
        runtime: "wllama 3",
        integrity: { config: "sha384-x", tokenizer: { "tokenizer.json": "sha384-y" } },
        shaderF16: false,
      },
      tools_bundle_sha256: `sha256:${"b".repeat(64)}`,
      python_packages: [
        { name: "numpy", version: "2.0.0", file_name: "numpy-2.0.0.whl", sha256: `sha256:${"c".repeat(64)}` },
      ],
      tools_manifest_sha256: null,
      tool_surface: "facts_store",
      facts_store: "kb",
      refused_calls: [
        {
          tool_name: null,
          code: "invalid_tool_name",
          args_sha256: null,
          turn: 0,
          then: "repair_turn",
          arguments: { a: [1] },
        },
      ],
      call_checks: [{ turn: 0, tool_name: "", verdict: "cut_off" }],
      text: { prompt: "p" },
      extra: { pending_action_id: "pa-1" },
      surface: "mcp",
      client: { name: "c", version: "1" },
      confirmed_via: "elicitation",
      finish_reason: "stop",
      engine_stats: { generations: 1, completion_tokens: 3 },
      context: { window: 10, max_tokens: 2, turns_dropped: 0, counted_by: "estimate" },
      imprint_restore: "prefix",
      imprint_prefix: { prefix_cache: "none", state_fallback: { code: "storage_failed", reason: "r" } },
      contract_prefix: { prefix_cache: "state_saved", prefix_tokens: 5 },
    });
    const calls: CallReceipt[] = [
      {
        ...full.calls[0]!,
        execution_level: null,
        code: "runner_timeout",
        rows: 2,
        workspace_sha256: `sha256:${"d".repeat(64)}`,
        arguments: null,
      },
    ];
    const a = await chainReceipt({ ...full, calls }, null);
    const b = await chainReceipt({ ...sampleReceiptBody("newer"), future_field: { any: "thing" } } as never, a);
    expect(parseJsonLines(toJsonLines([a, b]))).toEqual([a, b]);
  });

  it("export lines are canonical JSON", async () => {
    const [a] = await chainOf(1);
    expect(toJsonLines([a!])).toBe(`${canonicalJson(a)}\n`);
  });
});
