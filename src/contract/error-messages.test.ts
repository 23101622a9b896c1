// The error table's sentences are what a person reads when something fails: each one says what
// to do (a fix), ends as a sentence, and never runs two sentences together.
import { describe, expect, it } from "vitest";
import { ERRORS } from "./errors.ts";
import { closest, didYouMean, editDistance } from "./suggest.ts";

/** Words that start the fix of a message: what the person can do next. */
const FIX = /\b(use|pass|add|check|run|fix|rename|remove|ask|try|load|pick|import|learn|delete|raise|shorten|narrow|split|save|keep|return|list|reload|download|point|give|make|free|install|close|send|restore|set|decorate|start|change|export|copy|scale|convert|name|enable|leave|select|edit|import|reset|let|see|follow|move|put|lower|point|replace|wait|pin|include|declare|annotate|create)\b/i;

describe("the error table", () => {
  it.each(Object.entries(ERRORS))("%s says what to do, in whole sentences", (_code, message) => {
    expect(message, "ends as a sentence").toMatch(/[.!?]["'`)\]]*$/);
    expect(message, "names a fix").toMatch(FIX);
    // "…position 1 Run `edge …`": a lower-case word or a number directly followed by a capitalised
    // imperative is two sentences run together.
    expect(message).not.toMatch(/[a-z0-9'"`] (Run|Use|Pass|Add|Check|Fix|Ask|Try|Load|Pick|Delete|Shorten) /);
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
