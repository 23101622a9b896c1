import { describe, expect, it } from "vitest";
import { endsInLoop } from "./repetition.ts";

describe("a reply caught in a loop", () => {
  it("ends with one span repeated back to back, three times and 48 characters at least", () => {
    const cat = "The cat was a cat." + " She was a cat.".repeat(4);
    expect(endsInLoop(cat)).toBe(true);
    // Three copies of 15 characters are not yet 48.
    expect(endsInLoop("The cat was a cat." + " She was a cat.".repeat(3))).toBe(false);
    expect(endsInLoop("I'm glad to have helped.\n\n".repeat(3))).toBe(true);
    expect(endsInLoop("order A-1001 was shipped to DHL" + "-L".repeat(24))).toBe(true);
    expect(endsInLoop("order A-1001 was shipped to DHL" + "-L".repeat(23))).toBe(false);
  });

  it("prose that repeats a word, a short phrase or a pattern with changes is not a loop", () => {
    for (const text of [
      "ha ha ha",
      "Very, very, very good.",
      "1. Paris\n2. Lyon\n3. Nice\n4. Lille\n5. Nantes\n6. Rennes",
      "The weather in Paris is 14 degrees Celsius, and the temperature is 14 degrees Celsius.",
      "",
    ])
      expect(endsInLoop(text), text).toBe(false);
    // A span over 200 characters is a quote, not a loop, however often it comes back.
    let seed = 7;
    const quote = Array.from({ length: 210 }, () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return String.fromCharCode(97 + (seed % 26));
    }).join("");
    expect(endsInLoop(quote.repeat(3))).toBe(false);
    expect(endsInLoop(quote.slice(10).repeat(3))).toBe(true);
  });
});
