// The restore gate against the real Node runner (Pyodide in runner processes) and the example
// tools.py: learn once, then edit the file the ways a developer does. A function-body edit restores
// and the restored chat really calls the tool; every schema-level edit fails closed with its code.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatSession } from "../chat/session.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import { createNodeRunnerHost } from "../runner/node.ts";
import { freezeToolset } from "../toolset/freeze.ts";
import { memorySource } from "../toolset/inspect.ts";
import { imprintBinding } from "./gate.ts";
import { learn } from "./learn.ts";
import type { Imprint } from "./record.ts";
import { parseLearnSampleText } from "./sample.ts";

const TOOLS = readFileSync(new URL("../../public/examples/tools.py", import.meta.url), "utf8");
const SAMPLE = parseLearnSampleText(
  readFileSync(new URL("../../public/examples/learn_sample.json", import.meta.url), "utf8"),
);
const host = createNodeRunnerHost({ spares: 1 });
afterAll(() => host.close());

const call = (name: string, args: object) => JSON.stringify({ tool_name: name, arguments: args });
async function engine(script: string[], modelId?: string) {
  const e = new ScriptedEngine(script, { chunkSize: 256, ...(modelId ? { modelId } : {}) });
  await e.load();
  return e;
}
function edit(from: string, to: string): string {
  if (!TOOLS.includes(from)) throw new Error(`example tools.py no longer contains ${JSON.stringify(from)}`);
  return TOOLS.replace(from, to);
}
async function restore(text: string | null, imprint: Imprint, modelId?: string) {
  const e = await engine([call("fee_quote", { amount: 100 }), "The fee is 0.50."], modelId);
  return createChatSession({
    engine: e,
    host,
    ...(text !== null ? { tools: { kind: "file", source: memorySource("tools.py", text) } } : {}),
    imprint: imprintBinding(imprint),
  });
}
async function code(text: string | null, imprint: Imprint, modelId?: string): Promise<string> {
  return restore(text, imprint, modelId).then(
    () => "restored",
    (err: { code: string }) => err.code,
  );
}

describe("imprint gate with the real runner and the example tools.py", () => {
  let imprint: Imprint;
  beforeAll(async () => {
    await host.warm();
    const toolset = await freezeToolset(memorySource("tools.py", TOOLS), host);
    const evalScript = SAMPLE.questions.flatMap(() => ["I do not know.", "I do not know."]);
    imprint = (await learn({ sample: SAMPLE, toolset, engine: await engine(evalScript) })).imprint;
    expect(Object.keys(imprint.tools!.tool_schema_sha256)).toEqual([
      "fee_quote",
      "hello_world",
      "order_status",
      "prepare_order",
      "submit_order",
    ]);
  });

  it("a function-body edit restores, and the restored chat calls the tool through a verified runner", async () => {
    const body = edit(
      "fee = round(max(amount * FEE_RATES[tier], MIN_FEE), 2)",
      "fee = round(max(amount * FEE_RATES[tier], MIN_FEE), 2)  # same signature, new body\n    fee = fee + 0",
    );
    const s = await restore(body, imprint);
    expect(s.toolset!.tools_file_sha256).not.toBe(imprint.tools!.tools_file_sha256);
    expect(s.toolset!.active_set_sha256).toBe(imprint.tools!.active_set_sha256);
    const run = await s.chat("Quote the fee for amount 100.");
    expect(run).toMatchObject({ ok: true, outcome: "answered", answer: "The fee is 0.50." });
    expect(run.receipt).toMatchObject({
      tool_instruction_mode: "imprint",
      imprint_id: imprint.id,
      tool_instruction_sha256: imprint.prefix_sha256,
    });
    expect(run.receipt.calls[0]).toMatchObject({
      tool_name: "fee_quote",
      status: "ok",
      runner_secret_verified: true,
      tools_file_sha256_verified: true,
    });
  });

  it("every schema-level change fails closed with its code", async () => {
    expect(await code(edit("def order_status(order_id: str)", "def order_status(order_ref: str)"), imprint)).toBe(
      "imprint_tool_schema_mismatch",
    );
    expect(
      await code(
        edit('description="Quote the service fee for an amount and a pricing tier."', 'description="Quote a fee."'),
        imprint,
      ),
    ).toBe("imprint_tool_schema_mismatch");
    expect(await code(edit('execution_level="prepare"', 'execution_level="commit"'), imprint)).toBe(
      "imprint_tool_schema_mismatch",
    );
    expect(await code(edit("amount: float,", "amount: int,"), imprint)).toBe("imprint_tool_schema_mismatch");
    expect(
      await code(
        TOOLS + '\n\n@edge_tool\ndef order_cancel(order_id: str) -> dict:\n    return {"cancelled": order_id}\n',
        imprint,
      ),
    ).toBe("imprint_tool_active_set_mismatch");
    expect(
      await code(
        edit(
          '@edge_tool\ndef hello_world() -> str:\n    """Say hello: answers "hello world" (a first tool to try; it takes nothing)."""\n    return "hello world"\n',
          "",
        ),
        imprint,
      ),
    ).toBe("imprint_tool_active_set_mismatch");
    expect(await code(TOOLS, imprint, "another-model")).toBe("imprint_model_mismatch");
    expect(await code(null, imprint)).toBe("imprint_requires_tools");
    // The unchanged file restores.
    expect(await code(TOOLS, imprint)).toBe("restored");
  });
});
