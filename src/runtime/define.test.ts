import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import { defineTool, isPythonTool, isToolDefinition } from "./define.ts";

const params = { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false };
const closed = { type: "object", properties: { ok: { type: "boolean" } }, additionalProperties: false };

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof EdgeError ? err.code : `not EdgeError: ${String(err)}`;
  }
  return undefined;
}

describe("defineTool", () => {
  it("fills defaults and returns a frozen, branded definition", () => {
    const def = defineTool({ name: "search", description: "d", parameters: params, execute: () => 1 });
    expect(def.isConcurrencySafe).toBe(false);
    expect(def.executionLevel).toBe("read");
    expect(def.returnDirect).toBe(false);
    expect(def.outputSchema).toBeNull();
    expect(Object.isFrozen(def)).toBe(true);
    expect(Object.isFrozen(def.parameters)).toBe(true);
    expect(isToolDefinition(def)).toBe(true);
    expect(isToolDefinition({ ...def })).toBe(false);
  });

  it("copies the parameters, so later mutation of the spec cannot reach the tool", () => {
    const spec = { type: "object", properties: {} as Record<string, { type: string }> };
    const def = defineTool({ name: "t", description: "", parameters: spec, execute: () => 1 });
    spec.properties["x"] = { type: "string" };
    expect(def.parameters).toEqual({ type: "object", properties: {} });
  });

  it("validates the name with the docs/contract.md §1 rule", () => {
    const make = (name: string) => () => defineTool({ name, description: "", parameters: params, execute: () => 1 });
    expect(codeOf(make("9lives"))).toBe("invalid_tool_name");
    expect(codeOf(make("has-dash"))).toBe("invalid_tool_name");
    expect(codeOf(make("a".repeat(65)))).toBe("invalid_tool_name");
    expect(codeOf(make("_" + "a".repeat(63)))).toBeUndefined();
  });

  it("refuses parameters that are not an object schema or do not compile strictly", () => {
    const make = (parameters: Record<string, never> | object) => () =>
      defineTool({ name: "t", description: "", parameters: parameters as never, execute: () => 1 });
    expect(codeOf(make({ type: "string" }))).toBe("invalid_tool_spec");
    expect(codeOf(make({ type: "object", properties: { a: { type: "strnig" } } }))).toBe("invalid_tool_spec");
    expect(codeOf(make({ type: "object", unknownKeyword: 1 }))).toBe("invalid_tool_spec");
  });

  it("applies the return_direct / prepare / commit output_schema rule", () => {
    const base = { name: "t", description: "", parameters: params, execute: () => 1 };
    expect(codeOf(() => defineTool({ ...base, returnDirect: true }))).toBe("return_direct_output_schema_required");
    expect(codeOf(() => defineTool({ ...base, executionLevel: "commit" }))).toBe(
      "return_direct_output_schema_required",
    );
    expect(codeOf(() => defineTool({ ...base, executionLevel: "nope" as never }))).toBe("invalid_execution_level");
    expect(codeOf(() => defineTool({ ...base, outputSchema: { type: "object", properties: {} } }))).toBe(
      "invalid_output_schema",
    );
    expect(codeOf(() => defineTool({ ...base, returnDirect: true, outputSchema: closed }))).toBeUndefined();
  });

  it("refuses a non-positive timeoutMs", () => {
    const base = { name: "t", description: "", parameters: params, execute: () => 1 };
    expect(codeOf(() => defineTool({ ...base, timeoutMs: 0 }))).toBe("invalid_tool_spec");
    expect(codeOf(() => defineTool({ ...base, timeoutMs: Number.NaN }))).toBe("invalid_tool_spec");
    expect(defineTool({ ...base, timeoutMs: 5 }).timeoutMs).toBe(5);
  });

  it("marks Python tools by meta.kind", () => {
    const base = { name: "t", description: "", parameters: params, execute: () => 1 };
    expect(isPythonTool(defineTool({ ...base, meta: { kind: "python" } }))).toBe(true);
    expect(isPythonTool(defineTool(base))).toBe(false);
  });
});
