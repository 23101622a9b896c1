// The grammar text itself (structure, determinism, refusals). That llama.cpp accepts these
// grammars and that sampling under them yields schema-valid JSON is tested against the real
// runtime in test/engines/llamacpp-node.test.ts.
import { describe, expect, it } from "vitest";
import type { EdgeError } from "../../contract/errors.ts";
import {
  checkResponseFormat,
  textAnswerResponseFormat,
  toolCallOrTextResponseFormat,
  toolCallResponseFormat,
  TEXT_ANSWER_PATTERN,
} from "../grammar.ts";
import { gbnfForResponseFormat } from "./format.ts";
import { gbnfLiteral, jsonSchemaToGbnf } from "./gbnf.ts";

const fee = {
  name: "fee_quote",
  parameters: {
    type: "object",
    properties: {
      amount: { type: "integer", minimum: 0 },
      tier: { type: "string", enum: ["basic", "pro"] },
      note: { type: ["string", "null"], maxLength: 8 },
    },
    required: ["amount"],
    additionalProperties: false,
  },
};
const lookup = {
  name: "lookup",
  parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
};

describe("JSON Schema → GBNF", () => {
  it("literals escape quotes, backslashes and control characters, and keep other text as is", () => {
    expect(gbnfLiteral('a "b" \\ c\n\t\u0001é')).toBe('"a \\"b\\" \\\\ c\\n\\t\\x01é"');
  });

  it("an object writes required properties always and optional ones in order, commas only between", () => {
    const g = jsonSchemaToGbnf(fee.parameters);
    // amount is required: its rule has no skip branch; tier and note may be skipped.
    expect(g).toContain('v-p0 ::= "\\"amount\\": " v-amount v-p1c');
    expect(g).toContain('v-p1c ::= ", " "\\"tier\\": " ( "\\"basic\\"" | "\\"pro\\"" ) v-p2c | v-p2c');
    expect(g).toContain('v-p2c ::= ( ", " "\\"note\\": " ( v-note-string | null ) )?');
    // minimum 0: no sign; unbounded above: at most 15 digits (always below 2^53).
    expect(g).toContain('v-amount ::= ( "0" | [1-9] [0-9]{0,14} )');
    expect(g).toContain('v-note-string ::= "\\"" char{0,8} "\\""');
    expect(g.startsWith("root ::= v\n")).toBe(true);
  });

  it("numbers have no exponent, and the only whitespace is one space after each colon and comma", () => {
    const g = jsonSchemaToGbnf({
      type: "object",
      properties: {
        x: { type: "number" },
        xs: { type: "array", items: { type: "integer", minimum: -5, maximum: 5 }, maxItems: 3 },
      },
      required: ["x", "xs"],
    });
    expect(g).not.toMatch(/[eE]\]|\[ \\t|ws ::=/);
    expect(g).toContain('number ::= integer ( "." [0-9]{1,15} )?');
    expect(g).toContain('v-xs-item ::= "-"? [0-9]');
    expect(g).toContain('v-xs ::= "[" ( v-xs-item ( ", " v-xs-item ){0,2} )? "]"');
  });

  it("is deterministic: the same tools give the same grammar", () => {
    expect(gbnfForResponseFormat(toolCallResponseFormat([fee, lookup]))).toBe(
      gbnfForResponseFormat(toolCallResponseFormat([lookup, fee])),
    );
  });
});

describe("response_format → one GBNF grammar", () => {
  it("exactly one call: one branch per tool, each a closed object with the tool name as a constant", () => {
    const g = gbnfForResponseFormat(toolCallResponseFormat([fee, lookup]))!;
    expect(g.split("\n")[0]).toBe("root ::= ( v-0 | v-1 )");
    expect(g).toContain('v-0-p0 ::= "\\"tool_name\\": " "\\"fee_quote\\"" v-0-p1c');
    expect(g).toContain('v-1-p1c ::= ", " "\\"arguments\\": " "{}"');
  });

  it("a call or a plain answer: an alternation of the call grammar and text not starting with { or whitespace", () => {
    const g = gbnfForResponseFormat(toolCallOrTextResponseFormat([fee]))!;
    expect(g.split("\n")[0]).toBe("root ::= ( v-0-0 | v-1-text )");
    expect(g).toMatch(/^v-1-text ::= \[\^\{ \\t\\n\\r\\x0B\\x0C\\u00A0.*\\uFEFF\] \[\^\\x00\]\*$/m);
  });

  it("an answer only (a spent call budget): the plain-text rule alone, no call", () => {
    const g = gbnfForResponseFormat(textAnswerResponseFormat())!;
    expect(g.split("\n")[0]).toBe("root ::= v-text");
    // Neither "{" nor whitespace first, nor "`" or "<": no ```json fence or <tool_call> markup.
    expect(g).toMatch(/^v-text ::= \[\^\{`< \\t\\n\\r\\x0B\\x0C\\u00A0.*\\uFEFF\] \[\^\\x00\]\*$/m);
    expect(g).not.toContain("tool_name");
  });

  it("a call's check: exactly yes or no", () => {
    expect(gbnfForResponseFormat(checkResponseFormat())).toBe('root ::= v-text\nv-text ::= "yes" | "no"\n');
  });

  it("a grammar is passed through (GBNF for this engine); text and no format mean free text", () => {
    expect(gbnfForResponseFormat({ type: "grammar", grammar: 'root ::= "hi"' })).toBe('root ::= "hi"');
    expect(gbnfForResponseFormat({ type: "text" })).toBeUndefined();
    expect(gbnfForResponseFormat(undefined)).toBeUndefined();
    expect(gbnfForResponseFormat({ type: "json_object" })).toContain("root ::= object");
  });

  it("what GBNF cannot say the same way is refused, not dropped", () => {
    const refused = (f: Parameters<typeof gbnfForResponseFormat>[0]) => {
      try {
        gbnfForResponseFormat(f);
      } catch (e) {
        return (e as EdgeError).code;
      }
      return "accepted";
    };
    const tag = (format: object) => ({
      type: "structural_tag" as const,
      structural_tag: JSON.stringify({ type: "structural_tag", format }),
    });
    expect(refused(tag({ type: "regex", pattern: "[a-z]+" }))).toBe("response_format_unsupported");
    expect(refused(tag({ type: "any_text", excludes: ["</x>"] }))).toBe("response_format_unsupported");
    expect(refused(tag({ type: "regex", pattern: TEXT_ANSWER_PATTERN }))).toBe("accepted");
    expect(refused({ type: "json_object", schema: "{not json" })).toBe("response_format_unsupported");
    expect(refused({ type: "json_object", schema: JSON.stringify({ enum: [] }) })).toBe("response_format_unsupported");
  });
});
