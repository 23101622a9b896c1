import { describe, expect, it } from "vitest";
import { canonicalJson } from "../contract/hash.ts";
import type { ToolSchema } from "../contract/types.ts";
import { contractLine, renderToolContract, TOOL_CONTRACT_VERSION } from "./contract.ts";

const tool = (name: string, description: string, extra: Partial<ToolSchema> = {}): ToolSchema =>
  ({
    name,
    description,
    parameters: { type: "object", properties: { amount: { type: "number" }, tier: { type: "string", enum: ["basic", "pro"], default: "basic" } }, required: ["amount"], additionalProperties: false },
    execution_level: "commit",
    return_direct: true,
    output_schema: { type: "object", properties: { fee: { type: "number" } } },
    ...extra,
  }) as ToolSchema;

describe("the tool contract", () => {
  const schemas = [tool("zeta", "Last."), tool("alpha", "First."), tool("blank", "")];
  const text = renderToolContract(schemas, 3);

  it("names every tool with its description and the exact JSON Schema of its arguments, sorted, one per line", () => {
    const lines = text.split("\n");
    const toolLines = lines.slice(lines.length - 3);
    expect(toolLines.map((l) => (JSON.parse(l) as { name: string }).name)).toEqual(["alpha", "blank", "zeta"]);
    for (const s of schemas) {
      const line = JSON.parse(contractLine(s)) as Record<string, unknown>;
      expect(line["parameters"]).toEqual(s.parameters);
      expect(contractLine(s)).toContain(canonicalJson(s.parameters));
      expect(line["description"]).toBe(s.description || undefined);
    }
  });

  it("states the call format, the rules and the call budget, and carries its version", () => {
    expect(text).toContain(TOOL_CONTRACT_VERSION);
    expect(text).toContain('{"tool_name": "<one of the tool names below>", "arguments": {<arguments matching that tool\'s parameters>}}');
    expect(text).toContain("no extra keys");
    expect(text).toContain("At most 3 tool calls per question.");
    expect(text).toContain('do not start the answer with "{"');
  });

  it("leaves out what the model never writes: output schemas, execution levels, return_direct", () => {
    expect(text).not.toContain("output_schema");
    expect(text).not.toContain("execution_level");
    expect(text).not.toContain("return_direct");
  });

  it("is byte-deterministic: the same tools in any order give the same text", () => {
    expect(renderToolContract([...schemas].reverse(), 3)).toBe(text);
  });
});
