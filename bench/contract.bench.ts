// Tokens the tool contract costs on every prompt, per tool, counted with real tokenizers (Qwen3's
// and Llama 3's, from their npm packages) for public/examples/tools.py (or --tools FILE): the
// contract Edge sends now against the baseline, edge.tool_contract.v2 (each tool a line of JSON: its
// name, description and the JSON Schema of its parameters), rendered in the same run. The goal: no
// more tokens than the baseline for the same tools.
//   npm run bench:contract -- --json
// No timing: token counts are exact and do not depend on the machine.
import { readFileSync } from "node:fs";
import { canonicalJson } from "../src/contract/hash.ts";
import type { ToolSchema } from "../src/contract/types.ts";
import { contractLine, renderToolContract, TOOL_CONTRACT_VERSION } from "../src/chat/contract.ts";
import { createChatSession } from "../src/chat/session.ts";
import { ScriptedEngine } from "../src/engines/scripted.ts";
import { createNodeRunnerHost } from "../src/runner/node.ts";
import { memorySource } from "../src/toolset/inspect.ts";
import { referenceTokenizer, type VocabFamily } from "../test/fixtures/real-vocab.ts";

const JSON_ONLY = process.argv.includes("--json");
const toolsArg = process.argv.indexOf("--tools");
const TOOLS = toolsArg > 0 ? process.argv[toolsArg + 1]! : "public/examples/tools.py";

/** edge.tool_contract.v2, verbatim: the baseline of this bench. */
function v2Contract(schemas: readonly ToolSchema[]): { text: string; line: (s: ToolSchema) => string } {
  const line = (s: ToolSchema) =>
    canonicalJson({ name: s.name, ...(s.description ? { description: s.description } : {}), parameters: s.parameters });
  const sorted = [...schemas].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const text = [
    "You can call tools. (edge.tool_contract.v2)",
    "",
    "To call a tool, reply with exactly one JSON object and nothing else:",
    '{"tool_name": "<one of the tool names below>", "arguments": {<arguments matching that tool\'s parameters>}}',
    "",
    "Rules:",
    "- Use only the tools listed below, with arguments that match their JSON Schema exactly (no extra keys).",
    "- At most 4 tool calls per question. After a tool result arrives, either call another tool or answer.",
    '- When you answer, write plain text for the person; do not start the answer with "{".',
    "- Never invent tool results; use the results you are given.",
    "",
    "Tools (one per line; parameters is the JSON Schema of its arguments):",
    ...sorted.map(line),
  ].join("\n");
  return { text, line };
}

async function schemasOf(file: string): Promise<ToolSchema[]> {
  const host = createNodeRunnerHost({ spares: 0 });
  try {
    const engine = new ScriptedEngine([]);
    await engine.load();
    const session = await createChatSession({
      engine,
      host,
      tools: { kind: "file", source: memorySource(file, readFileSync(file)) },
    });
    return session.toolset!.active.map((t) => t.schema as ToolSchema);
  } finally {
    await host.close();
  }
}

const schemas = await schemasOf(TOOLS);
const entries = [];
for (const family of ["qwen3", "llama3"] as VocabFamily[]) {
  const tok = await referenceTokenizer(family);
  const count = (text: string) => tok.encode(text, { add_special_tokens: false }).length;
  const v2 = v2Contract(schemas);
  const now = renderToolContract(schemas);
  const perTool = (line: (s: ToolSchema) => string) => Object.fromEntries(schemas.map((s) => [s.name, count(line(s))]));
  const [before, after] = [count(v2.text), count(now)];
  entries.push({
    tokenizer: family,
    tools_file: TOOLS,
    tools: schemas.length,
    contract: TOOL_CONTRACT_VERSION,
    contract_tokens: after,
    contract_tokens_v2: before,
    tokens_per_tool: Math.round(((after - count(renderToolContract([]))) / schemas.length) * 10) / 10,
    tokens_per_tool_v2: Math.round(((before - count(v2Contract([]).text)) / schemas.length) * 10) / 10,
    per_tool: perTool(contractLine),
    per_tool_v2: perTool(v2.line),
    ratio_vs_v2: Math.round((after / before) * 1000) / 1000,
    goal: { statement: "no more tokens than edge.tool_contract.v2 for the same tools", met: after <= before },
  });
}
if (JSON_ONLY) console.log(JSON.stringify(entries));
else console.log(JSON.stringify(entries, null, 2));
