// `edge learn validate|run`, `edge chat --with-imprint`, `edge imprints …`: exit codes and JSON,
// through the real Node runners and the file stores under a private $EDGE_DATA_DIR.
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLES, cli, writeTestFile } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-learn-"));
process.env.EDGE_DATA_DIR = join(tmp, "data");
const TOOLS = join(EXAMPLES, "tools.py");
const SAMPLE = join(EXAMPLES, "learn_sample.json");

const file = (name: string, value: unknown): string => writeTestFile(tmp, name, value);
const call = (name: string, args: object) => JSON.stringify({ tool_name: name, arguments: args });
const EVAL = file("eval.json", [
  "It depends.",
  call("fee_quote", { amount: 100 }),
  "It depends.",
  call("fee_quote", { amount: 2500, tier: "pro" }),
  "Which order?",
  call("order_status", { order_id: "A-1001" }),
  "Sure.",
  call("prepare_order", { sku: "kb-42", quantity: 3, express: true }),
  call("hello_world", {}),
  "I quote fees, look up orders and prepare drafts.",
]);

describe("edge learn", () => {
  it("validate: the example is valid (no warnings with its tools); an unknown field or missing sample_id exits 1 with the code", async () => {
    const ok = await cli("learn", "validate", SAMPLE, "--tools", TOOLS, "--json");
    expect(ok.code).toBe(0);
    expect(ok.json).toMatchObject({
      ok: true,
      status: "valid",
      sample_id: "order_desk_tools_v1",
      warning_count: 0,
      sample: { record_count: 5, question_count: 6 },
    });
    const sample = JSON.parse(readFileSync(SAMPLE, "utf8"));
    const unknown = await cli("learn", "validate", file("u.json", { ...sample, merchants: [] }), "--json");
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.code).toBe("invalid_learn_sample");
    expect(unknown.json.error.message).toContain('"merchants"');
    const { sample_id: _d, ...noId } = sample;
    const missing = await cli("learn", "validate", file("m.json", noId), "--json");
    expect(missing).toMatchObject({ code: 1, json: { ok: false, error: { code: "invalid_learn_sample" } } });
    expect(missing.json.error.message).toContain("sample_id");
    // Without --tools nothing can mismatch; with only some tools active the export names differ: a warning, exit 0.
    const sel = await cli("learn", "validate", SAMPLE, "--tools", TOOLS, "--tool", "fee_quote", "--json");
    expect(sel.code).toBe(0);
    expect(sel.json.warnings.map((w: { code: string }) => w.code)).toContain("tool_schema_export_name_mismatch");
  });

  it("run → chat --with-imprint → imprints list/show/export/import/delete", async () => {
    const r = await cli(
      "learn",
      "run",
      "--sample-file",
      SAMPLE,
      "--tools",
      TOOLS,
      "--engine",
      "scripted",
      "--script",
      EVAL,
      "--json",
    );
    expect(r.code, r.out + r.err).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual([
      "active_set_sha256",
      "evaluation",
      "imprint_id",
      "ok",
      "prefix_sha256",
      "receipt_id",
      "receipt_path",
      "state",
      "tool_surface",
      "warnings",
    ]);
    expect(r.json.tool_surface).toBe("tools_file");
    // The scripted engine has no model state to save: chats restore the prefix as text.
    expect(r.json.state).toBeNull();
    expect(r.json.evaluation).toMatchObject({ scored: 5, matched_without_prefix: 0, matched_with_prefix: 5 });
    expect(r.json.warnings.map((w: { code: string }) => w.code)).toEqual(["base_model_mismatch"]);
    const inspect = await cli("tools", "inspect", TOOLS, "--json");
    expect(r.json.active_set_sha256).toBe(inspect.json.active_set_sha256);
    const id: string = r.json.imprint_id;
    const stored = join(process.env.EDGE_DATA_DIR!, "imprints", `${id}.json`);
    expect(statSync(stored).mode & 0o777).toBe(0o600);

    // Restore in chat.
    const chatScript = file("chat.json", [call("fee_quote", { amount: 100 }), "The fee is 0.50 EUR."]);
    const chat = await cli(
      "chat",
      "--with-imprint",
      id,
      "--tools",
      TOOLS,
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "Quote the fee for amount 100.",
      "--json",
    );
    expect(chat.code, chat.out).toBe(0);
    expect(chat.json.receipt).toMatchObject({
      tool_instruction_mode: "imprint",
      imprint_id: id,
      tool_instruction_sha256: r.json.prefix_sha256,
      imprint_restore: "prefix",
      imprint_prefix: { prefix_cache: "none" },
    });
    expect(chat.json.receipt.calls[0]).toMatchObject({
      tool_name: "fee_quote",
      status: "ok",
      runner_secret_verified: true,
    });
    const noTools = await cli(
      "chat",
      "--with-imprint",
      id,
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "x",
      "--json",
    );
    expect(noTools).toMatchObject({ code: 1, json: { error: { code: "imprint_requires_tools" } } });
    const missing = await cli(
      "chat",
      "--with-imprint",
      "imp_000000000000000000000000",
      "--tools",
      TOOLS,
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "x",
      "--json",
    );
    expect(missing.json.error.code).toBe("imprint_not_found");

    // The learn receipt is in the same chain as the chat receipts.
    const receipts = await cli("receipts", "list", "--json");
    const kinds = (Array.isArray(receipts.json) ? receipts.json : receipts.json.receipts).map(
      (x: { kind: string; imprint_id: string }) => [x.kind, x.imprint_id],
    );
    expect(kinds).toContainEqual(["learn", id]);
    expect(kinds).toContainEqual(["chat", id]);

    const list = await cli("imprints", "list", "--json");
    expect(list.json.imprints).toEqual([
      expect.objectContaining({ id, model_id: "scripted-demo", sample_id: "order_desk_tools_v1", corrupted: false }),
    ]);
    const show = await cli("imprints", "show", id, "--json");
    expect(show.json.imprint).toMatchObject({
      id,
      prefix_sha256: r.json.prefix_sha256,
      tools: { active_set_sha256: r.json.active_set_sha256 },
    });

    const exported = join(tmp, "exported.json");
    expect((await cli("imprints", "export", id, "-o", exported, "--json")).code).toBe(0);
    // An exported file restores directly too.
    const viaFile = await cli(
      "chat",
      "--with-imprint",
      exported,
      "--tools",
      TOOLS,
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "Quote the fee for amount 100.",
      "--json",
    );
    expect(viaFile.json.receipt).toMatchObject({ tool_instruction_mode: "imprint", imprint_id: id });

    expect(await cli("imprints", "delete", id, "--json")).toMatchObject({ code: 0, json: { deleted: id } });
    expect((await cli("imprints", "show", id, "--json")).json.error.code).toBe("imprint_not_found");
    // A tampered export is refused on import and nothing is stored.
    const tampered = JSON.parse(readFileSync(exported, "utf8"));
    tampered.prefix = tampered.prefix.replace("Never submit an order", "Always submit an order");
    const bad = await cli("imprints", "import", file("tampered.json", tampered), "--json");
    expect(bad).toMatchObject({ code: 1, json: { error: { code: "imprint_corrupted" } } });
    expect((await cli("imprints", "list", "--json")).json.imprints).toEqual([]);
    expect(await cli("imprints", "import", exported, "--json")).toMatchObject({ code: 0, json: { imprint_id: id } });

    // A record edited on disk is refused at restore and flagged in the list.
    const onDisk = JSON.parse(readFileSync(stored, "utf8"));
    onDisk.tools.tool_schema_sha256.fee_quote = "sha256:" + "2".repeat(64);
    chmodSync(stored, 0o600);
    writeFileSync(stored, JSON.stringify(onDisk));
    const corrupted = await cli(
      "chat",
      "--with-imprint",
      id,
      "--tools",
      TOOLS,
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "x",
      "--json",
    );
    expect(corrupted.json.error.code).toBe("imprint_corrupted");
    const flagged = await cli("imprints", "list", "--json");
    expect(flagged.code).toBe(1);
    expect(flagged.json.imprints[0]).toMatchObject({ id, corrupted: true });
  });

  it("usage errors exit 2; web-llm in Node is webgpu_unavailable", async () => {
    expect((await cli("learn", "run", "--tools", TOOLS, "--json")).code).toBe(2);
    expect((await cli("learn", "run", "--sample-file", SAMPLE, "--engine", "scripted", "--json")).code).toBe(2);
    expect((await cli("imprints", "frobnicate")).code).toBe(2);
    const webllm = await cli("learn", "run", "--sample-file", SAMPLE, "--tools", TOOLS, "--json");
    expect(webllm).toMatchObject({ code: 1, json: { error: { code: "webgpu_unavailable" } } });
  });
});
