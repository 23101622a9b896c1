// Shared by the `edge mcp serve` tests: a tools project in a temporary folder, a real SDK client
// on a real `node bin/edge.cjs mcp serve` process, and the receipts check afterwards.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import type { Receipt } from "../receipts/types.ts";
import { BIN, edgeCli } from "../../test/cli.ts";

export const TOOLS_PY = `import time
from typing import Literal
from edgestudio.tools import edge_tool

ORDER = {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"], "additionalProperties": False}
DRAFT = {"type": "object", "properties": {"draft_id": {"type": "string"}}, "required": ["draft_id"], "additionalProperties": False}


@edge_tool(intent_tags=["billing"])
def fee_quote(amount: float, tier: Literal["basic", "pro"] = "basic") -> dict:
    """Quote the fee for an amount."""
    return {"fee": round(amount * (0.003 if tier == "basic" else 0.002), 6), "tier": tier}


@edge_tool(execution_level="prepare", return_direct=True, output_schema=DRAFT, intent_tags=["orders"])
def draft_order(item: str) -> dict:
    """Draft an order (nothing is submitted)."""
    return {"draft_id": "D-" + item}


@edge_tool(execution_level="commit", return_direct=True, output_schema=ORDER, intent_tags=["orders"])
def submit_order(draft_id: str) -> dict:
    """Submit a drafted order."""
    return {"order_id": "O-" + draft_id}


@edge_tool
def big() -> dict:
    """Too much output."""
    return {"blob": "x" * 70000}


@edge_tool(intent_tags=["slow"])
def stamp(seconds: float) -> dict:
    """Sleep, and say when it ran."""
    start = time.time()
    time.sleep(seconds)
    return {"start": start, "end": time.time()}
`;

export interface Project {
  dir: string;
  file: string;
  dataDir: string;
}

/** A tools project in a folder of its own. `dataDir`: share another project's $EDGE_DATA_DIR (and
 *  so its runner snapshot cache: a fresh data folder makes its first runner boot cold). */
export function makeProject(prefix: string, source = TOOLS_PY, dataDir?: string): Project {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dir = join(root, "tools");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "tools.py");
  writeFileSync(file, source);
  return { dir, file, dataDir: dataDir ?? join(root, "data") };
}

export type ElicitHandler = (request: ElicitRequest["params"]) => {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
};

export function newClient(name: string, version: string, elicit?: ElicitHandler): Client {
  const client = new Client({ name, version }, elicit ? { capabilities: { elicitation: { form: {} } } } : {});
  if (elicit) client.setRequestHandler(ElicitRequestSchema, async (req) => elicit(req.params));
  return client;
}

export interface StdioServer {
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
  /** Resolves once the server's stderr matches (a condition, not a time). */
  waitForStderr(re: RegExp): Promise<void>;
}

export async function stdioServer(p: Project, client: Client, extra: string[] = []): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "serve", p.file, ...extra],
    env: { ...(process.env as Record<string, string>), EDGE_DATA_DIR: p.dataDir },
    stderr: "pipe",
  });
  let err = "";
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  transport.stderr!.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
    for (const w of [...waiters]) {
      if (!w.re.test(err)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => err,
    waitForStderr: (re) => (re.test(err) ? Promise.resolve() : new Promise((resolve) => waiters.push({ re, resolve }))),
  };
}

/** The JSON a tool error carries in its text: {ok: false, error: {code, message}, …}. */
export function errorOf(result: CallToolResult): { code: string; message: string } {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const first = result.content[0] as { type: string; text: string };
  const doc = JSON.parse(first.text) as { ok: boolean; error: { code: string; message: string } };
  expect(doc.ok).toBe(false);
  expect((result._meta as Record<string, { code: string }>)["edge-web/error"]!.code).toBe(doc.error.code);
  return doc.error;
}

/** `edge receipts export`, then `edge receipts verify` on that file: the chain must hold. */
export async function verifiedReceipts(p: Project): Promise<Receipt[]> {
  const exported = await edgeCli(p.dataDir, "receipts", "export");
  expect(exported.code).toBe(0);
  const file = join(p.dataDir, "..", `receipts-${Date.now()}.jsonl`);
  writeFileSync(file, exported.out);
  const verified = await edgeCli(p.dataDir, "receipts", "verify", file, "--json");
  expect(verified.code, verified.out + verified.err).toBe(0);
  expect(verified.json).toMatchObject({ ok: true });
  return exported.out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Receipt);
}

const INSPECTOR_BUILD = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/inspector-cli/build/", import.meta.url),
);

/** The inspector's own bin, from its own folder (it reads its package.json relative to the working directory). */
export function inspector(dataDir: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(INSPECTOR_BUILD, "cli.js"), "--cli", ...args], {
      cwd: INSPECTOR_BUILD,
      env: { ...process.env, EDGE_DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => void (out += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => void (err += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`inspector-cli exited ${code}: ${err}`)),
    );
  });
}
