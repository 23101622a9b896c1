// Leading reasoning blocks: split before parsing, never streamed to the person.
import { describe, expect, it } from "vitest";
import { splitThink, withoutThinkBlock } from "./think.ts";

describe("splitThink", () => {
  it("strips one leading block, empty or not; keeps everything else", () => {
    expect(splitThink('<think>\n\n</think>\n\n{"a":1}')).toEqual({ visible: '{"a":1}', reasoning: "" });
    expect(splitThink("  <think>plan: call x</think>Answer.")).toEqual({
      visible: "Answer.",
      reasoning: "plan: call x",
    });
    expect(splitThink("Plain answer about <think> tags.")).toEqual({
      visible: "Plain answer about <think> tags.",
      reasoning: null,
    });
    expect(splitThink("<think>a</think><think>b</think>x").visible).toBe("<think>b</think>x");
    expect(splitThink("<think>never closed")).toEqual({ visible: "", reasoning: "never closed" });
  });
});

describe("withoutThinkBlock (streaming)", () => {
  const stream = (pieces: string[]): string => {
    const out: string[] = [];
    const on = withoutThinkBlock((d) => out.push(d))!;
    pieces.forEach(on);
    return out.join("");
  };

  it("holds back a leading block however it is split into pieces, then streams the rest", () => {
    const text = "<think>\n\n</think>\n\nThe fee is 0.75.";
    expect(stream([...text])).toBe("The fee is 0.75.");
    expect(stream(["<th", "ink>\n\n</th", "ink>", "\n\n", "The", " fee"])).toBe("The fee");
    expect(stream(["<think>reasoning", " more", "</think>", "Done."])).toBe("Done.");
  });

  it("streams a reply without a block unchanged, including one that starts like a tag", () => {
    expect(stream(["<", "b>bold</b>"])).toBe("<b>bold</b>");
    expect(stream(["  Hello", " world"])).toBe("  Hello world");
    expect(stream(["<think>unclosed"])).toBe("");
  });

  it("passes no callback through", () => {
    expect(withoutThinkBlock(undefined)).toBeUndefined();
  });
});
