import { describe, expect, it } from "vitest";
import { MAX_MODEL_OUTPUT_CHARS, parseModelOutput } from "./parse.ts";

describe("parseModelOutput", () => {
  it("a bare call object, and one ```json fence around it, are calls", () => {
    const call = '{"tool_name": "fee_quote", "arguments": {"amount": 250}}';
    expect(parseModelOutput(call)).toEqual({ kind: "call", toolName: "fee_quote", args: { amount: 250 } });
    expect(parseModelOutput(`  \n${call}\n`)).toMatchObject({ kind: "call" });
    expect(parseModelOutput("```json\n" + call + "\n```")).toMatchObject({ kind: "call", toolName: "fee_quote" });
    expect(parseModelOutput("```\n" + call + "\n```")).toMatchObject({ kind: "call" });
  });

  it("Qwen's <tool_call> markup around one exact call is that call (the template's own call format, quirk of Qwen2.5/Qwen3)", () => {
    const call = '{"tool_name": "fee_quote", "arguments": {"amount": 250}}';
    expect(parseModelOutput(`<tool_call>\n${call}\n</tool_call>`)).toEqual({
      kind: "call",
      toolName: "fee_quote",
      args: { amount: 250 },
    });
    expect(parseModelOutput(`\n<tool_call>${call}</tool_call>\n`)).toMatchObject({
      kind: "call",
      toolName: "fee_quote",
    });
    // The markup is always an attempt, which must be exact: Qwen's native object, text around it,
    // two calls, an unclosed tag.
    const cases: [string, RegExp][] = [
      [
        '<tool_call>\n{"name": "fee_quote", "arguments": {"amount": 250}}\n</tool_call>',
        /exactly the keys "tool_name" and "arguments" \(found: "name", "arguments"\)/,
      ],
      [`Let me check.\n<tool_call>\n${call}\n</tool_call>`, /<tool_call> markup must hold exactly one JSON object/],
      [
        `<tool_call>\n${call}\n</tool_call>\n<tool_call>\n${call}\n</tool_call>`,
        /<tool_call> markup must hold exactly one/,
      ],
      [`<tool_call>\n${call}`, /<tool_call> markup must hold exactly one/],
      ["<tool_call>\nfee_quote(250)\n</tool_call>", /<tool_call> markup must hold exactly one/],
    ];
    for (const [text, reason] of cases) {
      const parsed = parseModelOutput(text);
      expect(parsed.kind, text).toBe("invalid");
      if (parsed.kind === "invalid") expect(parsed.reason, text).toMatch(reason);
    }
  });

  it("prose is the answer, also prose that mentions braces or code", () => {
    expect(parseModelOutput("The fee is 0.75.")).toEqual({ kind: "answer", text: "The fee is 0.75." });
    expect(parseModelOutput("Use a dict like {a: 1} in Python.")).toMatchObject({ kind: "answer" });
    expect(parseModelOutput("```python\nprint(1)\n```")).toMatchObject({ kind: "answer" });
  });

  it("clear attempts at a call must be exact", () => {
    const cases: [string, RegExp][] = [
      ['{"tool_name": "a", "arguments": {}}{"tool_name": "b", "arguments": {}}', /not one valid JSON/],
      ['{"tool_name": "a", "arguments": {}, "extra": 1}', /exactly the keys/],
      ['{"tool_name": "a", "arguments": [1]}', /must be a JSON object/],
      ['{"tool_name": "a", "arguments": "x"}', /must be a JSON object/],
      ['{"tool_name": 3, "arguments": {}}', /non-empty string/],
      ['{"tool_name": "a", "arguments": {"x": 1}', /not one valid JSON/],
      ['{"tool_name": "a", "arguments": {}, "__proto__": {"x": 1}}', /exactly the keys/],
      ['Sure! {"tool_name": "a", "arguments": {}}', /alone/],
      ["[1, 2]", /./],
      ["{}", /exactly the keys/],
    ];
    for (const [text, reason] of cases) {
      const parsed = parseModelOutput(text);
      expect(parsed.kind, text).toBe(text === "[1, 2]" ? "answer" : "invalid");
      if (parsed.kind === "invalid") expect(parsed.reason).toMatch(reason);
    }
  });

  it("__proto__ inside arguments stays plain data (no prototype pollution)", () => {
    const parsed = parseModelOutput('{"tool_name": "a", "arguments": {"__proto__": {"polluted": true}}}');
    expect(parsed.kind).toBe("call");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    if (parsed.kind === "call") expect(Object.keys(parsed.args)).toEqual(["__proto__"]);
  });

  it("outputs beyond the limit are refused before parsing", () => {
    expect(parseModelOutput("x".repeat(MAX_MODEL_OUTPUT_CHARS + 1))).toEqual({
      kind: "oversized",
      chars: MAX_MODEL_OUTPUT_CHARS + 1,
    });
  });
});
