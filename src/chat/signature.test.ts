import { describe, expect, it } from "vitest";
import { canonicalJson } from "../contract/hash.ts";
import { parameterNotes, schemaType, toolSignature } from "./signature.ts";

const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

describe("a tool's signature", () => {
  it("keeps the function's parameter order and says required, defaulted and optional apart", () => {
    const params = object(
      { sku: { type: "string" }, quantity: { type: "integer", default: 1 }, note: { type: "string" } },
      ["sku"],
    );
    expect(toolSignature("prepare_order", params)).toBe(
      "prepare_order(sku: string, quantity: integer = 1, note?: string)",
    );
    expect(toolSignature("hello_world", object({}))).toBe("hello_world()");
  });

  it("writes enums, consts, unions with null, bounds and arrays the way code reads", () => {
    expect(schemaType({ type: "string", enum: ["basic", "pro"] })).toBe('"basic" | "pro"');
    expect(schemaType({ const: 3 })).toBe("3");
    expect(schemaType({ anyOf: [{ type: "string" }, { type: "null" }] })).toBe("string | null");
    expect(schemaType({ type: ["number", "null"] })).toBe("number | null");
    expect(schemaType({ type: "integer", minimum: 1, maximum: 10 })).toBe("integer 1..10");
    expect(schemaType({ type: "number", minimum: 0 })).toBe("number ≥ 0");
    expect(schemaType({ type: "string", maxLength: 80 })).toBe("string ≤ 80 chars");
    expect(schemaType({ type: "array", items: { type: "string" }, maxItems: 3 })).toBe("string[] ≤ 3 items");
    expect(schemaType({ type: "array", items: { enum: ["a", "b"] } })).toBe('("a" | "b")[]');
    expect(schemaType({ type: "array" })).toBe("any[]");
    expect(schemaType({})).toBe("any");
  });

  it("writes a closed object as its fields, and an open one as JSON Schema (a signature cannot say other keys are allowed)", () => {
    expect(schemaType(object({ x: { type: "number" }, y: { type: "number", default: 0 } }, ["x"]))).toBe(
      "{x: number, y: number = 0}",
    );
    const open = { type: "object", properties: { x: { type: "number" } } };
    expect(schemaType(open)).toBe(`JSON Schema ${canonicalJson(open)}`);
    expect(schemaType({ type: "object" })).toBe("object");
  });

  it("gives in JSON Schema, whole, whatever a signature cannot say", () => {
    const pattern = { type: "string", pattern: "^[A-Z]-\\d+$" };
    expect(schemaType(pattern)).toBe(`JSON Schema ${canonicalJson(pattern)}`);
    // A description is a parameter's own note (parameterNotes), but deeper down it is part of the schema.
    expect(schemaType({ type: "string", description: "x" }, true)).toBe("string");
    expect(schemaType({ type: "array", items: { type: "string", description: "x" } })).toBe(
      `(JSON Schema ${canonicalJson({ type: "string", description: "x" })})[]`,
    );
    const odd = { type: "object", properties: { a: { type: "string" } }, patternProperties: { "^x": {} } };
    expect(toolSignature("t", odd)).toBe(`t(arguments: JSON Schema ${canonicalJson(odd)})`);
  });

  it("lists the parameters' own descriptions for the lines under it, in order", () => {
    const params = object({
      city: { type: "string", description: "A city name." },
      days: { type: "integer" },
      unit: { type: "string", description: "" },
    });
    expect(parameterNotes(params)).toEqual(["city: A city name."]);
  });
});
