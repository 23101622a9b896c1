// The guided-call formats against the real grammar engine: web-xgrammar as bundled inside
// web-llm 0.2.86 (the exact code that will compile them in the browser). web-llm does not export
// it, so the test loads a copy of web-llm's bundle with three mechanical edits that let it run in
// Node and expose the xgrammar module. If web-llm changes so these edits no longer apply, this
// test fails loudly (it never skips).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolCallOrTextResponseFormat, toolCallResponseFormat, type GuidedTool } from "./grammar.ts";

interface XGrammarGrammar {
  dispose(): void;
}
interface XGrammar {
  Grammar: {
    fromStructuralTag(tag: string): Promise<XGrammarGrammar>;
    fromJSONSchema(schema: string): Promise<XGrammarGrammar>;
  };
  Testings: { isGrammarAcceptString(g: XGrammarGrammar, input: string): Promise<boolean> };
}

let dir: string;
let xg: XGrammar;

beforeAll(async () => {
  const require = createRequire(import.meta.url);
  const bundle = path.join(path.dirname(require.resolve("@mlc-ai/web-llm/package.json")), "lib", "index.js");
  const source = readFileSync(bundle, "utf8");
  expect(source).toContain("var libExports$1 = requireLib$1();");
  expect(source).toContain('"MLC_DUMMY_PATH"');
  dir = mkdtempSync(path.join(tmpdir(), "edge-xgrammar-"));
  const file = path.join(dir, "webllm-xgrammar.mjs");
  writeFileSync(
    file,
    'import { createRequire } from "node:module";\n' +
      source.replaceAll('"MLC_DUMMY_PATH"', "import.meta.url") +
      "\nexport { libExports$1 as __xgrammar };\n",
  );
  xg = ((await import(pathToFileURL(file).href)) as { __xgrammar: XGrammar }).__xgrammar;
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const tools: GuidedTool[] = [
  {
    name: "fee_quote",
    parameters: {
      type: "object",
      properties: { amount: { type: "number" }, currency: { type: "string", enum: ["EUR", "USD"] } },
      required: ["amount"],
      additionalProperties: false,
    },
  },
  { name: "hello_world", parameters: { type: "object", properties: {}, additionalProperties: false } },
];

const CALLS = [
  '{"tool_name": "fee_quote", "arguments": {"amount": 12.5}}',
  '{"tool_name": "fee_quote", "arguments": {"amount": 1, "currency": "EUR"}}',
  '{"tool_name": "hello_world", "arguments": {}}',
];
const TEXTS = ["The fee is 0.25 EUR.", "Line one\nline {two}", "费用是 0.25 欧元。"];
const NEITHER = [
  '{"tool_name": "fee_quote", "arguments": {"amount": "12"}}', // wrong type
  '{"tool_name": "fee_quote", "arguments": {"amount": 1, "currency": "GBP"}}', // not in enum
  '{"tool_name": "rm_rf", "arguments": {}}', // unknown tool
  '{"tool_name": "hello_world", "arguments": {}, "x": 1}', // extra key
  '{"tool_name": "fee_quote"', // broken JSON
  ' {"tool_name": "hello_world", "arguments": {}}', // a call hidden behind whitespace
  "", // nothing
];

describe("guided formats compiled by web-llm's own xgrammar", () => {
  it("(b) structural tag: exactly one valid call, or plain text", async () => {
    const g = await xg.Grammar.fromStructuralTag(toolCallOrTextResponseFormat(tools).structural_tag as string);
    for (const s of [...CALLS, ...TEXTS]) expect([s, await xg.Testings.isGrammarAcceptString(g, s)]).toEqual([s, true]);
    for (const s of NEITHER) expect([s, await xg.Testings.isGrammarAcceptString(g, s)]).toEqual([s, false]);
    g.dispose();
  });

  it("(a) json_object schema: calls only", async () => {
    const g = await xg.Grammar.fromJSONSchema(toolCallResponseFormat(tools).schema!);
    for (const s of CALLS) expect([s, await xg.Testings.isGrammarAcceptString(g, s)]).toEqual([s, true]);
    for (const s of [...TEXTS, ...NEITHER])
      expect([s, await xg.Testings.isGrammarAcceptString(g, s)]).toEqual([s, false]);
    g.dispose();
  });
});
