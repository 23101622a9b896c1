// `edge mcp serve --http` under exhaustion, through the real server process: the session cap
// (mcp_session_limit, and room again once a session ends), idle sessions closed (never one with
// an open event stream), and connections without the token bounded (a header deadline, and a cap
// that closes the oldest) so that, with a descriptor limit the flood would exceed, the person's
// own client is still served.
import { spawn, type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../../test/cli.ts";
import { makeProject, newClient } from "./mcp.test-helpers.ts";

const p = makeProject("edge-mcp-limits-");
const IDLE_MS = 3000;
let child: ChildProcess;
let stderr = "";
let url = "";
let token = "";

beforeAll(async () => {
  // A descriptor limit a flood of half-open connections would exceed without the bounds.
  const script = 'ulimit -n 512 && exec "$0" "$@"';
  const args = [
    BIN,
    "mcp",
    "serve",
    p.file,
    "--tool",
    "fee_quote",
    "--http",
    "127.0.0.1:0",
    "--max-sessions",
    "3",
    "--session-idle-ms",
    String(IDLE_MS),
  ];
  child = spawn("/bin/sh", ["-c", script, process.execPath, ...args], {
    env: { ...process.env, EDGE_DATA_DIR: p.dataDir },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr!.setEncoding("utf8").on("data", (t: string) => void (stderr += t));
  await until(() => /bearer token: [0-9a-f]+/.test(stderr) || child.exitCode !== null);
  url = /serving Streamable HTTP at (\S+)/.exec(stderr)![1]!;
  token = /bearer token: ([0-9a-f]+)/.exec(stderr)![1]!;
}, 120_000);

afterAll(async () => {
  child?.kill("SIGTERM");
  await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("close", resolve)));
});

const headers = (sid?: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
  ...(sid ? { "mcp-session-id": sid } : {}),
});

const initialize = (name: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name, version: "0" } },
});

async function open(name: string): Promise<string> {
  const res = await fetch(url, { method: "POST", headers: headers(), body: JSON.stringify(initialize(name)) });
  await res.text();
  expect(res.status).toBe(200);
  const sid = res.headers.get("mcp-session-id")!;
  const ack = await fetch(url, {
    method: "POST",
    headers: headers(sid),
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await ack.text();
  return sid;
}

async function listWith(sid: string): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    headers: headers(sid),
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
  });
  await res.text();
  return res.status;
}

async function close(sid: string): Promise<void> {
  const res = await fetch(url, { method: "DELETE", headers: headers(sid) });
  await res.text();
  expect(res.status).toBe(200);
}

describe("edge mcp serve --http bounds what a client or another local user can hold", { timeout: 120_000 }, () => {
  it("a session cap: the initialize past --max-sessions is refused with mcp_session_limit; a closed session makes room", async () => {
    const sids = [await open("a"), await open("b"), await open("c")];
    const refused = await fetch(url, { method: "POST", headers: headers(), body: JSON.stringify(initialize("d")) });
    expect(refused.status).toBe(503);
    const body = (await refused.json()) as { error: { message: string; data: { code: string; max_sessions: number } } };
    expect(body.error.data).toEqual({ code: "mcp_session_limit", max_sessions: 3 });
    expect(body.error.message).toContain("--max-sessions");
    // What the official SDK client sees: its connect fails, naming the code.
    const sdk = newClient("e", "0");
    await expect(
      sdk.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      ),
    ).rejects.toThrow(/mcp_session_limit/);
    expect(stderr).toContain("refused a new session: 3 are open (mcp_session_limit)");
    await close(sids[0]!);
    const again = await open("f");
    expect(await listWith(again)).toBe(200);
    for (const sid of [sids[1]!, sids[2]!, again]) await close(sid);
  });

  it("idle sessions are closed after --session-idle-ms (their id answers 404), never one with an open event stream", async () => {
    const idle = await open("idle");
    const listening = await open("listening");
    // The standalone GET stream a client keeps open to hear notifications: a request in flight.
    const stream = await fetch(url, { method: "GET", headers: { ...headers(listening), accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    await until(() => stderr.includes(`closed session ${idle}: idle`));
    expect(await listWith(idle)).toBe(404);
    expect(stderr).not.toContain(`closed session ${listening}`);
    expect(await listWith(listening)).toBe(200);
    await stream.body!.cancel();
    await close(listening);
  });

  it("a connection that never finishes its headers is closed by the server (the header deadline)", async () => {
    const socket = await halfOpen();
    const t0 = Date.now();
    await new Promise((resolve) => socket.once("close", resolve));
    // Node's default would keep it for 60 s; the server's own deadline is 10 s, checked every second.
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it("1,000 half-open connections without the token: the server keeps at most 64 of them, and the person's client is served", async () => {
    const flood = await Promise.all(Array.from({ length: 1000 }, () => halfOpen()));
    // Closed by the server, oldest first, as newer ones arrived: at once, not by a deadline (10 s here,
    // 60 s in Node by default), so the descriptors are free while the flood is still held.
    await until(() => flood.filter((s) => !s.closed).length <= 64, 5000);
    const client = newClient("the-person", "1.0.0");
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const r = (await client.callTool({ name: "fee_quote", arguments: { amount: 100 } })) as CallToolResult;
    expect(r.structuredContent).toEqual({ fee: 0.3, tier: "basic" });
    await client.close();
    for (const s of flood) s.destroy();
    expect(child.exitCode).toBeNull();
  });
});

/** A TCP connection that sends part of a request line and then nothing. */
function halfOpen(): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write("POST /mcp HTTP/1.1\r\nHost: x\r\n");
      resolve(socket);
    });
    socket.on("error", () => undefined);
    // Read what the server sends (its 408), so that its end of the connection closes ours.
    socket.resume();
    socket.once("close", () => reject(new Error("closed before connecting")));
  });
}

/** Wait for a condition; with `withinMs`, fail if it does not hold by then. */
async function until(cond: () => boolean, withinMs = Number.POSITIVE_INFINITY): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`the condition did not hold within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
