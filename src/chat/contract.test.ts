import { describe, expect, it } from "vitest";
import { canonicalJson } from "../contract/hash.ts";
import type { ToolSchema } from "../contract/types.ts";
import { contractLine, renderToolContract, renderToolResult, toolResultOf, TOOL_CONTRACT_VERSION } from "./contract.ts";

const tool = (name: string, description: string, extra: Partial<ToolSchema> = {}): ToolSchema =>
  ({
    name,
    description,
    parameters: {
      type: "object",
      properties: { amount: { type: "number" }, tier: { type: "string", enum: ["basic", "pro"], default: "basic" } },
      required: ["amount"],
      additionalProperties: false,
    },
    execution_level: "commit",
    return_direct: true,
    output_schema: { type: "object", properties: { fee: { type: "number" } } },
    ...extra,
  }) as ToolSchema;

describe("the tool contract", () => {
  const schemas = [tool("zeta", "Last."), tool("alpha", "First."), tool("blank", "")];
  const text = renderToolContract(schemas, 3);

  it("names every tool as a signature with its description, sorted, one per line", () => {
    const lines = text.split("\n");
    expect(lines.filter((l) => l.startsWith("- ")).map((l) => l.slice(2, l.indexOf("(")))).toEqual([
      "alpha",
      "blank",
      "zeta",
    ]);
    expect(contractLine(tool("zeta", "Last."))).toBe('- zeta(amount: number, tier: "basic" | "pro" = "basic"): Last.');
    expect(contractLine(tool("blank", ""))).toBe('- blank(amount: number, tier: "basic" | "pro" = "basic")');
  });

  it("gives a parameter's own description on an indented line under its tool", () => {
    const described = tool("fee", "A fee.", {
      parameters: {
        type: "object",
        properties: { amount: { type: "number", description: "In cents." } },
        required: ["amount"],
        additionalProperties: false,
      },
    });
    expect(contractLine(described)).toBe("- fee(amount: number): A fee.\n    amount: In cents.");
  });

  it("says in JSON Schema what a signature cannot say, never dropping it", () => {
    const patterned = tool("code", "", {
      parameters: {
        type: "object",
        properties: { id: { type: "string", pattern: "^[a-z]+$" } },
        required: ["id"],
        additionalProperties: false,
      },
    });
    expect(contractLine(patterned)).toBe(
      `- code(id: JSON Schema ${canonicalJson({ type: "string", pattern: "^[a-z]+$" })})`,
    );
  });

  it("states the call format, when to answer instead, the call budget, and carries its version", () => {
    expect(text).toContain(TOOL_CONTRACT_VERSION);
    expect(text).toContain('{"tool_name": "<tool name>", "arguments": {"<parameter>": <value>}}');
    expect(text).toContain("leave out a parameter to use its default");
    expect(text).toContain("reply to the person in plain text instead");
    expect(text).toContain("At most 3 calls per question.");
  });

  it("leaves out what the model never writes: output schemas, execution levels, return_direct", () => {
    expect(text).not.toContain("output_schema");
    expect(text).not.toContain("execution_level");
    expect(text).not.toContain("return_direct");
  });

  it("is byte-deterministic: the same tools in any order give the same text", () => {
    expect(renderToolContract([...schemas].reverse(), 3)).toBe(text);
  });

  it("hands a result back as one line the scripted demo can read again, old form too", () => {
    const message = renderToolResult("add", { sum: 5, note: "a: b" });
    expect(message).toBe('Result of add: {"note":"a: b","sum":5}');
    expect(toolResultOf(message)).toEqual({ sum: 5, note: "a: b" });
    expect(toolResultOf('Tool result for add:\n{"sum":5}')).toEqual({ sum: 5 });
    expect(toolResultOf("not JSON")).toBe("not JSON");
  });
});
