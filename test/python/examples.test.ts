// The shipped examples discover as documented, their schemas compile in ajv strict mode (as the host
// compiles them), their tools run, every code the runner emits is in the error table, and preload()
// leaves no job state behind.
import { readdirSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Ajv } from "ajv";
import canonicalize from "canonicalize";
import { ERRORS } from "../../src/contract/error-table.ts";
import { HAS_PYTHON, PYTHON, ROOT, SKIP_REASON, runJobs, sha256Hex, type Reply } from "./pyrun.ts";

const read = (name: string) => readFileSync(path.join(ROOT, "public/examples", name), "utf8");

describe.skipIf(!HAS_PYTHON)(`examples (CPython)${SKIP_REASON}`, () => {
  it("seed_tools.py (the product page's two examples, unchanged) discovers cleanly", () => {
    const [r] = runJobs([{ op: "discover", source: read("seed_tools.py"), filename: "seed_tools.py" }]);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.tools.map((t: Reply) => t.schema.name)).toEqual([
      "hello_world",
      "calculate_fee",
      "order_status",
      "fee_quote",
      "prepare_order",
    ]);
    const fee = r.tools.find((t: Reply) => t.schema.name === "fee_quote");
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
    expect(r.tools[2].schema.description).toBe("Look up the status of a local order record.");
    expect(r.tools[1].schema.description).toBe("Compute the service fee for an amount.");
  });

  describe("tools.py", () => {
    let r: Reply;
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });
    beforeAll(() => {
      [r] = runJobs([{ op: "discover", source: read("tools.py") }]);
    });

    it("discovers five valid tools with the documented levels", () => {
      expect(r.ok).toBe(true);
      expect(r.errors).toEqual([]);
      expect(r.tools.map((t: Reply) => [t.schema.name, t.schema.execution_level, t.schema.return_direct])).toEqual([
        ["hello_world", "read", false],
        ["fee_quote", "read", false],
        ["order_status", "read", false],
        ["prepare_order", "prepare", true],
        ["submit_order", "commit", true],
      ]);
      const fee = r.tools[1];
      expect(fee.intent_tags).toEqual(["billing", "quote"]);
      expect(fee.schema.parameters.properties.tier).toEqual({
        type: "string",
        enum: ["basic", "pro"],
        default: "basic",
      });
      expect(fee.schema.parameters.properties.note).toEqual({ type: ["string", "null"], default: null });
      expect(r.tools[2].schema.description).toBe("Look up the status of a local order record.");
    });

    it("every parameters and output schema compiles in ajv strict mode", () => {
      for (const t of r.tools) {
        expect(() => ajv.compile(t.schema.parameters)).not.toThrow();
        if (t.schema.output_schema) expect(() => ajv.compile(t.schema.output_schema)).not.toThrow();
      }
    });

    it("its tools run deterministically and return_direct results match their output_schema", () => {
      const src = read("tools.py");
      const jobs = [
        { tool: "hello_world", args: {} },
        { tool: "fee_quote", args: { amount: 400, tier: "pro" } },
        { tool: "order_status", args: { order_id: "a-1001" } },
        { tool: "order_status", args: { order_id: "Z-9" } },
        { tool: "prepare_order", args: { sku: "mug", quantity: 2 } },
        { tool: "submit_order", args: { draft_id: "D-MUG-2" } },
      ];
      const replies = runJobs(
        jobs.map((j) => ({ op: "call", source: src, tool: j.tool, args: JSON.stringify(j.args) })),
      );
      const again = runJobs(jobs.map((j) => ({ op: "call", source: src, tool: j.tool, args: JSON.stringify(j.args) })));
      expect(again).toEqual(replies);
      replies.forEach((reply: Reply) => {
        expect(reply.ok, JSON.stringify(reply)).toBe(true);
        expect(reply.result_sha256).toBe(sha256Hex(canonicalize(reply.result) as string));
      });
      expect(replies[0].result).toEqual({ result: "hello world" });
      expect(replies[1].result).toEqual({ amount: 400, tier: "pro", rate: 0.002, fee: 0.8 });
      expect(replies[2].result).toMatchObject({ order_id: "A-1001", found: true, status: "shipped" });
      expect(replies[3].result).toEqual({ order_id: "Z-9", found: false });
      for (const i of [4, 5]) {
        const validate = ajv.compile(r.tools.find((t: Reply) => t.schema.name === jobs[i]!.tool).schema.output_schema);
        expect(validate(replies[i].result), JSON.stringify(validate.errors)).toBe(true);
      }
    });
  });

  it("tools_invalid.py: every tool is refused with the code its comment names", () => {
    const src = read("tools_invalid.py");
    const [r] = runJobs([{ op: "discover", source: src }]);
    expect(r.ok).toBe(false);
    expect(r.tools).toEqual([]);
    // Each "# <code>: ..." comment owns the lines up to the next such comment.
    const lines = src.split("\n");
    const sections: { code: string; from: number; to: number }[] = [];
    lines.forEach((l, i) => {
      const m = /^# ([a-z_]+): /.exec(l);
      if (m) sections.push({ code: m[1] as string, from: i + 1, to: lines.length });
    });
    sections.forEach((s, i) => (s.to = sections[i + 1]?.from ?? lines.length));
    expect(sections.length).toBeGreaterThanOrEqual(20);
    for (const s of sections) {
      expect(Object.keys(ERRORS), s.code).toContain(s.code);
      const hit = r.errors.find((e: Reply) => e.code === s.code && e.line > s.from && e.line < s.to);
      expect(hit, `${s.code} at line ${s.from}: ${JSON.stringify(r.errors)}`).toBeTruthy();
    }
    // …and no error falls outside the documented sections.
    for (const e of r.errors)
      expect(
        sections.some((s) => s.code === e.code && e.line > s.from && e.line < s.to),
        e.message,
      ).toBe(true);
  });
});

describe.skipIf(!HAS_PYTHON)(`runner module (CPython)${SKIP_REASON}`, () => {
  it("every error code the Python runner can emit is in src/contract/error-table.ts", () => {
    const pkg = path.join(ROOT, "runner-pyodide/edge_runner");
    const src = readdirSync(pkg)
      .filter((f) => f.endsWith(".py"))
      .map((f) => readFileSync(path.join(pkg, f), "utf8"))
      .join("\n");
    const codes = new Set([...src.matchAll(/(?:_err|fail)\(\s*"([a-z_]+)"/g)].map((m) => m[1]));
    expect(codes.size).toBeGreaterThan(15);
    for (const code of codes) expect(Object.keys(ERRORS), code).toContain(code);
  });

  it("preload() imports what a job needs and leaves no job state; jobs still work after it", () => {
    const script = [
      "import sys, json, hashlib",
      "import edge_runner, edgestudio.tools",
      "before = set(sys.modules)",
      "edge_runner.preload()",
      "state = {",
      "  'module': edge_runner.MODULE_NAME in sys.modules,",
      "  'collector': edgestudio.tools._collector,",
      "  'streams': sys.stdout is sys.__stdout__ and sys.stderr is sys.__stderr__,",
      "  'preloaded': sorted(m for m in ('dataclasses', 'json', 'typing', 'inspect', 'traceback', 'ast') if m in sys.modules),",
      "}",
      "src = b'from edgestudio.tools import edge_tool\\n@edge_tool\\ndef f(x: int) -> int:\\n    return x * 2\\n'",
      "sha = 'sha256:' + hashlib.sha256(src).hexdigest()",
      "after = set(sys.modules)",
      "state['call'] = json.loads(edge_runner.call(src, sha, 'tools.py', 'f', '{\"x\": 21}', 'c'))['result']",
      "state['new_modules_on_call'] = sorted(set(sys.modules) - after)",
      "sys.__stdout__.write(json.dumps(state))",
    ].join("\n");
    const res = spawnSync(PYTHON, ["-c", script], {
      env: { ...process.env, PYTHONPATH: path.join(ROOT, "runner-pyodide") },
      encoding: "utf8",
    });
    expect(res.status, res.stderr).toBe(0);
    const state = JSON.parse(res.stdout);
    expect(state).toEqual({
      module: false,
      collector: null,
      streams: true,
      preloaded: ["ast", "dataclasses", "inspect", "json", "traceback", "typing"],
      call: { result: 42 },
      new_modules_on_call: [],
    });
  });
});
