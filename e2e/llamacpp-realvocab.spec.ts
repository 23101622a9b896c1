// Real vocabularies in Chromium: wllama (llama.cpp's server core in WebAssembly) through the
// llama.cpp engine, on tiny real-shape models — Qwen3's and Llama 3's real tokenizers and chat
// templates from their npm packages, random weights (test/fixtures/real-shape.ts). The prompt wllama
// evaluates is compared, in tokens, with the model's own template rendered by @huggingface/jinja
// and tokenized by the package's own tokenizer (in Node, here); guided replies over the full
// vocabulary must parse and be schema-valid. Never quality: the weights are random.
import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures.ts";
import { argsProblem } from "../src/contract/ajv.ts";
import { parseModelOutput } from "../src/chat/parse.ts";
import type { ChatMessage, ResponseFormat } from "../src/engines/engine.ts";
import { toolCallResponseFormat, toolCallSchema, type GuidedTool } from "../src/engines/grammar.ts";
import { startModelServer, type ModelServer } from "../test/engines/model-server.ts";
import { reference, TOKENIZER_CORPUS } from "../test/engines/realshape-fidelity.ts";
import { realShapeModel } from "../test/fixtures/real-shape.ts";

const PAGE = "/e2e/pages/llamacpp.html";
const FEE: GuidedTool = {
  name: "fee_quote",
  parameters: {
    type: "object",
    properties: { amount: { type: "integer" }, tier: { type: "string", enum: ["basic", "pro"] } },
    required: ["amount"],
    additionalProperties: false,
  },
};
const TURNS: ChatMessage[][] = [
  [
    { role: "system", content: "You can call tools." },
    { role: "user", content: "Quote the fee for 250 euros, 专业版." },
  ],
  [
    { role: "system", content: "You can call tools." },
    { role: "user", content: "Quote the fee for 250 euros." },
    { role: "assistant", content: '{"tool_name": "fee_quote", "arguments": {"amount": 250}}' },
    { role: "tool", content: 'Tool result for fee_quote:\n{"amount":250,"fee_millis":750,"tier":"basic"}' },
  ],
];
const qwen = realShapeModel({ family: "qwen3", shape: "tiny" });
const llama = realShapeModel({ family: "llama3", shape: "tiny" });
let server: ModelServer;

test.beforeAll(async () => {
  server = await startModelServer(readFileSync(qwen.path), { "/llama3.gguf": readFileSync(llama.path) });
});
test.afterAll(() => server.close());

for (const [family, path] of [
  ["qwen3", "/model.gguf"],
  ["llama3", "/llama3.gguf"],
] as const) {
  test(`${family}: wllama's prompts are the model's own template in real tokens, and guided replies over the full vocabulary parse`, async ({
    page,
  }) => {
    test.setTimeout(300_000);
    await page.goto(PAGE);
    await expect(page.locator("#status")).toHaveText("ready", { timeout: 60_000 });
    const ref = await reference(family);
    const conversations: ChatMessage[][] = [
      ...TOKENIZER_CORPUS.map((text): ChatMessage[] => [{ role: "user", content: text }]),
      ...TURNS,
    ];
    const formats: ResponseFormat[] = [
      toolCallResponseFormat([FEE]),
      toolCallResponseFormat([FEE]),
      {
        type: "structural_tag",
        structural_tag: {
          type: "structural_tag",
          format: {
            type: "tag",
            begin: "<tool_call>\n",
            content: { type: "json_schema", json_schema: toolCallSchema([FEE]) },
            end: "\n</tool_call>",
          },
        },
      },
    ];
    const got = await page.evaluate(([u, c, f]) => window.__llama!.realVocab(u, c, f), [
      server.url(path),
      conversations,
      formats,
    ] as const);
    expect(got.promptTokens).toEqual(conversations.map((c) => ref.tokens(c).length));
    for (const text of got.replies) {
      const parsed = parseModelOutput(text);
      expect(parsed.kind, text).toBe("call");
      if (parsed.kind === "call") expect(argsProblem(FEE.parameters as object, parsed.args), text).toBeNull();
    }
  });
}
