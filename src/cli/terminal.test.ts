// safeText: untrusted text printed on a terminal cannot drive it (colours, titles, cursor moves,
// overwritten lines, reordered text), and ordinary text is unchanged.
import { describe, expect, it } from "vitest";
import { safeText } from "./terminal.ts";

describe("safeText", () => {
  it("escapes control characters and bidi overrides, drops carriage returns, keeps the rest", () => {
    expect(safeText("\u001b]0;pwned\u0007\u001b[31mred\u001b[0m")).toBe("\\u001b]0;pwned\\u0007\\u001b[31mred\\u001b[0m");
    expect(safeText("paid\rrefused")).toBe("paidrefused");
    expect(safeText("a\u202eevil\u2066")).toBe("a\\u202eevil\\u2066");
    expect(safeText("\u009b2J")).toBe("\\u009b2J");
    const plain = "Line one\n\tTabbed — ünïcode, 汉字, emoji 🙂 {\"json\": [1, 2]}";
    expect(safeText(plain)).toBe(plain);
  });

  it("is safe fragment by fragment, as streamed", () => {
    const text = "ok \u001b[2J done\u0007";
    const streamed = [...text].map(safeText).join("");
    expect(streamed).toBe(safeText(text));
    expect(streamed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});
