// Tokens the tool contract costs on every prompt, per tool, counted with real tokenizers (Qwen3's
// and Llama 3's, from their npm packages) for public/examples/tools.py (or --tools FILE): the
// contract Edge sends now against the v1 layout (every schema line the whole canonical tool
// schema, output schema and execution level included), measured in the same run.
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

/** The v1 contract's layout (until edge.tool_contract.v2): the baseline of this bench. */
function v1Contract(schemas: readonly ToolSchema[]): { text: string; line: (s: ToolSchema) => string } {
  const line = (s: ToolSchema) => canonicalJson(s);
  const current = renderToolContract(schemas).split("\n");
  const head = current.slice(0, current.length - schemas.length - 1).join("\n").replace(TOOL_CONTRACT_VERSION, "edge.tool_contract.v1");
  const sorted = [...schemas].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { text: [head, "Tools (one JSON schema per line):", ...sorted.map(line)].join("\n"), line };
}

async function schemasOf(file: string): Promise<ToolSchema[]> {
  const host = createNodeRunnerHost({ spares: 0 });
  try {
    const engine = new ScriptedEngine([]);
    await engine.load();
    const session = await createChatSession({ engine, host, tools: { kind: "file", source: memorySource(file, readFileSync(file)) } });
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
  const v1 = v1Contract(schemas);
  const now = renderToolContract(schemas);
  const perTool = (line: (s: ToolSchema) => string) => Object.fromEntries(schemas.map((s) => [s.name, count(line(s))]));
  const [before, after] = [count(v1.text), count(now)];
  entries.push({
    tokenizer: family,
    tools_file: TOOLS,
    tools: schemas.length,
    contract: TOOL_CONTRACT_VERSION,
    contract_tokens: after,
    contract_tokens_v1: before,
    tokens_per_tool: Math.round(((after - count(renderToolContract([]))) / schemas.length) * 10) / 10,
    tokens_per_tool_v1: Math.round(((before - count(v1Contract([]).text)) / schemas.length) * 10) / 10,
    per_tool: perTool(contractLine),
    per_tool_v1: perTool(v1.line),
    ratio_vs_v1: Math.round((after / before) * 1000) / 1000,
  });
}
if (JSON_ONLY) console.log(JSON.stringify(entries));
else console.log(JSON.stringify(entries, null, 2));
