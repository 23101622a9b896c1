// The Node front doors get the session the Node root builds (src/assembly/node.ts): `edge chat`
// and `edge mcp serve`, run as a person runs them, against the same request made to
// `createNodeEdge()` directly (in a process of its own, on the same data folder). Equal receipts
// (but for ids and times), one receipt chain, the same pending-action ticket, the same tool list.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLES, edgeCliWithEnv, startNode, writeTestFile } from "./cli.ts";
import { makeProject, newClient, stdioServer } from "../src/cli/mcp.test-helpers.ts";
import { sameParts } from "./fixtures/receipt-parts.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-assembly-node-"));
const ENV = { ...process.env, EDGE_DATA_DIR: join(tmp, "data") };
const TOOLS = join(EXAMPLES, "tools.py");

/** Run `body` (an ES module's code, with `createNodeEdge` and `readScript` in scope) with tsx in its
 *  own process on ENV's data folder; its stdout is one JSON document. */
async function withRoot(body: string, env: NodeJS.ProcessEnv = ENV): Promise<Record<string, unknown>> {
  const code = `import { createNodeEdge } from "./src/assembly/node.ts";\nimport { readScript } from "./src/cli/script-file.ts";\n${body}`;
  const r = await startNode(["--import", "tsx", "--input-type=module", "-e", code], env).done;
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

const rootChat = (script: string, prompt: string) =>
  withRoot(`
const edge = createNodeEdge({ spares: 0 });
const { engine, beforePrompt } = await edge.engine({ kind: "scripted", outputs: await readScript(${JSON.stringify(script)}) });
await engine.load();
const session = await edge.session({ engine, tools: { kind: "file", file: ${JSON.stringify(TOOLS)}, selection: {} }, toolChoice: "auto", includeText: false });
beforePrompt();
const run = await session.chat(${JSON.stringify(prompt)});
await edge.close();
console.log(JSON.stringify(run));`);

/** `edge chat` as a person runs it: the scripted model's outputs in `script`, one prompt, JSON out. */
async function cliChat(script: string, prompt: string): Promise<Record<string, unknown>> {
  const args = ["chat", "--tools", TOOLS, "--engine", "scripted", "--script", script, "--prompt", prompt, "--json"];
  const r = await edgeCliWithEnv(ENV, ...args);
  expect(r.err).not.toMatch(/cli_build_failed/);
  return r.json as Record<string, unknown>;
}

const receiptOf = (run: Record<string, unknown>) => run.receipt as Record<string, unknown>;
const ticketOf = (run: Record<string, unknown>) => run.pending_action as Record<string, unknown>;

describe("the Node front doors and the Node root", () => {
  it("edge chat: the receipt and the pending action of the root's session, in the same chain", {
    timeout: 240_000,
  }, async () => {
    const fee = writeTestFile(tmp, "fee.json", [
      { tool_name: "fee_quote", arguments: { amount: 250 } },
      "The fee for 250 is {{tool_result.fee}} EUR.",
    ]);
    const cli = await cliChat(fee, "Fee for 250?");
    const root = await rootChat(fee, "Fee for 250?");
    expect(cli).toMatchObject({ ok: true, outcome: "answered", answer: "The fee for 250 is 0.75 EUR." });
    expect(receiptOf(cli).calls).toMatchObject([{ tool_name: "fee_quote", status: "ok" }]);
    expect(sameParts(receiptOf(root))).toEqual(sameParts(receiptOf(cli)));
    // One store: the root's receipt is chained onto the CLI's.
    expect(receiptOf(root).prev_receipt_sha256).toBe(receiptOf(cli).receipt_sha256);

    // A commit tool: the same broker (the same ticket, with the confirm command for this installation).
    const submit = writeTestFile(tmp, "submit.json", [{ tool_name: "submit_order", arguments: { draft_id: "D-1" } }]);
    const cliPending = await cliChat(submit, "Submit D-1");
    const rootPending = await rootChat(submit, "Submit D-1");
    expect(cliPending.outcome).toBe("pending_confirmation");
    expect(sameParts(receiptOf(rootPending))).toEqual(sameParts(receiptOf(cliPending)));
    expect(Object.keys(ticketOf(rootPending)).sort()).toEqual(Object.keys(ticketOf(cliPending)).sort());
    expect(String(ticketOf(rootPending).confirm_command)).toContain(" tools confirm ");
  });

  it("edge mcp serve: the tools the root's tool service offers", { timeout: 240_000 }, async () => {
    const p = makeProject("edge-assembly-mcp-");
    const s = await stdioServer(p, newClient("edge-assembly-test", "1.0.0"));
    try {
      const { tools } = await s.client.listTools();
      const root = await withRoot(
        `
const edge = createNodeEdge({ spares: 0 });
const service = await edge.toolService({ tools: { file: ${JSON.stringify(p.file)}, selection: {} }, log: () => undefined });
console.log(JSON.stringify({ tools: service.tools() }));
await edge.close();`,
        { ...process.env, EDGE_DATA_DIR: p.dataDir },
      );
      expect(tools.length).toBeGreaterThan(0);
      expect(tools).toEqual(root.tools);
    } finally {
      await s.client.close();
    }
  });
});
