import { describe, expect, it } from "vitest";
import { compileSchema } from "../contract/ajv.ts";
import type { JsonObject } from "../contract/types.ts";
import {
  TEXT_ANSWER_PATTERN,
  toolCallOrTextResponseFormat,
  toolCallOrTextStructuralTag,
  toolCallResponseFormat,
  toolCallSchema,
  type GuidedTool,
} from "./grammar.ts";

// Parameter schemas in the shape the schema generator produces (closed objects).
const feeQuote: GuidedTool = {
  name: "fee_quote",
  parameters: {
    type: "object",
    properties: { amount: { type: "number" }, currency: { type: "string", enum: ["EUR", "USD"] } },
    required: ["amount"],
    additionalProperties: false,
  },
};
const orderStatus: GuidedTool = {
  name: "order_status",
  parameters: {
    type: "object",
    properties: { order_id: { type: "string" } },
    required: ["order_id"],
    additionalProperties: false,
  },
};
const helloWorld: GuidedTool = {
  name: "hello_world",
  parameters: { type: "object", properties: {}, additionalProperties: false },
};

describe("call-union JSON schema", () => {
  const schema = toolCallSchema([orderStatus, feeQuote, helloWorld]);

  it("has one closed branch per tool: tool_name const + that tool's parameters", () => {
    const branches = schema.oneOf as JsonObject[];
    expect(branches).toHaveLength(3);
    expect(branches.map((b) => (b.properties as JsonObject).tool_name)).toEqual([
      { const: "fee_quote" },
      { const: "hello_world" },
      { const: "order_status" },
    ]);
    for (const b of branches) {
      expect(b).toMatchObject({ type: "object", required: ["tool_name", "arguments"], additionalProperties: false });
    }
    expect((branches[0]!.properties as JsonObject).arguments).toEqual(feeQuote.parameters);
  });

  it("accepts exactly the valid calls (checked with the loop's own ajv)", () => {
    const validate = compileSchema(schema);
    expect(validate({ tool_name: "fee_quote", arguments: { amount: 12.5 } })).toBe(true);
    expect(validate({ tool_name: "fee_quote", arguments: { amount: 1, currency: "EUR" } })).toBe(true);
    expect(validate({ tool_name: "hello_world", arguments: {} })).toBe(true);
    expect(validate({ tool_name: "order_status", arguments: { order_id: "A-1" } })).toBe(true);

    expect(validate({ tool_name: "fee_quote", arguments: { amount: "12" } })).toBe(false); // wrong type
    expect(validate({ tool_name: "fee_quote", arguments: {} })).toBe(false); // missing required
    expect(validate({ tool_name: "fee_quote", arguments: { amount: 1, currency: "GBP" } })).toBe(false); // enum
    expect(validate({ tool_name: "order_status", arguments: { amount: 1 } })).toBe(false); // another tool's args
    expect(validate({ tool_name: "delete_all", arguments: {} })).toBe(false); // unknown tool
    expect(validate({ tool_name: "hello_world", arguments: {}, extra: 1 })).toBe(false); // extra key
    expect(validate({ tool_name: "hello_world" })).toBe(false); // no arguments
    expect(validate([{ tool_name: "hello_world", arguments: {} }])).toBe(false); // not one call
  });

  it("needs at least one tool and unique names", () => {
    expect(() => toolCallSchema([])).toThrow(/at least one active tool/);
    expect(() => toolCallSchema([feeQuote, feeQuote])).toThrow(/twice/);
  });
});

describe("response formats", () => {
  it("(a) json_object carries the union schema as a JSON string", () => {
    const fmt = toolCallResponseFormat([feeQuote]);
    expect(fmt.type).toBe("json_object");
    expect(JSON.parse(fmt.schema!)).toEqual(toolCallSchema([feeQuote]));
  });

  it("(b) structural_tag is an `or` of that json_schema (as an object) and a plain-text regex", () => {
    const tag = toolCallOrTextStructuralTag([feeQuote, orderStatus]);
    expect(tag).toEqual({
      type: "structural_tag",
      format: {
        type: "or",
        elements: [
          { type: "json_schema", json_schema: toolCallSchema([feeQuote, orderStatus]) },
          { type: "regex", pattern: TEXT_ANSWER_PATTERN },
        ],
      },
    });
    const fmt = toolCallOrTextResponseFormat([feeQuote, orderStatus]);
    expect(fmt.type).toBe("structural_tag");
    expect(JSON.parse(fmt.structural_tag as string)).toEqual(tag);
  });

  it("the text branch takes answers and refuses anything starting with { or whitespace", () => {
    const text = new RegExp(`^(?:${TEXT_ANSWER_PATTERN})$`);
    expect(text.test("The fee is 0.25 EUR.")).toBe(true);
    expect(text.test("Line one\nline two {with braces}")).toBe(true);
    expect(text.test('{"tool_name": "fee_quote"}')).toBe(false);
    expect(text.test(' {"tool_name": "fee_quote"}')).toBe(false);
    expect(text.test("\n{")).toBe(false);
    expect(text.test("")).toBe(false);
  });

  it("is deterministic: same tools in any order → byte-identical strings", () => {
    const a = toolCallOrTextResponseFormat([feeQuote, orderStatus, helloWorld]);
    const b = toolCallOrTextResponseFormat([helloWorld, feeQuote, orderStatus]);
    const c = toolCallOrTextResponseFormat(structuredClone([orderStatus, helloWorld, feeQuote]));
    expect(a.structural_tag).toBe(b.structural_tag);
    expect(a.structural_tag).toBe(c.structural_tag);
    expect(toolCallResponseFormat([feeQuote, orderStatus]).schema).toBe(
      toolCallResponseFormat([orderStatus, feeQuote]).schema,
    );
    // …and different tools give a different string.
    expect(toolCallOrTextResponseFormat([feeQuote]).structural_tag).not.toBe(a.structural_tag);
  });

  it("keeps each tool's parameter order (xgrammar emits properties in schema order)", () => {
    const schema = JSON.parse(toolCallResponseFormat([feeQuote]).schema!) as JsonObject;
    const args = ((schema.oneOf as JsonObject[])[0]!.properties as JsonObject).arguments as JsonObject;
    expect(Object.keys(args.properties as JsonObject)).toEqual(["amount", "currency"]);
  });
});
