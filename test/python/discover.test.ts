// CPython cross-check of discovery: the docs/contract.md §1 type table and every authoring error code.
import { beforeAll, describe, expect, it } from "vitest";
import { ERRORS } from "../../src/contract/error-table.ts";
import { SCHEMA_GENERATOR_VERSION } from "../../src/contract/types.ts";
import { HAS_PYTHON, SKIP_REASON, discover, runJobs, sha256Hex, toolsFile, type Reply } from "./pyrun.ts";

const TYPE_TABLE = toolsFile(`
@edge_tool
def typed(
    s: str,
    i: int,
    f: float,
    b: bool,
    lit: Literal["a", "b"],
    ilit: Literal[1, 2, 3],
    blit: Literal[True],
    opt: Optional[str],
    pipe: int | None,
    uni: Union[float, None],
    olit: Optional[Literal["x", "y"]],
    ls: list[str],
    Ls: List[int],
    nested: list[list[bool]],
    optlistlit: Optional[list[Literal["a", "b"]]],
    listopt: list[Optional[int]],
    *,
    kw: str = "k",
    d_int: int = 3,
    d_float: float = 0.5,
    d_float_int: float = 2,
    d_bool: bool = False,
    d_none: Optional[int] = None,
    d_list: list[str] = ["x"],
    d_tuple: list[int] = (1, 2),
    d_lit: Literal["basic", "pro"] = "pro",
) -> dict:
    return {}
`);

describe.skipIf(!HAS_PYTHON)(`discover: type table (CPython)${SKIP_REASON}`, () => {
  let reply: Reply;
  beforeAll(() => {
    reply = discover(TYPE_TABLE);
  });

  it("maps every supported annotation to its schema, required in signature order", () => {
    expect(reply.errors).toEqual([]);
    expect(reply.ok).toBe(true);
    expect(reply.schema_generator_version).toBe(SCHEMA_GENERATOR_VERSION);
    expect(reply.tools_file_sha256).toBe(sha256Hex(TYPE_TABLE));
    const params = reply.tools[0].schema.parameters;
    expect(params.additionalProperties).toBe(false);
    expect(params.type).toBe("object");
    expect(params.required).toEqual([
      "s",
      "i",
      "f",
      "b",
      "lit",
      "ilit",
      "blit",
      "opt",
      "pipe",
      "uni",
      "olit",
      "ls",
      "Ls",
      "nested",
      "optlistlit",
      "listopt",
    ]);
    expect(params.properties).toEqual({
      s: { type: "string" },
      i: { type: "integer" },
      f: { type: "number" },
      b: { type: "boolean" },
      lit: { type: "string", enum: ["a", "b"] },
      ilit: { type: "integer", enum: [1, 2, 3] },
      blit: { type: "boolean", enum: [true] },
      opt: { type: ["string", "null"] },
      pipe: { type: ["integer", "null"] },
      uni: { type: ["number", "null"] },
      olit: { type: ["string", "null"], enum: ["x", "y", null] },
      ls: { type: "array", items: { type: "string" } },
      Ls: { type: "array", items: { type: "integer" } },
      nested: { type: "array", items: { type: "array", items: { type: "boolean" } } },
      optlistlit: { type: ["array", "null"], items: { type: "string", enum: ["a", "b"] } },
      listopt: { type: "array", items: { type: ["integer", "null"] } },
      kw: { type: "string", default: "k" },
      d_int: { type: "integer", default: 3 },
      d_float: { type: "number", default: 0.5 },
      d_float_int: { type: "number", default: 2 },
      d_bool: { type: "boolean", default: false },
      d_none: { type: ["integer", "null"], default: null },
      d_list: { type: "array", items: { type: "string" }, default: ["x"] },
      d_tuple: { type: "array", items: { type: "integer" }, default: [1, 2] },
      d_lit: { type: "string", enum: ["basic", "pro"], default: "pro" },
    });
  });

  it("resolves string annotations (from __future__ import annotations) and supports dataclasses in the file", () => {
    const src =
      "from __future__ import annotations\nfrom dataclasses import dataclass\n" +
      toolsFile(`
@dataclass
class Row:
    id: int

@edge_tool
def f(a: Optional[list[Literal["a", "b"]]], b: int | None = None, c: "list[str]" = []) -> Row:
    """  \n   First line wins.  \n  More text."""
    return Row(1)
`);
    const r = discover(src);
    expect(r.errors).toEqual([]);
    expect(r.tools[0].schema.description).toBe("First line wins.");
    expect(r.tools[0].schema.parameters.properties).toEqual({
      a: { type: ["array", "null"], items: { type: "string", enum: ["a", "b"] } },
      b: { type: ["integer", "null"], default: null },
      c: { type: "array", items: { type: "string" }, default: [] },
    });
  });

  it("reports the full tool entry: schema, metadata, def line (not the decorator line)", () => {
    const src = toolsFile(`@edge_tool(
    name="fee_quote",
    description="Quote a fee.",
    intent_tags=["billing", "quote"],
    permissions=["read_local"],
    execution_level="prepare",
    return_direct=True,
    output_schema={"type": "object", "properties": {"fee": {"type": "number"}}, "additionalProperties": False},
)
def calculate_fee(amount: float) -> dict:
    return {"fee": amount}

@edge_tool
def plain() -> str:
    return "x"
`);
    const r = discover(src);
    expect(r.ok).toBe(true);
    expect(r.tools).toEqual([
      {
        schema: {
          name: "fee_quote",
          description: "Quote a fee.",
          parameters: {
            type: "object",
            properties: { amount: { type: "number" } },
            required: ["amount"],
            additionalProperties: false,
          },
          execution_level: "prepare",
          return_direct: true,
          output_schema: { type: "object", properties: { fee: { type: "number" } }, additionalProperties: false },
        },
        intent_tags: ["billing", "quote"],
        permissions: ["read_local"],
        line: 13,
      },
      {
        schema: {
          name: "plain",
          description: "",
          parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
          execution_level: "read",
          return_direct: false,
          output_schema: null,
        },
        intent_tags: [],
        permissions: [],
        line: 17,
      },
    ]);
  });

  it("lists tools in definition order and ignores decorated functions whose __module__ is another module", () => {
    const src = toolsFile(`
from edgestudio.tools import edge_tool as et

def imported() -> str: return "i"
imported.__module__ = "some_library"  # what a function imported from elsewhere looks like
edge_tool(imported)

@edge_tool
def zeta() -> str: return "z"

@et()
def alpha() -> str: return "a"

def helper(): pass
`);
    const r = discover(src);
    expect(r.errors).toEqual([]);
    expect(r.tools.map((t: Reply) => t.schema.name)).toEqual(["zeta", "alpha"]);
  });
});

interface Case {
  title: string;
  body: string;
  code: keyof typeof ERRORS;
  tool?: string;
  parameter?: string;
  mention?: string;
  line?: number;
  raw?: boolean;
}

// One focused snippet per refusal. `line` counts from the first line of the body (toolsFile adds 3 lines).
const CASES: Case[] = [
  {
    title: "missing annotation",
    body: "@edge_tool\ndef t(x) -> str: ...",
    code: "missing_parameter_type_hint",
    tool: "t",
    parameter: "x",
  },
  {
    title: "dict",
    body: "@edge_tool\ndef t(x: dict) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
    mention: "dict",
  },
  {
    title: "bare list",
    body: "@edge_tool\ndef t(x: list) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
    mention: "list",
  },
  {
    title: "bare typing.List",
    body: "@edge_tool\ndef t(x: List) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
    mention: "List",
  },
  {
    title: "tuple",
    body: "@edge_tool\ndef t(x: tuple[int, int]) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
    mention: "tuple[int, int]",
  },
  {
    title: "Any",
    body: "@edge_tool\ndef t(x: Any) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
    mention: "Any",
  },
  {
    title: "dataclass",
    body: "from dataclasses import dataclass\n@dataclass\nclass Pt:\n    x: int\n@edge_tool\ndef t(p: Pt) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "p",
    mention: "Pt",
  },
  {
    title: "Union[int, str]",
    body: "@edge_tool\ndef t(x: Union[int, str]) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
    mention: "Union[int, str]",
  },
  {
    title: "int | str | None",
    body: "@edge_tool\ndef t(x: int | str | None) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
  },
  {
    title: "mixed Literal[True, 1]",
    body: "@edge_tool\ndef t(x: Literal[True, 1]) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
    mention: "Literal[True, 1]",
  },
  {
    title: 'mixed Literal["a", 1]',
    body: '@edge_tool\ndef t(x: Literal["a", 1]) -> str: ...',
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
  },
  {
    title: "Literal integer beyond 2**53-1",
    body: "@edge_tool\ndef t(x: Literal[2**53]) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
    mention: "2**53-1",
  },
  {
    title: "int default beyond 2**53-1",
    body: "@edge_tool\ndef t(x: int = 2**53) -> str: ...",
    code: "invalid_parameter_default",
    tool: "t",
    parameter: "x",
  },
  {
    title: "Optional[dict]",
    body: "@edge_tool\ndef t(x: Optional[dict] = None) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
    mention: "dict",
  },
  {
    title: "list[dict]",
    body: "@edge_tool\ndef t(x: list[dict]) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
  },
  {
    title: "*args",
    body: "@edge_tool\ndef t(*args: str) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "args",
    mention: "*args",
  },
  {
    title: "**kwargs",
    body: "@edge_tool\ndef t(**kwargs: str) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "kwargs",
    mention: "**kwargs",
  },
  {
    title: "positional-only",
    body: "@edge_tool\ndef t(x: str, /) -> str: ...",
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
    mention: "positional-only",
  },
  {
    title: "unresolvable string annotation",
    body: '@edge_tool\ndef t(x: "Nope") -> str: ...',
    code: "unsupported_type_hint",
    tool: "t",
    parameter: "x",
    mention: "Nope",
  },
  {
    title: "None default on str",
    body: "@edge_tool\ndef t(x: str = None) -> str: ...",
    code: "invalid_parameter_default",
    tool: "t",
    parameter: "x",
  },
  {
    title: "default outside Literal",
    body: '@edge_tool\ndef t(x: Literal["a"] = "b") -> str: ...',
    code: "invalid_parameter_default",
    tool: "t",
    parameter: "x",
  },
  {
    title: "bool default on int",
    body: "@edge_tool\ndef t(x: int = True) -> str: ...",
    code: "invalid_parameter_default",
    tool: "t",
    parameter: "x",
  },
  {
    title: "nan default on float",
    body: "@edge_tool\ndef t(x: float = float('nan')) -> str: ...",
    code: "invalid_parameter_default",
    tool: "t",
    parameter: "x",
  },
  {
    title: "duplicate function names",
    body: "@edge_tool\ndef t() -> str: ...\n@edge_tool\ndef t() -> str: ...",
    code: "duplicate_tool_name",
    tool: "t",
    line: 4,
  },
  {
    title: "duplicate via name=",
    body: '@edge_tool\ndef a() -> str: ...\n@edge_tool(name="a")\ndef b() -> str: ...',
    code: "duplicate_tool_name",
    tool: "a",
    line: 4,
  },
  {
    title: "name starting with a digit",
    body: '@edge_tool(name="1abc")\ndef t() -> str: ...',
    code: "invalid_tool_name",
    tool: "1abc",
    line: 2,
  },
  {
    title: "65-character name",
    body: `@edge_tool(name="${"a".repeat(65)}")\ndef t() -> str: ...`,
    code: "invalid_tool_name",
    tool: "a".repeat(65),
  },
  {
    title: "name with a dash",
    body: '@edge_tool(name="a-b")\ndef t() -> str: ...',
    code: "invalid_tool_name",
    tool: "a-b",
  },
  {
    title: "non-ASCII function name",
    body: "@edge_tool\ndef fée() -> str: ...",
    code: "invalid_tool_name",
    tool: "fée",
  },
  {
    title: "return_direct without output_schema",
    body: "@edge_tool(return_direct=True)\ndef t() -> dict: ...",
    code: "return_direct_output_schema_required",
    tool: "t",
  },
  {
    title: "prepare without return_direct",
    body: '@edge_tool(execution_level="prepare", output_schema={"type": "object", "properties": {}, "additionalProperties": False})\ndef t() -> dict: ...',
    code: "return_direct_output_schema_required",
    tool: "t",
  },
  {
    title: "commit without output_schema",
    body: '@edge_tool(execution_level="commit", return_direct=True)\ndef t() -> dict: ...',
    code: "return_direct_output_schema_required",
    tool: "t",
  },
  {
    title: "output_schema not closed",
    body: '@edge_tool(return_direct=True, output_schema={"type": "object", "properties": {}})\ndef t() -> dict: ...',
    code: "invalid_output_schema",
    tool: "t",
  },
  {
    title: "output_schema additionalProperties truthy-but-not-False",
    body: '@edge_tool(output_schema={"type": "object", "properties": {}, "additionalProperties": 0})\ndef t() -> dict: ...',
    code: "invalid_output_schema",
    tool: "t",
  },
  {
    title: "output_schema not a dict",
    body: "@edge_tool(output_schema=[1])\ndef t() -> dict: ...",
    code: "invalid_output_schema",
    tool: "t",
  },
  {
    title: "unknown execution_level",
    body: '@edge_tool(execution_level="write")\ndef t() -> dict: ...',
    code: "invalid_execution_level",
    tool: "t",
    mention: "write",
  },
  {
    title: 'permissions=["network"]',
    body: '@edge_tool(permissions=["network"])\ndef t() -> dict: ...',
    code: "unsupported_permission",
    tool: "t",
    mention: "network",
  },
  {
    title: "intent_tags as a string",
    body: '@edge_tool(intent_tags="billing")\ndef t() -> dict: ...',
    code: "invalid_tool_metadata",
    tool: "t",
  },
  {
    title: "description not a string",
    body: "@edge_tool(description=3)\ndef t() -> dict: ...",
    code: "invalid_tool_metadata",
    tool: "t",
  },
  {
    title: "return_direct not a bool",
    body: '@edge_tool(return_direct="yes")\ndef t() -> dict: ...',
    code: "invalid_tool_metadata",
    tool: "t",
  },
  {
    title: "positional decorator argument",
    body: '@edge_tool("fee")\ndef t() -> dict: ...',
    code: "invalid_tool_metadata",
    tool: "t",
    mention: "name='fee'",
  },
  {
    title: "unknown decorator option",
    body: '@edge_tool(intent_tag=["x"])\ndef t() -> dict: ...',
    code: "invalid_tool_metadata",
    tool: "t",
    mention: "intent_tag",
  },
  {
    title: "async function",
    body: "@edge_tool\nasync def t() -> dict: ...",
    code: "invalid_tool_definition",
    tool: "t",
  },
  {
    title: "generator function",
    body: "@edge_tool\ndef t() -> dict:\n    yield 1",
    code: "invalid_tool_definition",
    tool: "t",
  },
  {
    title: "method in a class",
    body: "class K:\n    @edge_tool\n    def t(self) -> dict: ...",
    code: "invalid_tool_definition",
    tool: "t",
  },
  { title: "decorated class", body: "@edge_tool\nclass T:\n    pass", code: "invalid_tool_definition", tool: "T" },
];

describe.skipIf(!HAS_PYTHON)(`discover: every authoring error code (CPython)${SKIP_REASON}`, () => {
  let replies: Reply[];
  beforeAll(() => {
    replies = runJobs(CASES.map((c) => ({ op: "discover", source: toolsFile(c.body) })));
  });

  it.each(CASES.map((c, i) => [c.title, c, i] as const))("%s", (_title, c, i) => {
    const r = replies[i];
    expect(r.ok).toBe(false);
    expect(r.errors.length).toBeGreaterThan(0);
    const err = r.errors.find((e: Reply) => e.code === c.code);
    expect(err, JSON.stringify(r.errors)).toBeTruthy();
    expect(Object.keys(ERRORS)).toContain(err.code);
    if (c.tool !== undefined) expect(err.tool).toBe(c.tool);
    if (c.parameter !== undefined) expect(err.parameter).toBe(c.parameter);
    if (c.mention !== undefined) expect(err.message).toContain(c.mention);
    if (c.line !== undefined) expect(err.line).toBe(c.line + 3);
    expect(typeof err.line).toBe("number");
    expect(err.message.length).toBeGreaterThan(20);
    // A tool with errors is never listed.
    expect(r.tools.map((t: Reply) => t.schema.name)).not.toContain(c.tool);
  });

  it("keeps valid tools beside a broken one and reports errors for the broken one only", () => {
    const r = discover(
      toolsFile("@edge_tool\ndef good(x: int) -> int: return x\n@edge_tool\ndef bad(x: dict) -> int: return 1\n"),
    );
    expect(r.ok).toBe(false);
    expect(r.tools.map((t: Reply) => t.schema.name)).toEqual(["good"]);
    expect(r.errors.map((e: Reply) => [e.code, e.tool])).toEqual([["unsupported_type_hint", "bad"]]);
  });
});

describe.skipIf(!HAS_PYTHON)(`discover: file-level refusals (CPython)${SKIP_REASON}`, () => {
  it("a syntax error is tools_file_import_failed with the user's line", () => {
    const r = discover("x = 1\n\ndef broken(:\n    pass\n", { filename: "my_tools.py" });
    expect(r.ok).toBe(false);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].code).toBe("tools_file_import_failed");
    expect(r.errors[0].line).toBe(3);
    expect(r.errors[0].message).toContain("SyntaxError");
    expect(r.errors[0].message).toContain("my_tools.py");
  });

  it("a top-level exception is tools_file_import_failed with its line, and print() before it is captured", () => {
    const r = discover(toolsFile('print("booting")\nconfig = {}\nvalue = config["missing"]\n'));
    expect(r.errors[0].code).toBe("tools_file_import_failed");
    expect(r.errors[0].line).toBe(6);
    expect(r.errors[0].message).toContain("KeyError: 'missing'");
    expect(r.stderr).toBe("booting\n");
    expect(r.tools).toEqual([]);
  });

  it("sys.exit() at top level is an import failure, not a dead interpreter", () => {
    const r = discover(toolsFile("import sys\nsys.exit(3)\n"));
    expect(r.errors[0].code).toBe("tools_file_import_failed");
    expect(r.errors[0].message).toContain("sys.exit(3)");
  });

  it("a file without tools is valid with a no_tools_found warning", () => {
    const r = discover("def helper():\n    return 1\n");
    expect(r.ok).toBe(true);
    expect(r.errors).toEqual([]);
    expect(r.tools).toEqual([]);
    expect(r.warnings.map((w: Reply) => w.code)).toEqual(["no_tools_found"]);
  });

  it("non-UTF-8 bytes are tools_file_not_utf8", () => {
    const bytes = Buffer.concat([Buffer.from("# caf"), Buffer.from([0xe9]), Buffer.from("\nx = 1\n")]);
    const r = runJobs([{ op: "discover", source_b64: bytes.toString("base64") }])[0];
    expect(r.errors.map((e: Reply) => e.code)).toEqual(["tools_file_not_utf8"]);
    expect(r.tools_file_sha256).toBe(sha256Hex(bytes));
  });

  it("a 5 MB file is tools_file_too_large; exactly 1 MiB is accepted", () => {
    const big = "# " + "x".repeat(5 * 1024 * 1024) + "\n";
    const limit = "#" + "x".repeat(1024 * 1024 - 2) + "\n";
    const [r, ok] = runJobs([
      { op: "discover", source: big },
      { op: "discover", source: limit },
    ]);
    expect(r.errors.map((e: Reply) => e.code)).toEqual(["tools_file_too_large"]);
    expect(ok.errors).toEqual([]);
    expect(ok.warnings.map((w: Reply) => w.code)).toEqual(["no_tools_found"]);
  });

  it("a hash mismatch is tools_file_changed and nothing is imported (no top-level side effect)", async () => {
    const { mkdtempSync, existsSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const path = await import("node:path");
    const marker = path.join(mkdtempSync(path.join(tmpdir(), "edge-")), "imported");
    const src = toolsFile(`open(${JSON.stringify(marker)}, "w").write("x")\n@edge_tool\ndef t() -> str: return "x"\n`);
    const wrong = sha256Hex(src + " ");
    const changed = runJobs([{ op: "discover", source: src, sha: wrong }])[0];
    expect(changed.ok).toBe(false);
    expect(changed.errors.map((e: Reply) => e.code)).toEqual(["tools_file_changed"]);
    expect(changed.tools).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    const callChanged = runJobs([{ op: "call", source: src, sha: wrong, tool: "t", args: "{}" }])[0];
    expect(callChanged.error.code).toBe("tools_file_changed");
    expect(callChanged.tools_file_sha256_verified).toBe(false);
    expect(existsSync(marker)).toBe(false);
    // The same file with the right hash does run its top level: the check above could fail.
    expect(discover(src).ok).toBe(true);
    expect(existsSync(marker)).toBe(true);
  });

  it("a malformed expected hash is runner_job_invalid", () => {
    const r = discover("x = 1\n", { sha: "deadbeef" });
    expect(r.errors.map((e: Reply) => e.code)).toEqual(["runner_job_invalid"]);
  });
});

describe.skipIf(!HAS_PYTHON)(`discover: no state between jobs (CPython)${SKIP_REASON}`, () => {
  it("two discovers in one interpreter do not see each other, and nothing is left behind", () => {
    const a = toolsFile('COUNTER = []\n@edge_tool\ndef a() -> str: return "a"\n');
    const b = toolsFile('@edge_tool\ndef b() -> str: return "b"\n');
    const [ra, rb, ra2, state] = runJobs([
      { op: "discover", source: a },
      { op: "discover", source: b },
      { op: "discover", source: a },
      { op: "state" },
    ]);
    expect(ra.tools.map((t: Reply) => t.schema.name)).toEqual(["a"]);
    expect(rb.tools.map((t: Reply) => t.schema.name)).toEqual(["b"]);
    expect(ra2).toEqual(ra);
    expect(state).toEqual({ module: false, collector: false, stdout_restored: true, user_modules: [] });
  });
});
