import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../src/contract/types.ts";
import { withDefaults } from "../src/contract/defaults.ts";
import { CATEGORIES, scoreAnswer, scoreCase } from "./score.ts";

const FEE: JsonObject = {
  type: "object",
  properties: {
    amount: { type: "number" },
    tier: { type: "string", enum: ["basic", "pro"], default: "basic" },
    note: { type: ["string", "null"], default: null },
  },
  required: ["amount"],
  additionalProperties: false,
};

describe("scoring a case", () => {
  it("passes the expected call, whether or not the model spelled out the defaults", () => {
    const expect_ = { tool: "fee_quote", arguments: { amount: 250 } };
    expect(scoreCase(expect_, { kind: "call", tool: "fee_quote", arguments: { amount: 250 } }, FEE).pass).toBe(true);
    expect(
      scoreCase(
        expect_,
        { kind: "call", tool: "fee_quote", arguments: { amount: 250, tier: "basic", note: null } },
        FEE,
      ).pass,
    ).toBe(true);
  });

  it("fails other arguments, another tool, an answer or a broken call, each on its own check", () => {
    const expect_ = { tool: "fee_quote", arguments: { amount: 250, tier: "pro" } };
    expect(scoreCase(expect_, { kind: "call", tool: "fee_quote", arguments: { amount: 250 } }, FEE)).toEqual({
      call: true,
      tool: true,
      args: false,
      pass: false,
    });
    expect(scoreCase(expect_, { kind: "call", tool: "hello_world", arguments: {} }, FEE)).toEqual({
      call: true,
      tool: false,
      args: false,
      pass: false,
    });
    expect(scoreCase(expect_, { kind: "answer", text: "The fee is 0.5." }, FEE)).toEqual({
      call: false,
      tool: false,
      args: false,
      pass: false,
    });
    expect(scoreCase(expect_, { kind: "invalid", reason: "not JSON", text: "{" }, FEE)).toEqual({
      call: true,
      tool: false,
      args: false,
      pass: false,
    });
  });

  it("passes a no-tool case only on an answer; a call or a broken call fails it", () => {
    expect(scoreCase({ tool: null }, { kind: "answer", text: "Paris." }).pass).toBe(true);
    expect(scoreCase({ tool: null }, { kind: "call", tool: "hello_world", arguments: {} }).pass).toBe(false);
    expect(scoreCase({ tool: null }, { kind: "invalid", reason: "x", text: '{"tool_name"' }).pass).toBe(false);
  });

  it("an answer is prose when it is not a call in other clothes, nor the request repeated; grounded when it states the result", () => {
    const turn = { prompt: "Add 2 and 3.", toolNames: ["add"], mentions: ["5"] };
    expect(scoreAnswer("The sum of 2 and 3 is 5.", turn)).toEqual({ prose: true, grounded: true });
    expect(scoreAnswer("The sum is five.", turn)).toEqual({ prose: true, grounded: false });
    for (const text of [
      '({"tool_name":"add","arguments":{"a":5,"b":5}}',
      "null",
      '"Add 2 and 3."',
      "add(a=2, b=3) = 5",
      "add 2 and 3: 5",
      "  ",
    ])
      expect(scoreAnswer(text, turn), text).toEqual({ prose: false, grounded: false });
    expect(scoreAnswer("2 + 2 = 4", { prompt: "What is 2 + 2?", toolNames: ["add"] })).toEqual({ prose: true });
  });

  it("fills only missing properties that have a default", () => {
    expect(withDefaults(FEE, { amount: 1, tier: "pro" })).toEqual({ amount: 1, tier: "pro", note: null });
  });
});

interface CaseSet {
  tools_files: Record<string, string>;
  cases: {
    id: string;
    category: string;
    tools: string;
    prompt: string;
    expect: { tool: string | null };
    history?: unknown[];
  }[];
}
const caseSet = (file: string) => JSON.parse(readFileSync(new URL(file, import.meta.url), "utf8")) as CaseSet;

function wellFormed(set: CaseSet, perCategory: number): void {
  expect(new Set(set.cases.map((c) => c.id)).size).toBe(set.cases.length);
  for (const category of CATEGORIES)
    expect(set.cases.filter((c) => c.category === category).length).toBeGreaterThanOrEqual(perCategory);
  for (const c of set.cases) expect(set.tools_files[c.tools], c.id).toBeDefined();
  expect(set.cases.filter((c) => c.category === "no_tool").every((c) => c.expect.tool === null)).toBe(true);
  expect(set.cases.filter((c) => c.category === "after_result").every((c) => (c.history?.length ?? 0) > 0)).toBe(true);
}

describe("the case sets", () => {
  const main = caseSet("./cases.json");
  const holdout = caseSet("./cases-holdout.json");

  it("eval/cases.json has at least 80 cases over every category, unique ids, each naming a known tools file", () => {
    expect(main.cases.length).toBeGreaterThanOrEqual(80);
    wellFormed(main, 8);
  });

  it("the held-out set shares no id and no first-turn prompt with it, and has a tools file it never uses", () => {
    wellFormed(holdout, 4);
    const ids = new Set(main.cases.map((c) => c.id));
    expect(holdout.cases.filter((c) => ids.has(c.id))).toEqual([]);
    const asked = new Set(main.cases.filter((c) => !c.history).map((c) => c.prompt.toLowerCase()));
    expect(holdout.cases.filter((c) => !c.history && asked.has(c.prompt.toLowerCase()))).toEqual([]);
    const used = new Set(Object.values(main.tools_files));
    expect(Object.values(holdout.tools_files).filter((f) => !used.has(f)).length).toBeGreaterThan(0);
  });
});
