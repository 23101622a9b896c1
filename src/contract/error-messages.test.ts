// The error table's sentences are what a person reads when something fails: each one says what
// to do (a fix), ends as a sentence, and never runs two sentences together.
import { describe, expect, it } from "vitest";
import { FIX } from "../../test/fix-words.ts";
import { ERRORS } from "./error-table.ts";
import { EdgeError, type ErrorCode, fixOf } from "./errors.ts";
import { closest, didYouMean, editDistance } from "./suggest.ts";

describe("the error table", () => {
  it.each(Object.entries(ERRORS))("%s says what to do, in whole sentences", (_code, message) => {
    expect(message, "ends as a sentence").toMatch(/[.!?]["'`)\]]*$/);
    expect(message, "names a fix").toMatch(FIX);
    // "…position 1 Run `edge …`": a lower-case word or a number directly followed by a capitalised
    // imperative is two sentences run together.
    expect(message).not.toMatch(/[a-z0-9'"`] (Run|Use|Pass|Add|Check|Fix|Ask|Try|Load|Pick|Delete|Shorten) /);
  });
});

describe("fixOf", () => {
  it.each(Object.keys(ERRORS) as ErrorCode[])("%s: the fix part is a sentence that names a fix", (code) => {
    const fix = fixOf(code);
    expect(fix.length, "non-empty").toBeGreaterThan(5);
    expect(fix, "starts as a sentence").toMatch(/^[A-Z@`"(]/);
    expect(fix, "ends as a sentence").toMatch(/[.!?]["'`)\]]*$/);
    expect(fix, "names a fix").toMatch(FIX);
    expect(ERRORS[code].endsWith(fix.slice(1)), "a tail of the table's sentence").toBe(true);
  });

  it("takes the clause after the last '; ', or the last sentence of 'What. Fix.'", () => {
    expect(fixOf("tools_file_not_utf8")).toBe("Save it as UTF-8.");
    expect(fixOf("invalid_chat_messages")).toBe("Fix the messages passed to the engine.");
    expect(fixOf("tool_call_limit_exceeded")).toBe("Ask for less in one prompt, or raise the limit (--max-calls N).");
    expect(fixOf("conflicting_tool_options")).toBe(ERRORS.conflicting_tool_options);
  });

  it("EdgeError.withTableFix: what happened, then the code's fix", () => {
    const e = EdgeError.withTableFix(
      "tools_file_not_utf8",
      { file: "tools.py" },
      "tools.py has a byte 0xff at offset 12.",
    );
    expect(e.message).toBe("tools.py has a byte 0xff at offset 12. Save it as UTF-8.");
    expect(e.toJSON()).toEqual({ code: "tools_file_not_utf8", message: e.message, file: "tools.py" });
  });
});

describe("did you mean", () => {
  it("finds the near miss: a typo, a swap, a missing or extra letter, another case", () => {
    expect(editDistance("fee_qoute", "fee_quote")).toBe(1);
    expect(closest("fee_quot", ["hello_world", "fee_quote", "order_status"])).toBe("fee_quote");
    expect(closest("tols", ["tools", "chat", "facts"])).toBe("tools");
    expect(closest("Fee_Quote", ["fee_quote"])).toBe("fee_quote");
    expect(closest("valdate", ["validate", "inspect", "call"])).toBe("validate");
  });

  it("offers nothing far away, and nothing for an exact match", () => {
    expect(closest("weather", ["fee_quote", "order_status"])).toBeNull();
    expect(closest("ab", ["xy"])).toBeNull();
    expect(didYouMean("chat", ["chat"])).toBe("");
    expect(didYouMean("chta", ["chat", "facts"])).toBe(' Did you mean "chat"?');
  });
});
