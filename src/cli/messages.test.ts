// What a person reads when a command goes wrong, through the real CLI (`node bin/edge.cjs`, its own
// process): the fix is in the message (the allowed values, the fields that do not match, the limit
// that stopped a tool, the context a model allows), near misses get "did you mean", `-v` works,
// sentences never run together, every failing `--json` has the one shape, and a refused call with
// its repair turn is in the receipt.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeTestModel } from "../../test/fixtures/gguf.ts";
import { nodeLlamaAvailable } from "../../test/engines/node-llama.ts";
import { EXAMPLES, edgeCli, writeTestFile, type CliResult } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-messages-"));
const data = join(tmp, "data");
const edge = (...argv: string[]): Promise<CliResult> => edgeCli(data, ...argv);
const TOOLS = join(EXAMPLES, "tools.py");
const llama = await nodeLlamaAvailable();
// Each step is its own `node bin/edge.cjs` process (with Pyodide runners): seconds apiece on a busy machine.
const SLOW = { timeout: 300_000 };

const BAD_TOOLS = writeTestFile(
  tmp,
  "bad_tools.py",
  `from edgestudio.tools import edge_tool

@edge_tool(return_direct=True, output_schema={"type": "object", "properties": {"n": {"type": "integer"}, "status": {"type": "string", "enum": ["ok"]}}, "required": ["n", "status"], "additionalProperties": False})
def bad_out() -> dict:
    return {"n": "seven", "status": "ok"}

@edge_tool
def spin() -> dict:
    while True:
        pass
`,
);

/** The one failure shape of every command's --json (src/cli/io.ts failureJson). */
function expectFailureShape(r: CliResult, code: string): void {
  expect(r.json, r.out + r.err).toMatchObject({ ok: false, error: { code, message: expect.any(String) } });
  expect(r.json.errors[0]).toEqual(r.json.error);
}

/** Two sentences run together: a word, a space, then a capitalised imperative ("…position 1 Run `edge…"). */
const RUN_TOGETHER = /[a-z0-9'"`] (Run|Use|Pass|Add|Check|Did|Make) /;

describe("near misses and -v", () => {
  it(
    "a misspelt command, subcommand or option gets a did-you-mean and the usage hint, as sentences",
    SLOW,
    async () => {
      const cmd = await edge("tols", "validate", TOOLS);
      expect(cmd.code).toBe(2);
      expect(cmd.err).toBe('edge: Unknown command "tols". Did you mean `edge tools`? Run `edge --help` for usage.\n');
      const sub = await edge("tools", "valdate", TOOLS, "--json");
      expectFailureShape(sub, "usage_error");
      expect(sub.json.error.message).toBe(
        'Unknown subcommand "edge tools valdate". Did you mean `edge tools validate`? Run `edge tools --help` for usage.',
      );
      const opt = await edge("chat", "--tools", TOOLS, "--promt", "hi");
      expect(opt.code).toBe(2);
      expect(opt.err).toBe(
        "edge: Unknown option '--promt'. Did you mean `--prompt`? Run `edge chat --help` for usage.\n",
      );
      // A message from elsewhere (the file system) that ends without a full stop gets one.
      const script = await edge(
        "chat",
        "--tools",
        TOOLS,
        "--prompt",
        "hi",
        "--engine",
        "scripted",
        "--script",
        join(tmp, "missing.json"),
      );
      expect(script.err).toMatch(
        /no such file or directory, open '[^']+missing\.json'\. Run `edge chat --help` for usage\.\n$/,
      );
      for (const r of [cmd, opt, script]) expect(r.err).not.toMatch(RUN_TOGETHER);
    },
  );

  it("-v prints the version, like --version and -V", SLOW, async () => {
    const v = await edge("-v");
    expect(v.code).toBe(0);
    expect(v.out).toMatch(/^edge \d+\.\d+\.\d+\n$/);
  });

  it("a misspelt tool, tag or built-in name gets a did-you-mean and the names that exist", SLOW, async () => {
    const tool = await edge("tools", "call", TOOLS, "fee_qoute", "--args", '{"amount": 250}', "--json");
    expect(tool.code).toBe(1);
    expectFailureShape(tool, "unknown_tool");
    expect(tool.json.error.message).toBe(
      'No tool named "fee_qoute" is in the tools file. Did you mean "fee_quote"? The file\'s tools: hello_world, fee_quote, order_status, prepare_order, submit_order.',
    );
    const tag = await edge("tools", "validate", TOOLS, "--tool-tag", "biling", "--json");
    expectFailureShape(tag, "unknown_tool_tag");
    expect(tag.json.error.message).toContain('Did you mean "billing"?');
    const builtin = await edge(
      "chat",
      "--tools",
      TOOLS,
      "--builtins",
      "read_flie",
      "--prompt",
      "hi",
      "--engine",
      "scripted",
      "--script",
      writeTestFile(tmp, "hi.json", ["hi"]),
      "--json",
    );
    expectFailureShape(builtin, "unknown_tool");
    expect(builtin.json.error.message).toContain('Did you mean "read_file"?');
  });
});

describe("the fix is in the message", () => {
  it("an enum miss lists the allowed values", SLOW, async () => {
    const text = await edge("tools", "call", TOOLS, "fee_quote", "--args", '{"amount": 250, "tier": "gold"}');
    expect(text.code).toBe(1);
    expect(text.err).toContain(
      'invalid_tool_args (tool fee_quote): Arguments for "fee_quote" do not match its schema: /tier must be equal to one of the allowed values: "basic", "pro".',
    );
  });

  it("tool_result_schema_mismatch names the offending field in text mode too", SLOW, async () => {
    const r = await edge("tools", "call", BAD_TOOLS, "bad_out");
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      "failed closed: tool_result_schema_mismatch: The tool's real result does not match its declared output_schema: /n must be integer. It was not delivered; fix the tool or its schema.",
    );
  });

  it("runner_timeout states the limit that stopped the tool", SLOW, async () => {
    const r = await edge("tools", "call", BAD_TOOLS, "spin", "--timeout-ms", "1500", "--json");
    expectFailureShape(r, "runner_timeout");
    expect(r.json.error.message).toBe(
      "Tool spin ran longer than its 1,500 ms time limit and was stopped; make it faster, or raise the limit (--timeout-ms N in the CLI).",
    );
    expect(r.json.diagnostics).toEqual({ timeout_ms: 1500 });
  });

  it("a file that cannot be written says what to check, and names the fs code once", SLOW, async () => {
    const r = await edge("workspace", "export", "-o", join(tmp, "no-such-folder", "ws.zip"), "--json");
    expectFailureShape(r, "storage_failed");
    expect(r.json.error.message).toMatch(
      /\(write: ENOENT: no such file or directory, open '[^']+'\); nothing was half-written\. Check that the folder exists \(create it, or pick another path\), then try again\.$/,
    );
  });
});

describe("a missing piece names the way on", () => {
  it(
    "chat without an engine, a workspace or learn sample path that is not there: each says what to do",
    SLOW,
    async () => {
      const chat = await edge("chat", "--tools", TOOLS, "--prompt", "hi");
      expect(chat.code).toBe(1);
      expect(chat.err).toContain(
        "webgpu_unavailable: The web-llm engine needs WebGPU, which Node does not have: run a GGUF model here with --model FILE.gguf (once: npm run setup:llama),",
      );
      const ws = await edge("workspace", "import", join(tmp, "no-data"), "--json");
      expectFailureShape(ws, "path_unreadable");
      expect(ws.json.error.message).toBe(
        `${join(tmp, "no-data")} does not exist; check the path (a folder, a .zip or one file).`,
      );
      const sample = await edge(
        "learn",
        "run",
        "--sample-file",
        join(tmp, "no-sample.json"),
        "--tools",
        TOOLS,
        "--engine",
        "scripted",
        "--script",
        join(EXAMPLES, "learn_outputs.json"),
        "--json",
      );
      expectFailureShape(sample, "invalid_learn_sample");
      expect(sample.json.error.message).toMatch(
        /could not be read \(ENOENT: [^)]+\); check the path, or write one with edge learn sample init\.$/,
      );
      for (const r of [chat.err, ws.json.error.message, sample.json.error.message]) expect(r).not.toMatch(RUN_TOGETHER);
    },
  );
});

describe("one --json failure shape", () => {
  it(
    "validate, chat, facts import, receipts verify and confirm fail with ok:false, error and errors",
    SLOW,
    async () => {
      const invalid = await edge("tools", "validate", join(EXAMPLES, "tools_invalid.py"), "--json");
      expect(invalid.code).toBe(1);
      expectFailureShape(invalid, invalid.json.errors[0].code);
      expect(invalid.json.errors.length).toBeGreaterThan(1);
      const chat = await edge(
        "chat",
        "--tools",
        TOOLS,
        "--prompt",
        "hi",
        "--engine",
        "scripted",
        "--script",
        writeTestFile(tmp, "nope.json", [
          '{"tool_name": "nope", "arguments": {}}',
          '{"tool_name": "nope", "arguments": {}}',
        ]),
        "--json",
      );
      expectFailureShape(chat, "unknown_tool");
      const facts = await edge(
        "facts",
        "import",
        writeTestFile(tmp, "facts.json", {
          schema_version: "edge.demo.facts.v1",
          store: "s",
          facts: [{ fact_id: "a" }],
        }),
        "--json",
      );
      expectFailureShape(facts, "invalid_facts_file");
      const verify = await edge("receipts", "verify", writeTestFile(tmp, "r.jsonl", '{"seq": 1}\n'), "--json");
      expectFailureShape(verify, "receipt_chain_broken");
      const confirm = await edge("tools", "confirm", "pa_0000", "--token", "x", "--json");
      expectFailureShape(confirm, "pending_action_not_found");
    },
  );
});

describe("the unknown-tool repair turn is in the receipt", () => {
  it("records the refused call (name, code, argument hash, turn) and that a repair turn followed", SLOW, async () => {
    const script = writeTestFile(tmp, "repair.json", [
      '{"tool_name": "fee_qoute", "arguments": {"amount": 250}}',
      '{"tool_name": "fee_quote", "arguments": {"amount": 250}}',
      "The fee is 0.75.",
    ]);
    const r = await edge(
      "chat",
      "--tools",
      TOOLS,
      "--prompt",
      "Quote the fee for 250.",
      "--engine",
      "scripted",
      "--script",
      script,
      "--json",
    );
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.receipt.calls.map((c: { tool_name: string; status: string }) => [c.tool_name, c.status])).toEqual([
      ["fee_quote", "ok"],
    ]);
    expect(r.json.receipt.refused_calls).toEqual([
      {
        tool_name: "fee_qoute",
        code: "unknown_tool",
        args_sha256: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        turn: 0,
        then: "repair_turn",
      },
    ]);
    // The same failure twice: both refusals recorded, the second ended the run.
    const twice = await edge(
      "chat",
      "--tools",
      TOOLS,
      "--prompt",
      "x",
      "--engine",
      "scripted",
      "--script",
      writeTestFile(tmp, "twice.json", [
        '{"tool_name": "fee_qoute", "arguments": {}}',
        '{"tool_name": "fee_qoute", "arguments": {}}',
      ]),
    );
    expect(twice.code).toBe(1);
    expect(twice.err).toContain(
      "refused calls: 2 (unknown_tool fee_qoute → repair turn; unknown_tool fee_qoute → failed closed)",
    );
  });
});

describe.skipIf(!llama)("--ctx-size beyond what the model allows", () => {
  it("says the window used, the most the model allows, and gives advice that can work", SLOW, async () => {
    const model = writeTestModel({ contextLength: 2048 });
    const long = "word ".repeat(2500);
    const r = await edge(
      "chat",
      "--model",
      model.path,
      "--ctx-size",
      "8192",
      "--threads",
      "1",
      "--tools",
      TOOLS,
      "--prompt",
      long,
    );
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain(
      "2048-token context: 8192 tokens were asked for, but 2048 is the most this model allows (its trained context)",
    );
    expect(r.err).toContain(
      "context window is 2048 tokens. That is the most this model allows (it was trained with a 2048-token context).",
    );
    expect(r.err).not.toContain("larger context");
    const json = await edge(
      "chat",
      "--model",
      model.path,
      "--ctx-size",
      "1024",
      "--threads",
      "1",
      "--tools",
      TOOLS,
      "--prompt",
      long,
      "--json",
    );
    expectFailureShape(json, "context_window_exceeded");
    expect(json.json.error.message).toContain(
      "load the model with a larger context (up to 2048 tokens: --ctx-size 2048).",
    );
    expect(json.json.receipt.context).toMatchObject({ window: 1024, trained_window: 2048 });
  });
});
