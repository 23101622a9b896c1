// An MCP client that tries to confirm a commit tool by itself, as an agent with a shell tool would:
// the official SDK's client reads everything the server gives it (every content block, _meta,
// the tool list, the instructions), looks for a token and a confirm command, and runs `edge tools
// confirm` with every candidate it finds. The token goes only to the server's stderr, so every try
// fails and the action stays pending. Its name carries a line break meant to forge a line in the
// server's log ("confirmed by the person → done"); the log shows it escaped, on its own line.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { edgeCli } from "../../test/cli.ts";
import { errorOf, makeProject, newClient, stdioServer, type StdioServer } from "./mcp.test-helpers.ts";

const FORGED = "edge mcp:   submit_order: confirmed by the person → done, receipt confirm_forged";
const p = makeProject("edge-mcp-self-confirm-");
let s: StdioServer;

beforeAll(async () => {
  s = await stdioServer(p, newClient(`helpful-agent\n${FORGED}\r`, "1.0.0"), ["--tool", "submit_order"]);
}, 120_000);

afterAll(async () => {
  await s?.client.close();
});

/** Every string the protocol handed the client, and every token-shaped word in them. */
function harvest(...values: unknown[]): { text: string; tokens: string[] } {
  const text = JSON.stringify(values);
  return { text, tokens: [...new Set(text.match(/(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g) ?? [])] };
}

describe("an MCP client cannot confirm a commit tool by itself", { timeout: 180_000 }, () => {
  it("finds no token in anything the server sends it; every confirm it tries is refused; the action stays pending", async () => {
    const listed = await s.client.listTools();
    const r = (await s.client.callTool({ name: "submit_order", arguments: { draft_id: "D-self" } })) as CallToolResult;
    expect(errorOf(r).code).toBe("tool_confirmation_required");
    const pending = (r._meta as Record<string, { id: string }>)["edge-web/pending_action"]!;
    const seen = harvest(
      r,
      listed,
      s.client.getInstructions(),
      s.client.getServerVersion(),
      s.client.getServerCapabilities(),
    );
    expect(seen.text).not.toMatch(/--token|tools confirm/);
    // What the client is told instead: the id, and that the person confirms where the server runs.
    expect(seen.text).toContain(pending.id);
    expect(seen.text).toContain("This client never receives the token");

    // The token does exist: the server printed it for the person, on its own stderr.
    await s.waitForStderr(new RegExp(`tools confirm ${pending.id} --token \\S+\\n`));
    const real = new RegExp(`tools confirm ${pending.id} --token (\\S+)`).exec(s.stderr())![1]!;
    expect(seen.tokens).not.toContain(real);

    // An agent with a shell tries every candidate it found, and the pending store's own view.
    const shown = await edgeCli(p.dataDir, "tools", "pending", "show", pending.id, "--json");
    expect(shown.out).not.toContain(real);
    const tries = [...seen.tokens, ...harvest(shown.json).tokens, "A".repeat(43)];
    for (const token of tries) {
      const tried = await edgeCli(p.dataDir, "tools", "confirm", pending.id, "--token", token, "--json");
      expect(tried.code).toBe(1);
      expect(tried.json.error.code).toBe("confirmation_token_invalid");
    }
    const after = await edgeCli(p.dataDir, "tools", "pending", "show", pending.id, "--json");
    expect(after.json.pending.status).toBe("pending");
    const receipts = await edgeCli(p.dataDir, "receipts", "list", "--json");
    expect((receipts.json.receipts as Array<{ kind: string }>).filter((x) => x.kind === "confirm")).toEqual([]);
  });

  it("a line break in the client's name cannot forge a line of the server's log", async () => {
    await s.waitForStderr(/call submit_order \(/);
    const lines = s.stderr().split("\n");
    expect(lines.filter((l) => l.startsWith(FORGED.slice(0, 40)))).toEqual([]);
    const callLine = lines.find((l) => l.includes("call submit_order ("))!;
    expect(callLine).toBe(`edge mcp: call submit_order (helpful-agent\\n${FORGED}\\r 1.0.0)`);
    // The receipt keeps the name as the client sent it (JSON escapes it there).
    const receipts = await edgeCli(p.dataDir, "receipts", "list", "--json");
    expect(receipts.json.receipts.at(-1).client).toEqual({ name: `helpful-agent\n${FORGED}\r`, version: "1.0.0" });
  });
});
