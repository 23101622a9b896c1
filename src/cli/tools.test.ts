// `edge tools validate|inspect|call` and `edge chat`: exit codes and JSON shapes, through the real
// Node runners (Pyodide in runner processes).
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { EXAMPLES, cli, writeTestFile } from "../../test/cli.ts";
import { confirmCommand, thisInstallation } from "../confirm/node-broker.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-cli-"));
process.env.EDGE_DATA_DIR = join(tmp, "data");

describe("edge tools inspect / validate", () => {
  it("inspect --json prints schemas and hashes of the example (exit 0)", async () => {
    const r = await cli("tools", "inspect", join(EXAMPLES, "tools.py"), "--json");
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(
      [
        "ok",
        "tools_file",
        "tools_file_sha256",
        "tools_bundle_sha256",
        "tools_root",
        "tools_files",
        "tools_skipped",
        "python_packages",
        "python_lock_sha256",
        "schema_generator_version",
        "active_set_sha256",
        "active_tools",
        "tools",
        "errors",
        "warnings",
      ].sort(),
    );
    // The examples folder is the tools project: tools.py with the files beside it, hashed.
    expect(r.json.tools_files.map((f: { path: string }) => f.path)).toEqual(
      expect.arrayContaining(["tools.py", "facts.json", "tools_invalid.py"]),
    );
    expect(r.json.tools_bundle_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r.json.python_packages).toEqual([]); // the examples import the standard library only
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
    // The CLI's one failure shape: `error` (the first problem) beside every problem in `errors`.
    expect(Object.keys(r.json).sort()).toEqual([
      "active_count",
      "error",
      "errors",
      "ok",
      "tool_count",
      "tools_bundle_sha256",
      "tools_file_sha256",
      "warnings",
    ]);
    expect(r.json.error).toEqual(r.json.errors[0]);
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
    const r = await cli(
      "tools",
      "call",
      join(EXAMPLES, "tools.py"),
      "fee_quote",
      "--args",
      '{"amount": 250}',
      "--json",
    );
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      ok: true,
      tool_name: "fee_quote",
      result: { fee: 0.75, tier: "basic" },
      runner_secret_verified: true,
      stderr: "",
    });
    for (const k of ["result_sha256", "args_sha256", "tool_schema_sha256"]) expect(r.json[k]).toMatch(/^sha256:/);
    expect(typeof r.json.duration_ms).toBe("number");
    expect(r.json).not.toHaveProperty("error");
  });

  it("writes a receipt for every call (kind tool_call), like the playground's Try a tool", async () => {
    const r = await cli(
      "tools",
      "call",
      join(EXAMPLES, "tools.py"),
      "order_status",
      "--args",
      '{"order_id": "A-1001"}',
      "--json",
    );
    expect(r.code).toBe(0);
    const receipt = await cli("receipts", "show", r.json.receipt_id, "--json");
    expect(receipt.json).toMatchObject({
      kind: "tool_call",
      outcome: "return_direct",
      receipt_sha256: r.json.receipt_sha256,
      extra: { via: "cli_tools_call" },
    });
    expect(receipt.json.calls[0]).toMatchObject({
      tool_name: "order_status",
      status: "ok",
      result_sha256: r.json.result_sha256,
      runner_secret_verified: true,
    });
    const bad = await cli("tools", "call", join(EXAMPLES, "tools.py"), "order_status", "--args", "{}", "--json");
    expect((await cli("receipts", "show", bad.json.receipt_id, "--json")).json).toMatchObject({
      outcome: "failed_closed",
      code: "invalid_tool_args",
    });
  });

  it("a commit tool does not run: it becomes a pending action, confirmed once with the printed command", async () => {
    const r = await cli(
      "tools",
      "call",
      join(EXAMPLES, "tools.py"),
      "submit_order",
      "--args",
      '{"draft_id": "D-KB-42-3"}',
      "--json",
    );
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({
      ok: false,
      outcome: "pending_confirmation",
      error: { code: "tool_confirmation_required" },
    });
    expect(r.json).not.toHaveProperty("result");
    const p = r.json.pending_action;
    // The command as it runs from any folder: src/cli/confirm-command.test.ts.
    expect(p.confirm_command).toBe(confirmCommand(p.id, p.confirmation_token, thisInstallation(join(tmp, "data"))));
    const receipt = await cli("receipts", "show", r.json.receipt_id, "--json");
    expect(receipt.json).toMatchObject({
      kind: "tool_call",
      outcome: "pending_confirmation",
      code: "tool_confirmation_required",
      extra: { pending_action_id: p.id },
    });
    expect(receipt.json.calls[0]).toMatchObject({
      tool_name: "submit_order",
      execution_level: "commit",
      status: "pending_confirmation",
      result_sha256: null,
    });
    const confirmed = await cli("tools", "confirm", p.id, "--token", p.confirmation_token, "--json");
    expect(confirmed.json).toMatchObject({
      ok: true,
      status: "done",
      result: { draft_id: "D-KB-42-3", status: "submitted" },
    });
    // Invalid arguments never create an action.
    const invalid = await cli("tools", "call", join(EXAMPLES, "tools.py"), "submit_order", "--args", "{}", "--json");
    expect(invalid.json).toMatchObject({ ok: false, error: { code: "invalid_tool_args" } });
    expect(invalid.json).not.toHaveProperty("pending_action");
  });

  it("a JSON manifest given as --tools is refused with tools_file_is_json, not read as Python with no tools", async () => {
    const manifest = join(EXAMPLES, "tools.manifest.json");
    const r = await cli(
      "chat",
      "--tools",
      manifest,
      "--prompt",
      "hi",
      "--engine",
      "scripted",
      "--script",
      join(EXAMPLES, "widget-demo.script.json"),
      "--json",
    );
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
    const bad = await cli(
      "tools",
      "call",
      join(EXAMPLES, "tools.py"),
      "fee_quote",
      "--args",
      '{"amount": "lots"}',
      "--json",
    );
    expect(bad.code).toBe(1);
    expect(bad.json).toMatchObject({ ok: false, error: { code: "invalid_tool_args" } });
    expect(
      (await cli("tools", "call", join(EXAMPLES, "tools.py"), "fee_quote", "--args", "{nope", "--json")).code,
    ).toBe(2);
  });
});

describe("edge chat", () => {
  it("runs the loop with the scripted engine and stores a chained receipt", async () => {
    const script = join(tmp, "out.json");
    writeFileSync(
      script,
      JSON.stringify([JSON.stringify({ tool_name: "fee_quote", arguments: { amount: 100 } }), "The fee is 0.5."]),
    );
    const r = await cli(
      "chat",
      "--tools",
      join(EXAMPLES, "tools.py"),
      "--prompt",
      "Quote the fee for amount 100.",
      "--engine",
      "scripted",
      "--script",
      script,
      "--json",
    );
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, outcome: "answered", answer: "The fee is 0.5." });
    expect(r.json.receipt.calls[0]).toMatchObject({
      tool_name: "fee_quote",
      status: "ok",
      runner_secret_verified: true,
    });
    expect(r.json.receipt.receipt_sha256).toMatch(/^sha256:/);
    const shown = await cli("receipts", "show", r.json.run_id, "--json");
    expect(shown.code).toBe(0);
    expect(shown.json.receipt_sha256 ?? shown.json.receipt?.receipt_sha256).toBe(r.json.receipt.receipt_sha256);
  });

  it("--engine webllm in Node fails with webgpu_unavailable and points to the browser", async () => {
    const r = await cli(
      "chat",
      "--tools",
      join(EXAMPLES, "tools.py"),
      "--prompt",
      "hi",
      "--engine",
      "webllm",
      "--json",
    );
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe("webgpu_unavailable");
    expect(r.json.error.message).toMatch(/browser/);
    const conflicting = await cli("chat", "--tools", "a.py", "--facts-store", "s", "--prompt", "hi", "--json");
    expect(conflicting.json.error.code).toBe("conflicting_tool_options");
  });
});

describe("the installed `edge` command", () => {
  it("bin/edge.cjs runs the CLI as a separate process; so does its former name, bin/edge.mjs (MCP configs, npx caches)", async () => {
    for (const bin of ["edge.cjs", "edge.mjs"]) {
      const { stdout } = await promisify(execFile)(new URL(`../../bin/${bin}`, import.meta.url).pathname, [
        "tools",
        "validate",
        join(EXAMPLES, "tools.py"),
        "--json",
      ]);
      expect(JSON.parse(stdout)).toMatchObject({ ok: true, tool_count: 5, active_count: 5 });
    }
  });
});

describe("hostile inputs", () => {
  it("a path that is not a regular file is refused at once, a file over 1 MiB without reading it", async () => {
    const fifo = join(tmp, "tools.fifo");
    execFileSync("mkfifo", [fifo]);
    mkdirSync(join(tmp, "a-folder"));
    for (const path of ["/dev/zero", fifo, join(tmp, "a-folder")]) {
      const r = await cli("tools", "validate", path, "--json");
      expect(r.code, path).toBe(1);
      expect(r.json.errors[0].code, path).toBe("tools_file_not_regular");
    }
    const big = join(tmp, "big_tools.py");
    writeFileSync(big, "");
    truncateSync(big, 2 * 1024 * 1024);
    const r = await cli("tools", "validate", big, "--json");
    expect(r.json.errors[0]).toMatchObject({
      code: "tools_file_too_large",
      message: expect.stringContaining("2097152 bytes"),
    });
  });

  it("an int parameter refuses integers JSON cannot carry exactly; its schema stays the contract's", async () => {
    const file = writeTestFile(
      tmp,
      "int_tools.py",
      "from edgestudio.tools import edge_tool\n\n@edge_tool\ndef same(n: int) -> dict:\n    return {'n': n, 'type': type(n).__name__}\n",
    );
    const inspected = await cli("tools", "inspect", file, "--json");
    expect(inspected.json.tools[0].schema.parameters.properties.n).toEqual({ type: "integer" });
    // 1e300 passes for an integer in JSON Schema (the tool got a float), and 9007199254740993
    // parses as 2^53: the host refuses both, the second after the one repair turn.
    const script = join(tmp, "big_ints.json");
    writeFileSync(
      script,
      JSON.stringify([
        '{"tool_name": "same", "arguments": {"n": 1e300}}',
        '{"tool_name": "same", "arguments": {"n": 9007199254740993}}',
      ]),
    );
    const chat = await cli(
      "chat",
      "--tools",
      file,
      "--engine",
      "scripted",
      "--script",
      script,
      "--prompt",
      "go",
      "--json",
    );
    expect(chat.code).toBe(1);
    expect(chat.json).toMatchObject({
      outcome: "failed_closed",
      error: {
        code: "invalid_tool_args",
        message: expect.stringContaining('parameter "n" must be an integer within ±(2^53−1)'),
      },
    });
    expect(chat.json.receipt.calls).toEqual([]);
    const refused = await cli("tools", "call", file, "same", "--args", '{"n": 1e300}', "--json");
    expect(refused.json.error).toMatchObject({
      code: "invalid_tool_args",
      message: expect.stringContaining("±(2^53−1)"),
    });
    const edge = await cli("tools", "call", file, "same", "--args", '{"n": 9007199254740991}', "--json");
    expect(edge.json.result).toEqual({ n: 9007199254740991, type: "int" });
  }, 180_000);

  it("text mode shows control characters in tool output, errors and answers as escapes", async () => {
    const file = writeTestFile(
      tmp,
      "ansi_tools.py",
      "from edgestudio.tools import edge_tool\n\n@edge_tool\ndef loud() -> dict:\n    print('\\x1b[2Jcleared')\n    raise ValueError('\\x1b]0;pwned\\x07 and \\u009b31m')\n",
    );
    const call = await cli("tools", "call", file, "loud");
    expect(call.code).toBe(1);
    expect(call.err).toContain("\\u001b[2Jcleared");
    expect(call.err).toContain("\\u001b]0;pwned\\u0007 and \\u009b31m");
    const script = writeTestFile(tmp, "ansi_answer.json", ["\u001b[31mred\u001b[0m \u202eevil\r\nline two"]);
    const chat = await cli("chat", "--engine", "scripted", "--script", script, "--prompt", "hi");
    expect(chat.code).toBe(0);
    expect(chat.out).toBe("\\u001b[31mred\\u001b[0m \\u202eevil\nline two\n");
    for (const text of [call.out, call.err, chat.out, chat.err])
      expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
  });

  it("an answer with a lone surrogate does not hash like U+FFFD", async () => {
    const hashes: string[] = [];
    for (const answer of ["\ud800", "\ufffd"]) {
      const script = join(tmp, `answer-${hashes.length}.json`);
      writeFileSync(script, `[${JSON.stringify(answer)}]`);
      const r = await cli("chat", "--engine", "scripted", "--script", script, "--prompt", "hi", "--json");
      expect(r.code).toBe(0);
      hashes.push(r.json.receipt.answer_sha256);
    }
    expect(hashes[0]).toMatch(/^sha256:/);
    expect(hashes[0]).not.toBe(hashes[1]);
  });
});
