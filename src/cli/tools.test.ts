// `edge tools validate|inspect|call` and `edge chat`: exit codes and JSON shapes, through the real
// Node runners (Pyodide in worker_threads).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { EXAMPLES, cli } from "./cli-test-helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-cli-"));
process.env.EDGE_DATA_DIR = join(tmp, "data");


describe("edge tools inspect / validate", () => {
  it("inspect --json prints schemas and hashes of the example (exit 0)", async () => {
    const r = await cli("tools", "inspect", join(EXAMPLES, "tools.py"), "--json");
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(
      ["ok", "tools_file", "tools_file_sha256", "schema_generator_version", "active_set_sha256", "active_tools", "tools", "errors", "warnings"].sort(),
    );
    expect(r.json.ok).toBe(true);
    expect(r.json.active_tools).toEqual(["hello_world", "fee_quote", "order_status", "prepare_order", "submit_order"]);
    const fee = r.json.tools.find((t: { name: string }) => t.name === "fee_quote");
    expect(Object.keys(fee).sort()).toEqual(["intent_tags", "name", "permissions", "schema", "schema_sha256"]);
    expect(fee.schema.parameters).toEqual({
      type: "object",
      properties: {
        amount: { type: "number" },
        tier: { type: "string", enum: ["basic", "pro"], default: "basic" },
        note: { type: ["string", "null"], default: null },
      },
      required: ["amount"],
      additionalProperties: false,
    });
    expect(fee.intent_tags).toEqual(["billing", "quote"]);
    expect(r.json.tools_file_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The readable form names every tool.
    const plain = await cli("tools", "inspect", join(EXAMPLES, "tools.py"), "--tool-tag", "orders");
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/order_status\s+yes/);
    expect(plain.out).toMatch(/fee_quote\s+no/);
  });

  it("validate --json of the refusals file: exit 1 and one coded error per refusal", async () => {
    const r = await cli("tools", "validate", join(EXAMPLES, "tools_invalid.py"), "--json");
    expect(r.code).toBe(1);
    expect(Object.keys(r.json).sort()).toEqual(["active_count", "errors", "ok", "tool_count", "tools_file_sha256", "warnings"]);
    const codes = new Set(r.json.errors.map((e: { code: string }) => e.code));
    for (const code of [
      "missing_parameter_type_hint",
      "unsupported_type_hint",
      "duplicate_tool_name",
      "invalid_tool_name",
      "return_direct_output_schema_required",
      "invalid_output_schema",
      "invalid_execution_level",
      "unsupported_permission",
    ]) {
      expect(codes, code).toContain(code);
    }
    for (const e of r.json.errors) expect(e.message.length).toBeGreaterThan(10);
  });

  it("selection errors and the seed's own tools.py", async () => {
    const unknown = await cli("tools", "validate", join(EXAMPLES, "tools.py"), "--tool", "nope", "--json");
    expect(unknown.code).toBe(1);
    expect(unknown.json.errors[0]).toMatchObject({ code: "unknown_tool", tool: "nope" });
    const seed = await cli("tools", "inspect", join(EXAMPLES, "seed_tools.py"), "--json");
    expect(seed.code).toBe(0);
    expect(seed.json.errors).toEqual([]);
  });

  it("usage errors exit 2", async () => {
    expect((await cli("tools", "inspect")).code).toBe(2);
    expect((await cli("tools", "inspect", "a.py", "--bogus")).code).toBe(2);
    expect((await cli("tools", "frobnicate", "a.py")).code).toBe(2);
    expect((await cli("nothing")).code).toBe(2);
    const missing = await cli("tools", "validate", join(tmp, "missing.py"), "--json");
    expect(missing.code).toBe(1);
    expect(missing.json.errors[0].code).toBe("tools_file_unreadable");
  });
});

describe("edge tools call", () => {
  it("runs one tool with every check and prints the documented shape", async () => {
    const r = await cli("tools", "call", join(EXAMPLES, "tools.py"), "fee_quote", "--args", '{"amount": 250}', "--json");
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, tool_name: "fee_quote", result: { fee: 0.75, tier: "basic" }, runner_secret_verified: true, stderr: "" });
    for (const k of ["result_sha256", "args_sha256", "tool_schema_sha256"]) expect(r.json[k]).toMatch(/^sha256:/);
    expect(typeof r.json.duration_ms).toBe("number");
    expect(r.json).not.toHaveProperty("error");
  });

  it("writes a receipt for every call (kind tool_call), like the playground's Try a tool", async () => {
    const r = await cli("tools", "call", join(EXAMPLES, "tools.py"), "order_status", "--args", '{"order_id": "A-1001"}', "--json");
    expect(r.code).toBe(0);
    const receipt = await cli("receipts", "show", r.json.receipt_id, "--json");
    expect(receipt.json).toMatchObject({ kind: "tool_call", outcome: "return_direct", receipt_sha256: r.json.receipt_sha256, extra: { via: "cli_tools_call" } });
    expect(receipt.json.calls[0]).toMatchObject({ tool_name: "order_status", status: "ok", result_sha256: r.json.result_sha256, runner_secret_verified: true });
    const bad = await cli("tools", "call", join(EXAMPLES, "tools.py"), "order_status", "--args", "{}", "--json");
    expect((await cli("receipts", "show", bad.json.receipt_id, "--json")).json).toMatchObject({ outcome: "failed_closed", code: "invalid_tool_args" });
  });

  it("a commit tool does not run: it becomes a pending action, confirmed once with the printed command", async () => {
    const r = await cli("tools", "call", join(EXAMPLES, "tools.py"), "submit_order", "--args", '{"draft_id": "D-KB-42-3"}', "--json");
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ ok: false, outcome: "pending_confirmation", error: { code: "tool_confirmation_required" } });
    expect(r.json).not.toHaveProperty("result");
    const p = r.json.pending_action;
    expect(p.confirm_command).toBe(`npx edge tools confirm ${p.id} --token ${p.confirmation_token} --json`);
    const receipt = await cli("receipts", "show", r.json.receipt_id, "--json");
    expect(receipt.json).toMatchObject({ kind: "tool_call", outcome: "pending_confirmation", code: "tool_confirmation_required", extra: { pending_action_id: p.id } });
    expect(receipt.json.calls[0]).toMatchObject({ tool_name: "submit_order", execution_level: "commit", status: "pending_confirmation", result_sha256: null });
    const confirmed = await cli(...(p.confirm_command as string).split(" ").slice(2));
    expect(confirmed.json).toMatchObject({ ok: true, status: "done", result: { draft_id: "D-KB-42-3", status: "submitted" } });
    // Invalid arguments never create an action.
    const invalid = await cli("tools", "call", join(EXAMPLES, "tools.py"), "submit_order", "--args", "{}", "--json");
    expect(invalid.json).toMatchObject({ ok: false, error: { code: "invalid_tool_args" } });
    expect(invalid.json).not.toHaveProperty("pending_action");
  });

  it("a JSON manifest given as --tools is refused with tools_file_is_json, not read as Python with no tools", async () => {
    const manifest = join(EXAMPLES, "tools.manifest.json");
    const r = await cli("chat", "--tools", manifest, "--prompt", "hi", "--engine", "scripted", "--script", join(EXAMPLES, "widget-demo.script.json"), "--json");
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe("tools_file_is_json");
    expect(r.json.error.message).toContain("--tools-manifest");
    // Also when the file is not named .json.
    const renamed = join(tmp, "tools_manifest.py");
    writeFileSync(renamed, readFileSync(manifest));
    const call = await cli("tools", "call", renamed, "support_kb", "--json");
    expect(call.json.error.code).toBe("tools_file_is_json");
  });

  it("bad arguments fail closed (exit 1); bad --args JSON is a usage error (exit 2)", async () => {
    const bad = await cli("tools", "call", join(EXAMPLES, "tools.py"), "fee_quote", "--args", '{"amount": "lots"}', "--json");
    expect(bad.code).toBe(1);
    expect(bad.json).toMatchObject({ ok: false, error: { code: "invalid_tool_args" } });
    expect((await cli("tools", "call", join(EXAMPLES, "tools.py"), "fee_quote", "--args", "{nope", "--json")).code).toBe(2);
  });
});

describe("edge chat", () => {
  it("runs the loop with the scripted engine and stores a chained receipt", async () => {
    const script = join(tmp, "out.json");
    writeFileSync(script, JSON.stringify([JSON.stringify({ tool_name: "fee_quote", arguments: { amount: 100 } }), "The fee is 0.5."]));
    const r = await cli("chat", "--tools", join(EXAMPLES, "tools.py"), "--prompt", "Quote the fee for amount 100.", "--engine", "scripted", "--script", script, "--json");
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, outcome: "answered", answer: "The fee is 0.5." });
    expect(r.json.receipt.calls[0]).toMatchObject({ tool_name: "fee_quote", status: "ok", runner_secret_verified: true });
    expect(r.json.receipt.receipt_sha256).toMatch(/^sha256:/);
    const shown = await cli("receipts", "show", r.json.run_id, "--json");
    expect(shown.code).toBe(0);
    expect(shown.json.receipt_sha256 ?? shown.json.receipt?.receipt_sha256).toBe(r.json.receipt.receipt_sha256);
  });

  it("--engine webllm in Node fails with webgpu_unavailable and points to the browser", async () => {
    const r = await cli("chat", "--tools", join(EXAMPLES, "tools.py"), "--prompt", "hi", "--engine", "webllm", "--json");
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe("webgpu_unavailable");
    expect(r.json.error.message).toMatch(/browser/);
    const conflicting = await cli("chat", "--tools", "a.py", "--facts-store", "s", "--prompt", "hi", "--json");
    expect(conflicting.json.error.code).toBe("conflicting_tool_options");
  });
});

describe("the installed `edge` command", () => {
  it("bin/edge.mjs runs the CLI as a separate process", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [new URL("../../bin/edge.mjs", import.meta.url).pathname, "tools", "validate", join(EXAMPLES, "tools.py"), "--json"]);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, tool_count: 5, active_count: 5 });
  });
});
