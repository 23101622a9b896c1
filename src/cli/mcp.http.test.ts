// `edge mcp serve --http 127.0.0.1:0` — Streamable HTTP on loopback with the bearer token
// it prints at start — driven by the official SDK's client (StreamableHTTPClientTransport). One
// server process; each case is its own session (its own client name, with or without elicitation).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, ElicitRequest, Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Receipt } from "../receipts/types.ts";
import { edgeCli, startEdge, type EdgeProcessResult } from "../../test/cli.ts";
import {
  errorOf,
  inspector,
  makeProject,
  newClient,
  verifiedReceipts,
  type ElicitHandler,
} from "./mcp.test-helpers.ts";

const p = makeProject("edge-mcp-http-");
let server: { child: ReturnType<typeof startEdge>["child"]; done: Promise<EdgeProcessResult> };
let url = "";
let token = "";
let stderr = "";
const open: Client[] = [];

beforeAll(async () => {
  server = startEdge(
    [
      "mcp",
      "serve",
      p.file,
      "--http",
      "127.0.0.1:0",
      "--timeout-ms",
      "120000",
      "--tool",
      "fee_quote",
      "--tool",
      "submit_order",
      "--tool-tag",
      "slow",
    ],
    { ...process.env, EDGE_DATA_DIR: p.dataDir },
  );
  await new Promise<void>((resolve, reject) => {
    server.child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
      const u = /serving Streamable HTTP at (\S+)/.exec(stderr);
      const t = /bearer token: ([0-9a-f]+)/.exec(stderr);
      if (u && t) {
        url = u[1]!;
        token = t[1]!;
        resolve();
      }
    });
    void server.done.then((r) => reject(new Error(`the server exited: ${r.stderr}`)));
  });
}, 120_000);

afterAll(async () => {
  for (const c of open) await c.close().catch(() => undefined);
  server?.child.kill("SIGTERM");
  const r = await server?.done;
  expect(r?.code, `${r?.signal} ${r?.stderr.slice(-2000)}`).toBe(0);
});

async function connect(name: string, elicit?: ElicitHandler): Promise<Client> {
  const client = newClient(name, "9.9.9", elicit);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  open.push(client);
  return client;
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "0" } },
};

// Each test runs whole CLI processes and fresh runners: minutes on a loaded 2-core machine.
describe("edge mcp serve --http (the SDK's client)", { timeout: 180_000 }, () => {
  it("listens on loopback only and answers 401, with Edge's code, to requests without the token", async () => {
    expect(new URL(url).hostname).toBe("127.0.0.1");
    for (const auth of [undefined, "Bearer nottherightone", `Basic ${token}`]) {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(auth ? { authorization: auth } : {}),
        },
        body: JSON.stringify(initialize),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("mcp_unauthorized");
    }
    const refused = await edgeCli(p.dataDir, "mcp", "serve", p.file, "--http", "0.0.0.0:0");
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("mcp_host_not_loopback");
    // Without a selection this file has 9 tools: more than 8 are never served.
    const nine = makeProject(
      "edge-mcp-nine-",
      `from edgestudio.tools import edge_tool\n${Array.from({ length: 9 }, (_, i) => `\n@edge_tool\ndef t${i}() -> dict:\n    return {}\n`).join("")}`,
      p.dataDir,
    );
    const tooMany = await edgeCli(nine.dataDir, "mcp", "serve", nine.file, "--http", "127.0.0.1:0");
    expect(tooMany.code).toBe(1);
    expect(tooMany.err).toContain("active_tool_limit_exceeded");
  });

  it("answers 413 (not a dropped connection or a 500) to a request body over 4 MiB", async () => {
    const body = JSON.stringify({ ...initialize, pad: "x".repeat(4 * 1024 * 1024) });
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
      },
      body,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /over 4194304 bytes.*Send smaller requests/,
    );
  });

  it("lists, calls, and refuses invalid arguments with Edge's code", async () => {
    const c = await connect("edge-http-plain");
    const { tools } = await c.listTools();
    expect(tools.find((t) => t.name === "submit_order")!.annotations).toMatchObject({ destructiveHint: true });
    const ok = (await c.callTool({ name: "fee_quote", arguments: { amount: 250 } })) as CallToolResult;
    expect(ok.structuredContent).toEqual({ fee: 0.75, tier: "basic" });
    expect(
      errorOf((await c.callTool({ name: "fee_quote", arguments: { amount: 1, extra: true } })) as CallToolResult).code,
    ).toBe("invalid_tool_args");
  });

  it("a client written by others (@modelcontextprotocol/inspector-cli) lists the tools with the token", async () => {
    const listed = JSON.parse(
      await inspector(p.dataDir, [
        url,
        "--transport",
        "http",
        "--method",
        "tools/list",
        "--header",
        `Authorization: Bearer ${token}`,
      ]),
    ) as { tools: Tool[] };
    // The selection given at start (--tool fee_quote --tool submit_order --tool-tag slow).
    expect(listed.tools.map((t) => t.name).sort()).toEqual(["fee_quote", "stamp", "submit_order"]);
    expect(listed.tools.find((t) => t.name === "submit_order")!.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
    });
    await expect(inspector(p.dataDir, [url, "--transport", "http", "--method", "tools/list"])).rejects.toThrow(
      /401|nauthorized/,
    );
  });

  it("a commit tool with elicitation: the person is asked (bound to the pending action's hashes and expiry) and it runs once on yes", async () => {
    const asked: ElicitRequest["params"][] = [];
    const c = await connect(
      "edge-http-asks",
      (req) => (asked.push(req), { action: "accept", content: { confirm: true } }),
    );
    const r = (await c.callTool({ name: "submit_order", arguments: { draft_id: "D-7" } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ order_id: "O-D-7" });
    expect(asked).toHaveLength(1);
    const id = /Pending action (pa_[0-9a-f]{32}), expires (\S+)\./.exec(asked[0]!.message)!;
    const shown = await edgeCli(p.dataDir, "tools", "pending", "show", id[1]!, "--json");
    expect(shown.json.pending).toMatchObject({ status: "done", expires_at: id[2] });
    expect(asked[0]!.message).toContain(`binding_sha256 ${shown.json.pending.binding_sha256}`);
    expect(asked[0]!.message).toContain(`args_sha256 ${shown.json.pending.args_sha256}`);
  });

  it("a commit tool with elicitation: no (or dismissing the question) rejects the pending action and nothing runs", async () => {
    let answer: "decline" | "cancel" = "decline";
    const c = await connect("edge-http-declines", () => ({ action: answer }));
    for (const a of ["decline", "cancel"] as const) {
      answer = a;
      const r = (await c.callTool({ name: "submit_order", arguments: { draft_id: `D-${a}` } })) as CallToolResult;
      expect(errorOf(r).code).toBe("confirmation_rejected");
      const pendingId = (
        JSON.parse((r.content[0] as { text: string }).text) as { pending_action: { id: string; status: string } }
      ).pending_action;
      expect(pendingId.status).toBe("rejected");
    }
  });

  it("a client that goes away mid-call: the runner is stopped and the receipt records the abort", async () => {
    const c = await connect("edge-http-leaver");
    const before = stderr.length;
    const call = c.callTool({ name: "stamp", arguments: { seconds: 60 } }).catch((err: Error) => err);
    await until(() => stderr.slice(before).includes("call stamp"));
    await c.close();
    expect(await call).toBeInstanceOf(Error);
    await until(() => /stamp → aborted/.test(stderr.slice(before)));
  });

  it("receipts: one per call, surface mcp and each session's client, confirm receipts too; the chain verifies", async () => {
    const receipts = (await verifiedReceipts(p)).filter((r) => r.surface === "mcp");
    const of = (name: string): Receipt[] => receipts.filter((r) => r.client?.name === name);
    expect(of("edge-http-plain").map((r) => r.calls[0]!.code ?? r.calls[0]!.status)).toEqual([
      "ok",
      "invalid_tool_args",
    ]);
    // The commit call's own receipt (pending), then the confirm receipt of the run the person allowed.
    expect(of("edge-http-asks").map((r) => [r.kind, r.outcome])).toEqual([
      ["tool_call", "pending_confirmation"],
      ["confirm", "return_direct"],
    ]);
    // The client answered the question: the receipt says so, and claims no person.
    expect(of("edge-http-asks")[1]).toMatchObject({
      confirmed_via: "elicitation",
      client: { version: "9.9.9" },
      calls: [{ tool_name: "submit_order", status: "ok" }],
    });
    expect(stderr).toMatch(
      /submit_order: the client answered yes to the elicitation \(Edge cannot tell whether a person saw it\) → done/,
    );
    expect(stderr).not.toContain("confirmed by the person");
    expect(of("edge-http-declines").map((r) => r.outcome)).toEqual(["pending_confirmation", "pending_confirmation"]);
    expect(of("edge-http-leaver")).toMatchObject([
      { code: "aborted", calls: [{ tool_name: "stamp", status: "aborted" }] },
    ]);
  });
});

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 50));
}
