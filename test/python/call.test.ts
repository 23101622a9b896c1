// CPython cross-check of `call`: one tool, normalized results, result_sha256, failures.
import { beforeAll, describe, expect, it } from "vitest";
import canonicalize from "canonicalize";
import { HAS_PYTHON, SKIP_REASON, call, discover, runJobs, sha256Hex, toolsFile, type Reply } from "./pyrun.ts";

const TOOLS = toolsFile(`
import sys
from collections import OrderedDict
from enum import IntEnum

class Level(IntEnum):
    HIGH = 2

CALLS = []  # module state: must not survive into the next job

@edge_tool
def echo(amount: float, tier: Literal["basic", "pro"] = "basic", note: Optional[str] = None, xs: list[float] = []) -> dict:
    CALLS.append(amount)
    return {"amount": amount, "is_float": isinstance(amount, float), "tier": tier, "note": note,
            "xs_float": all(isinstance(x, float) for x in xs), "calls": len(CALLS)}

@edge_tool
def scalar(kind: str) -> str:
    values = {"str": "hi", "int": 7, "float": 0.1, "bool": True, "none": None, "list": [1, "a", None]}
    return values[kind]

@edge_tool
def bad(kind: str) -> dict:
    if kind == "set": return {"v": {1, 2}}
    if kind == "bytes": return {"v": b"x"}
    if kind == "object": return {"v": object()}
    if kind == "nan": return {"v": float("nan")}
    if kind == "inf": return {"v": float("-inf")}
    if kind == "bigint": return {"v": 2**53}
    if kind == "intkeys": return {1: "a"}
    if kind == "nested": return {"a": [{"b": [1, {"c": {2, 3}}]}]}
    if kind == "cycle":
        d = {}
        d["self"] = d
        return d
    if kind == "surrogate": return {"v": "\\ud800"}
    if kind == "coroutine_like": return {"v": print}
    return {}

@edge_tool
def fine(kind: str) -> dict:
    if kind == "big_string": return {"s": "x" * 100_000}
    if kind == "max_int": return {"n": 2**53 - 1, "m": -(2**53 - 1)}
    if kind == "subclasses": return OrderedDict(level=Level.HIGH, t=(1, 2), nested={"k": [True, None, -0.0, 1e21]})
    if kind == "unicode": return {"é": "ü", "😀": "\\u2028", "ctrl": "\\x01\\n"}
    return {}

@edge_tool
def boom(n: int) -> dict:
    def inner(x):
        return 10 // x
    print("about to divide")
    return {"v": inner(n)}

@edge_tool
def exits(code: int) -> dict:
    sys.exit(code)

@edge_tool
def chatty(mb: int) -> dict:
    chunk = "y" * 1024
    for _ in range(mb * 1024):
        print(chunk)
    sys.stderr.write("to stderr\\n")
    return {"done": True}

@edge_tool
def bytes_out() -> dict:
    sys.stdout.buffer.write(b"raw bytes\\n")
    return {}
`);

describe.skipIf(!HAS_PYTHON)(`call (CPython)${SKIP_REASON}`, () => {
  it("runs only the named tool with keyword arguments; ints for float params arrive as floats", () => {
    const r = call(TOOLS, "echo", { amount: 250, tier: "pro", xs: [1, 2.5] });
    expect(r.ok).toBe(true);
    expect(r.tools_file_sha256_verified).toBe(true);
    expect(r.result).toEqual({ amount: 250, is_float: true, tier: "pro", note: null, xs_float: true, calls: 1 });
    expect(r.result_sha256).toBe(sha256Hex(canonicalize(r.result) as string));
    expect(r.stderr).toBe("");
  });

  it("keeps no state between two calls in one interpreter", () => {
    const [a, b, state] = runJobs([
      { op: "call", source: TOOLS, tool: "echo", args: '{"amount": 1}' },
      { op: "call", source: TOOLS, tool: "echo", args: '{"amount": 1}' },
      { op: "state" },
    ]);
    expect(a.result.calls).toBe(1);
    expect(b.result.calls).toBe(1);
    expect(b).toEqual(a);
    expect(state).toEqual({ module: false, collector: false, stdout_restored: true, user_modules: [] });
  });

  it.each([
    ["str", "hi"],
    ["int", 7],
    ["float", 0.1],
    ["bool", true],
    ["none", null],
    ["list", [1, "a", null]],
  ])("wraps a %s result as {result: v}", (kind, value) => {
    const r = call(TOOLS, "scalar", { kind });
    expect(r.ok).toBe(true);
    expect(r.result).toEqual({ result: value });
    expect(r.result_sha256).toBe(sha256Hex(canonicalize({ result: value }) as string));
  });

  describe("refuses results that are not plain JSON with unsupported_tool_result", () => {
    const kinds: [string, string][] = [
      ["set", "set"],
      ["bytes", "bytes"],
      ["object", "object"],
      ["nan", "nan"],
      ["inf", "-inf"],
      ["bigint", "9007199254740992"],
      ["intkeys", "non-string key 1"],
      ["nested", `result['a'][0]['b'][1]['c']`],
      ["cycle", "cycle"],
      ["surrogate", "surrogate"],
      ["coroutine_like", "builtin_function_or_method"],
    ];
    let replies: Reply[];
    beforeAll(() => {
      replies = runJobs(
        kinds.map(([kind]) => ({ op: "call", source: TOOLS, tool: "bad", args: JSON.stringify({ kind }) })),
      );
    });
    it.each(kinds.map((k, i) => [k[0], k[1], i] as const))("%s", (_kind, mention, i) => {
      const r = replies[i];
      expect(r.ok).toBe(false);
      expect(r.error.code).toBe("unsupported_tool_result");
      expect(r.error.message).toContain(mention);
      expect(r.result).toBeUndefined();
      expect(r.result_sha256).toBeUndefined();
    });
  });

  it("accepts a 100 KB string, ±(2^53-1), dict/int/tuple subclasses and unicode; hash matches the host's canonicalize", () => {
    const [big, maxInt, subclasses, unicode] = runJobs(
      ["big_string", "max_int", "subclasses", "unicode"].map((kind) => ({
        op: "call",
        source: TOOLS,
        tool: "fine",
        args: JSON.stringify({ kind }),
      })),
    );
    expect(big.result.s).toHaveLength(100_000);
    expect(maxInt.result).toEqual({ n: 9007199254740991, m: -9007199254740991 });
    expect(subclasses.result).toEqual({ level: 2, t: [1, 2], nested: { k: [true, null, -0, 1e21] } });
    expect(unicode.result).toEqual({ é: "ü", "😀": "\u2028", ctrl: "\u0001\n" });
    for (const r of [big, maxInt, subclasses, unicode]) {
      expect(r.ok).toBe(true);
      expect(r.result_sha256).toBe(sha256Hex(canonicalize(r.result) as string));
    }
  });

  it("an exception is tool_raised with the type, text, user line and a traceback without runner frames", () => {
    const r = call(TOOLS, "boom", { n: 0 });
    expect(r.ok).toBe(false);
    expect(r.error.code).toBe("tool_raised");
    expect(r.error.message).toContain("ZeroDivisionError: integer division or modulo by zero");
    expect(r.error.tool).toBe("boom");
    expect(r.diagnostics.traceback).toMatch(/^Traceback \(most recent call last\):/);
    expect(r.diagnostics.traceback).toContain('File "tools.py"');
    expect(r.diagnostics.traceback).toContain("return 10 // x"); // source lines are shown
    expect(r.diagnostics.traceback).not.toContain("edge_runner"); // no frame of the runner package (edge_runner/*.py)
    expect(r.error.line).toBe(TOOLS.split("\n").findIndex((l) => l.includes("return 10 // x")) + 1);
    expect(r.stderr).toBe("about to divide\n");
  });

  it("sys.exit() in a tool is tool_raised naming SystemExit, and the interpreter goes on", () => {
    const [r, after] = runJobs([
      { op: "call", source: TOOLS, tool: "exits", args: '{"code": 4}' },
      { op: "call", source: TOOLS, tool: "scalar", args: '{"kind": "int"}' },
    ]);
    expect(r.error.code).toBe("tool_raised");
    expect(r.error.message).toContain("sys.exit(4)");
    expect(r.diagnostics.traceback).toContain("SystemExit: 4");
    expect(after.result).toEqual({ result: 7 });
  });

  it("captures print() and stderr, keeps the first 64 KiB of 10 MB and says how much was cut", () => {
    const r = call(TOOLS, "chatty", { mb: 10 });
    expect(r.ok).toBe(true);
    const total = 10 * 1024 * 1025 + "to stderr\n".length;
    const marker = `\u2026[truncated ${total - 65536} bytes]`;
    expect(r.stderr.endsWith(marker)).toBe(true);
    expect(Buffer.byteLength(r.stderr.slice(0, -marker.length))).toBe(65536);
    expect(r.stderr.startsWith("y".repeat(1024) + "\n")).toBe(true);
  });

  it("captures writes to sys.stdout.buffer", () => {
    const r = call(TOOLS, "bytes_out");
    expect(r.ok).toBe(true);
    expect(r.stderr).toBe("raw bytes\n");
  });

  it("an unknown tool, a tool with discovery errors and mismatching arguments are refused before running", () => {
    const withBad = TOOLS + "\n@edge_tool\ndef broken(x: dict) -> dict:\n    return {}\n";
    const [unknown, broken, extra, missing] = runJobs([
      { op: "call", source: TOOLS, tool: "nope", args: "{}" },
      { op: "call", source: withBad, tool: "broken", args: "{}" },
      { op: "call", source: TOOLS, tool: "echo", args: '{"amount": 1, "zzz": 2}' },
      { op: "call", source: TOOLS, tool: "echo", args: "{}" },
    ]);
    expect(unknown.error.code).toBe("unknown_tool");
    expect(broken.error.code).toBe("unknown_tool");
    expect(broken.error.message).toContain("dict");
    expect(extra.error.code).toBe("invalid_tool_args");
    expect(extra.error.message).toContain("zzz");
    expect(missing.error.code).toBe("invalid_tool_args");
    expect(missing.error.message).toContain("amount");
  });

  it("a call given the tool's frozen schema_sha256 runs it; another schema is tool_schema_changed, and the tool does not run", () => {
    const [found] = runJobs([{ op: "discover", source: TOOLS }]);
    const echo = found.tools.find((t: Reply) => t.schema.name === "echo");
    const frozen = sha256Hex(canonicalize(echo.schema) as string);
    const ok = call(TOOLS, "echo", { amount: 1 }, { schema_sha: frozen });
    expect(ok.ok).toBe(true);
    const other = `sha256:${"0".repeat(64)}`;
    const refused = call(TOOLS, "boom", { n: 0 }, { schema_sha: other });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatchObject({ code: "tool_schema_changed", tool: "boom" });
    expect(refused.error.message).toContain(other);
    expect(refused.diagnostics.expected_schema_sha256).toBe(other);
    expect(refused.stderr).toBe(""); // boom prints before it divides: it never ran
  });

  it("a tools file whose schema changes between imports is refused at the call, not run with the old schema", () => {
    const drifting = toolsFile(`
import random

@edge_tool(description=f"drawn {random.random()}")
def pick(n: int) -> dict:
    print("ran")
    return {"n": n}
`);
    const found = discover(drifting);
    expect(found.ok).toBe(true);
    const frozen = sha256Hex(canonicalize(found.tools[0].schema) as string);
    const again = call(drifting, "pick", { n: 1 }, { schema_sha: frozen });
    expect(again.error.code).toBe("tool_schema_changed");
    expect(again.stderr).toBe("");
  });

  it("an import failure during call is tools_file_import_failed with a traceback", () => {
    const r = call(toolsFile("raise RuntimeError('no config')\n"), "x");
    expect(r.error.code).toBe("tools_file_import_failed");
    expect(r.error.line).toBe(4);
    expect(r.tools_file_sha256_verified).toBe(true);
    expect(r.diagnostics.traceback).toContain("RuntimeError: no config");
  });
});
