// `edge mcp serve` over stdio, driven by the official SDK's client (StdioClientTransport
// spawning `node bin/edge.cjs mcp serve …`) and by @modelcontextprotocol/inspector-cli: real CLI
// processes, real runners, real pending actions and receipts. One server serves every case in
// order: the edited file near the end, then the client that disconnects (which ends it).
import { writeFileSync } from "node:fs";
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, edgeCli, runAsPrinted } from "../../test/cli.ts";
import {
  errorOf,
  inspector,
  makeProject,
  newClient,
  stdioServer,
  TOOLS_PY,
  verifiedReceipts,
  type StdioServer,
} from "./mcp.test-helpers.ts";

const p = makeProject("edge-mcp-stdio-");
let s: StdioServer;
let inspected: {
  tools: Array<{
    name: string;
    schema: { parameters: unknown; output_schema: unknown; execution_level: string };
    schema_sha256: string;
  }>;
  active_set_sha256: string;
};

beforeAll(async () => {
  s = await stdioServer(p, newClient("edge-test-client", "1.2.3"), ["--timeout-ms", "60000"]);
  // After the server's start, so that it finds the runner snapshot the server made.
  const inspect = await edgeCli(p.dataDir, "tools", "inspect", p.file, "--json");
  expect(inspect.code).toBe(0);
  inspected = inspect.json;
}, 120_000);

afterAll(async () => {
  await s?.client.close(); // already closed by the disconnect case, unless it failed before
});

const call = (name: string, args: Record<string, unknown>) =>
  s.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

// Each test runs whole CLI processes and fresh runners: minutes on a loaded 2-core machine.
describe("edge mcp serve over stdio (the SDK's client)", { timeout: 180_000 }, () => {
  it("lists the frozen active set: inputSchema exactly the frozen schema, outputSchema where declared, annotations from the level", async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(inspected.tools.map((t) => t.name).sort());
    const byName = new Map<string, Tool>(tools.map((t) => [t.name, t]));
    for (const frozen of inspected.tools) {
      const t = byName.get(frozen.name)!;
      expect(t.inputSchema).toEqual(frozen.schema.parameters);
      if (frozen.schema.output_schema) expect(t.outputSchema).toEqual(frozen.schema.output_schema);
      else expect(t.outputSchema).toBeUndefined();
      expect(t._meta).toMatchObject({
        "edge-web/schema_sha256": frozen.schema_sha256,
        "edge-web/active_set_sha256": inspected.active_set_sha256,
      });
    }
    expect(byName.get("fee_quote")!.annotations).toEqual({ readOnlyHint: true });
    expect(byName.get("draft_order")!.annotations).toEqual({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get("submit_order")!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
  });

  it("a read tool's call: the checked result as structuredContent and as text, with its receipt", async () => {
    const r = await call("fee_quote", { amount: 1000, tier: "pro" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ fee: 2, tier: "pro" });
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual({ fee: 2, tier: "pro" });
    expect((r._meta as Record<string, string>)["edge-web/receipt_id"]).toMatch(/^mcp_/);
    // A prepare tool runs as today.
    expect((await call("draft_order", { item: "kb" })).structuredContent).toEqual({ draft_id: "D-kb" });
  });

  it("invalid arguments, an unknown tool and an oversized result are tool errors carrying Edge's code", async () => {
    const bad = errorOf(await call("fee_quote", { amount: "lots" }));
    expect(bad.code).toBe("invalid_tool_args");
    expect(bad.message).toContain("amount");
    expect(errorOf(await call("fee_qoute", { amount: 1 }))).toMatchObject({
      code: "unknown_tool",
      message: expect.stringContaining('Did you mean "fee_quote"'),
    });
    expect(errorOf(await call("big", {})).code).toBe("tool_result_oversized");
  });

  it("Python tools called at once run one after the other (the chat loop's barrier)", async () => {
    const [a, b] = await Promise.all([call("stamp", { seconds: 0.4 }), call("stamp", { seconds: 0.4 })]);
    const [x, y] = [
      a.structuredContent as { start: number; end: number },
      b.structuredContent as { start: number; end: number },
    ].sort((m, n) => m.start - n.start);
    expect(x!.end).toBeLessThanOrEqual(y!.start);
  });

  it("a commit tool without elicitation: the client gets the pending id and what the person must do, never the token; the command on the server's stderr runs as printed from any folder", async () => {
    const r = await call("submit_order", { draft_id: "D-kb" });
    expect(errorOf(r).code).toBe("tool_confirmation_required");
    const pending = (r._meta as Record<string, { id: string; expires_at: string }>)["edge-web/pending_action"]!;
    const everything = JSON.stringify(r);
    expect(everything).not.toMatch(/--token|edge tools confirm/);
    expect(everything).toContain("the reject command printed beside it");
    // The person's command: only on the server's stderr, this installation's edge by absolute path,
    // with the data folder the action is stored in.
    await s.waitForStderr(new RegExp(`pending action ${pending.id} .*To run it once, run in a terminal: .*\n`));
    const printed = new RegExp(
      `To run it once, run in a terminal: (.*tools confirm ${pending.id} --token (\\S+))\n`,
    ).exec(s.stderr())!;
    expect(printed[1]).toBe(
      `EDGE_DATA_DIR='${p.dataDir}' '${process.execPath}' '${BIN}' tools confirm ${pending.id} --token ${printed[2]}`,
    );
    expect(everything).not.toContain(printed[2]);
    expect(s.stderr()).toContain(
      `To refuse it: EDGE_DATA_DIR='${p.dataDir}' '${process.execPath}' '${BIN}' tools pending reject ${pending.id}`,
    );
    const shown = await edgeCli(p.dataDir, "tools", "pending", "show", pending.id, "--json");
    expect(shown.json.pending).toMatchObject({
      status: "pending",
      tool_name: "submit_order",
      arguments: { draft_id: "D-kb" },
    });
    // As a person pastes it: a shell, in a folder outside the checkout, no EDGE_DATA_DIR set.
    const ran = await runAsPrinted(printed[1]!);
    expect(ran.code, ran.err).toBe(0);
    expect(ran.out).toContain('"order_id": "O-D-kb"');
    expect(ran.err).toContain(`${pending.id}: done, receipt confirm_${pending.id}`);
  });

  it("an edited file fails closed on the next call (tools_file_changed) and the server says so; SIGHUP re-freezes and tells the client", async () => {
    writeFileSync(p.file, TOOLS_PY.replace('"tier": tier}', '"tier": tier, "edited": True}'));
    const e = errorOf(await call("fee_quote", { amount: 10 }));
    expect(e.code).toBe("tools_file_changed");
    await s.waitForStderr(
      /changed after this server froze it at start: every call fails closed with tools_file_changed/,
    );
    const changed = new Promise<void>((resolve) =>
      s.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    process.kill(s.transport.pid!, "SIGHUP");
    await changed;
    expect((await call("fee_quote", { amount: 10 })).structuredContent).toMatchObject({ edited: true });
  });

  it("a client that disconnects mid-call: the runner is stopped, the server exits, and the receipt records the abort", async () => {
    const pid = s.transport.pid!;
    const pendingCall = call("stamp", { seconds: 50 }).catch((err: Error) => err);
    await s.waitForStderr(/call stamp \(edge-test-client 1\.2\.3\)\n(?![\s\S]*stamp →)/);
    await s.client.close();
    expect(await pendingCall).toBeInstanceOf(Error);
    await waitForExit(pid);
    expect(s.stderr()).toMatch(/stamp → aborted[\s\S]*edge mcp: stopped/);
  });

  it("every call left a receipt with surface mcp and the client's name and version, and the chain verifies", async () => {
    const receipts = await verifiedReceipts(p);
    const mcp = receipts.filter((r) => r.surface === "mcp");
    // fee_quote, draft_order, 3 errors, 2 stamps, submit_order, the edited call, the one after it, the abandoned one
    expect(mcp.length).toBe(11);
    for (const r of mcp)
      expect(r).toMatchObject({
        kind: "tool_call",
        client: { name: "edge-test-client", version: "1.2.3" },
        extra: { via: "mcp_tools_call" },
      });
    const codes = mcp.map((r) => r.calls[0]!.code ?? r.calls[0]!.status);
    expect(codes).toEqual([
      "ok",
      "ok",
      "invalid_tool_args",
      "unknown_tool",
      "tool_result_oversized",
      "ok",
      "ok",
      "tool_confirmation_required",
      "tools_file_changed",
      "ok",
      "aborted",
    ]);
    expect(mcp.at(-1)).toMatchObject({
      outcome: "failed_closed",
      code: "aborted",
      calls: [{ tool_name: "stamp", status: "aborted", code: "aborted" }],
    });
    expect(mcp.find((r) => r.calls[0]!.tool_name === "submit_order")).toMatchObject({
      outcome: "pending_confirmation",
      calls: [{ status: "pending_confirmation", execution_level: "commit" }],
    });
    // The confirmation ran from the CLI: its own receipt, not an MCP one, confirmed in a terminal.
    expect(receipts.find((r) => r.kind === "confirm")).toMatchObject({
      outcome: "return_direct",
      confirmed_via: "terminal",
      calls: [{ tool_name: "submit_order", status: "ok" }],
    });
    expect(receipts.find((r) => r.kind === "confirm")!.surface).toBeUndefined();
  });
});

describe("a client written by others: @modelcontextprotocol/inspector-cli", { timeout: 180_000 }, () => {
  it("calls a tool over stdio (and lists them over HTTP: mcp.http.test.ts)", async () => {
    // After the disconnect ended the main server: its data folder, so its snapshot cache.
    const q = makeProject("edge-mcp-inspector-", undefined, p.dataDir);
    const called = JSON.parse(
      await inspector(q.dataDir, [
        "node",
        BIN,
        "mcp",
        "serve",
        q.file,
        "--method",
        "tools/call",
        "--tool-name",
        "fee_quote",
        "--tool-arg",
        "amount=250",
      ]),
    ) as CallToolResult;
    expect(called.structuredContent).toEqual({ fee: 0.75, tier: "basic" });
    const receipts = await verifiedReceipts(q);
    expect(receipts.at(-1)).toMatchObject({
      surface: "mcp",
      client: { name: "inspector-cli", version: "1.0.3" },
      calls: [{ tool_name: "fee_quote", status: "ok" }],
    });
  });
});

/** `sh -c COMMAND` from an empty folder outside the checkout, with no EDGE_DATA_DIR. */
async function waitForExit(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
