// escapeControls: untrusted text printed on a terminal cannot drive it (colours, titles, cursor
// moves, overwritten lines, reordered text), and ordinary text is unchanged.
import { describe, expect, it } from "vitest";
import { escapeControls } from "./io.ts";

describe("escapeControls", () => {
  it("escapes control characters, bidi overrides, separators and lone surrogates, drops carriage returns, keeps the rest", () => {
    expect(escapeControls("\u001b]0;pwned\u0007\u001b[31mred\u001b[0m")).toBe(
      "\\u001b]0;pwned\\u0007\\u001b[31mred\\u001b[0m",
    );
    expect(escapeControls("paid\rrefused")).toBe("paidrefused");
    expect(escapeControls("a\u202eevil\u2066")).toBe("a\\u202eevil\\u2066");
    expect(escapeControls("\u009b2J \u2028")).toBe("\\u009b2J \\u2028");
    expect(escapeControls("x\ud800y\udc00")).toBe("x\\ud800y\\udc00");
    // Invisible marks and zero-width characters (every format character but the two joiners).
    expect(escapeControls("a\u200eb\u200fc\u061cd\u200be\ufefff\u2060g\u00adh")).toBe(
      "a\\u200eb\\u200fc\\u061cd\\u200be\\ufefff\\u2060g\\u00adh",
    );
    expect(escapeControls("tag\u{e0041}")).toBe("tag\\udb40\\udc41");
    expect(escapeControls("می\u200cخواهم 👩\u200d💻")).toBe("می\u200cخواهم 👩\u200d💻");
    const plain = 'Line one\n\tTabbed — ünïcode, 汉字, emoji 🙂 {"json": [1, 2]}';
    expect(escapeControls(plain)).toBe(plain);
  });

  it("is safe fragment by fragment, as streamed", () => {
    const text = "ok \u001b[2J done\u0007 🙂";
    const streamed = [...text].map(escapeControls).join("");
    expect(streamed).toBe(escapeControls(text));
    expect(streamed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});
