// Discovery through the real runner (Pyodide 3.14 in runner processes), then the host-side checks:
// the type table, every refusal, selection and limits. CPython cross-checks live in test/python.
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createNodeRunnerHost } from "../runner/node.ts";
import { analyzeToolset, freezeReport, freezeToolset, MAX_TOOLS_FILE_BYTES } from "./freeze.ts";
import { inspect, memorySource, validate } from "./inspect.ts";

const host = createNodeRunnerHost({ spares: 1 });
afterAll(() => host.close());
const example = (name: string) => readFileSync(new URL(`../../public/examples/${name}`, import.meta.url), "utf8");
const HEADER = "from typing import List, Literal, Optional, Union\nfrom edgestudio.tools import edge_tool\n\n";

describe("discovery in Pyodide", () => {
  it("the whole type table, defaults, and string annotations", async () => {
    const src = `from __future__ import annotations\n${HEADER}@edge_tool
def t(a: str, b: int, c: float, d: bool, e: Literal["x", "y"], f: Optional[int], g: int | None, h: Union[str, None],
      i: list[str], j: List[list[int]], k: Optional[list[Literal["p", "q"]]] = None, l: float = 1.5, m: Literal[1, 2] = 2) -> dict:
    """First line is the description.

    More text that is not."""
    return {}
`;
    const r = await inspect(memorySource("types.py", src), { host });
    expect(r.errors).toEqual([]);
    const schema = r.tools[0]!.schema;
    expect(schema.description).toBe("First line is the description.");
    expect(schema.parameters).toEqual({
      type: "object",
      properties: {
        a: { type: "string" },
        b: { type: "integer" },
        c: { type: "number" },
        d: { type: "boolean" },
        e: { type: "string", enum: ["x", "y"] },
        f: { type: ["integer", "null"] },
        g: { type: ["integer", "null"] },
        h: { type: ["string", "null"] },
        i: { type: "array", items: { type: "string" } },
        j: { type: "array", items: { type: "array", items: { type: "integer" } } },
        k: { type: ["array", "null"], items: { type: "string", enum: ["p", "q"] }, default: null },
        l: { type: "number", default: 1.5 },
        m: { type: "integer", enum: [1, 2], default: 2 },
      },
      required: ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"],
      additionalProperties: false,
    });
    expect(schema).toMatchObject({ name: "t", execution_level: "read", return_direct: false, output_schema: null });
  });

  it("every refusal of tools_invalid.py has its code, naming tool, parameter and line", async () => {
    const r = await validate(memorySource("tools_invalid.py", example("tools_invalid.py")), { host });
    expect(r.ok).toBe(false);
    expect(r.tool_count).toBe(0);
    const commented = new Set([...example("tools_invalid.py").matchAll(/^# ([a-z_]+):/gm)].map((m) => m[1]));
    const found = new Set(r.errors.map((e) => e.code));
    for (const code of commented) expect(found, code).toContain(code);
    const missing = r.errors.find((e) => e.code === "missing_parameter_type_hint")!;
    expect(missing).toMatchObject({ tool: "no_hint", parameter: "order_id" });
    expect(missing.line).toBeGreaterThan(1);
  });

  it("file-level refusals: syntax error and top-level exception with line, non-UTF-8, too large, no tools", async () => {
    const syntax = await validate(memorySource("s.py", "x = 1\ndef broken(:\n"), { host });
    expect(syntax.errors[0]).toMatchObject({ code: "tools_file_import_failed", line: 2 });
    const raising = await validate(memorySource("r.py", "x = 1\n\nraise RuntimeError('boom at import')\n"), { host });
    expect(raising.errors[0]).toMatchObject({ code: "tools_file_import_failed", line: 3 });
    expect(raising.errors[0]!.message).toContain("boom at import");
    const latin1 = await validate(memorySource("l.py", new Uint8Array([0x23, 0x20, 0xe9, 0x0a])), { host });
    expect(latin1.errors[0]!.code).toBe("tools_file_not_utf8");
    const huge = await validate(memorySource("h.py", "#".repeat(5 * 1024 * 1024)), { host });
    expect(huge.errors[0]!.code).toBe("tools_file_too_large");
    expect(MAX_TOOLS_FILE_BYTES).toBe(1024 * 1024);
    const none = await validate(memorySource("n.py", "x = 1\n"), { host });
    expect(none).toMatchObject({ ok: true, tool_count: 0 });
    expect(none.warnings.map((w) => w.code)).toEqual(["no_tools_found"]);
  });

  it("an output_schema that is closed but does not compile in ajv strict mode is refused by the host", async () => {
    const src = `${HEADER}@edge_tool(return_direct=True, output_schema={"type": "object", "properties": {"a": {"type": "strnig"}}, "additionalProperties": False})
def bad() -> dict:
    return {"a": "x"}
`;
    const r = await validate(memorySource("o.py", src), { host });
    expect(r.errors).toMatchObject([{ code: "invalid_output_schema", tool: "bad" }]);
  });

  it("more than 8 tools need --tool/--tool-tag; unknown names are refused; hashes are stable", async () => {
    const many =
      HEADER +
      Array.from(
        { length: 9 },
        (_, i) => `@edge_tool(intent_tags=[${i < 2 ? '"two"' : '"rest"'}])\ndef t${i}() -> str:\n    return "${i}"\n`,
      ).join("\n");
    const all = await analyzeToolset(memorySource("m.py", many), host);
    expect(all.errors.map((e) => e.code)).toEqual(["active_tool_limit_exceeded"]);
    const two = await freezeToolset(memorySource("m.py", many), host, { toolTag: ["two"] });
    expect(two.active.map((t) => t.schema.name)).toEqual(["t0", "t1"]);
    const byName = await freezeToolset(memorySource("m.py", many), host, { tool: ["t1", "t0"] });
    expect(byName.active_set_sha256).toBe(two.active_set_sha256);
    await expect(freezeToolset(memorySource("m.py", many), host, { tool: ["t9"] })).rejects.toMatchObject({
      code: "unknown_tool",
    });
  });
});

describe("freezing a report under another selection", () => {
  it("a file with 9 tools is valid; the limit is a selection problem another selection fixes without a second discovery", async () => {
    const many =
      HEADER +
      Array.from(
        { length: 9 },
        (_, i) => `@edge_tool(intent_tags=[${i < 2 ? '"two"' : '"rest"'}])\ndef t${i}() -> str:\n    return "${i}"\n`,
      ).join("\n");
    const source = memorySource("m.py", many);
    const report = await analyzeToolset(source, host);
    expect(report).toMatchObject({ ok: false, file_ok: true });
    expect(report.errors.map((e) => e.code)).toEqual(["active_tool_limit_exceeded"]);
    const two = await freezeReport(report, source, { toolTag: ["two"] });
    expect(two.active.map((t) => t.schema.name)).toEqual(["t0", "t1"]);
    expect(two.active_set_sha256).toBe((await freezeToolset(source, host, { tool: ["t0", "t1"] })).active_set_sha256);
    await expect(freezeReport(report, source)).rejects.toMatchObject({ code: "active_tool_limit_exceeded" });
    const broken = await analyzeToolset(memorySource("b.py", "def broken(:\n"), host);
    expect(broken.file_ok).toBe(false);
    await expect(freezeReport(broken, source, { toolTag: ["two"] })).rejects.toMatchObject({
      code: "tools_file_import_failed",
    });
  });
});
