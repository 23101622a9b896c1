// The tool loop end to end in Node: scripted model, real Pyodide runner processes,
// the example tools.py.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedEngine } from "../engines/scripted.ts";
import { createNodeRunnerHost } from "../runner/node.ts";
import { memorySource } from "../toolset/inspect.ts";
import { createChatSession } from "./session.ts";

const EXAMPLE = readFileSync(new URL("../../public/examples/tools.py", import.meta.url), "utf8");
const host = createNodeRunnerHost({ spares: 1 });
afterAll(() => host.close());

async function engine(script: string[]) {
  const e = new ScriptedEngine(script, { chunkSize: 64 });
  await e.load();
  return e;
}
const call = (name: string, args: object) => JSON.stringify({ tool_name: name, arguments: args });

// Each test boots fresh runner processes: over a minute on a loaded 2-core machine.
describe("chat with Python tools (Node runners)", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    await host.warm();
  });

  it("calls fee_quote, feeds the verified result back, and answers", async () => {
    const e = await engine([call("fee_quote", { amount: 250 }), "The fee is 0.75."]);
    const s = await createChatSession({
      engine: e,
      host,
      tools: { kind: "file", source: memorySource("tools.py", EXAMPLE) },
    });
    const run = await s.chat("Use the fee_quote tool for amount 250. State the exact fee.");
    expect(run).toMatchObject({ ok: true, outcome: "answered", answer: "The fee is 0.75." });
    expect(e.calls[1]!.messages.at(-1)!.content).toBe(
      'Result of fee_quote: {"amount":250,"fee":0.75,"rate":0.003,"tier":"basic"}',
    );
    const c = run.receipt.calls[0]!;
    expect(c).toMatchObject({
      tool_name: "fee_quote",
      status: "ok",
      runner_secret_verified: true,
      tools_file_sha256_verified: true,
      network_used_by_edge: false,
    });
    expect(c.tool_schema_sha256).toBe(s.toolset!.active.find((t) => t.schema.name === "fee_quote")!.schema_sha256);
    expect(run.receipt.tools_file_sha256).toBe(s.toolset!.tools_file_sha256);
  });

  it("a prepare tool returns its validated result directly", async () => {
    const e = await engine([call("prepare_order", { sku: "ab-1", quantity: 2 })]);
    const s = await createChatSession({
      engine: e,
      host,
      tools: { kind: "file", source: memorySource("tools.py", EXAMPLE) },
    });
    const run = await s.chat("Prepare 2 of ab-1.");
    expect(run).toMatchObject({
      outcome: "return_direct",
      result: { draft_id: "D-AB-1-2", status: "prepared", quantity: 2 },
    });
  });

  it("an edit of tools.py after the session froze it is refused with tools_file_changed", async () => {
    let text = EXAMPLE;
    const e = await engine([call("hello_world", {}), "ok", call("hello_world", {})]);
    const s = await createChatSession({
      engine: e,
      host,
      tools: { kind: "file", source: memorySource("tools.py", () => text) },
    });
    expect((await s.chat("hi")).outcome).toBe("answered");
    text = EXAMPLE.replace('return "hello world"', 'return "edited"');
    const run = await s.chat("hi again");
    expect(run).toMatchObject({ outcome: "failed_closed", error: { code: "tools_file_changed" } });
    expect(run.receipt.calls[0]).toMatchObject({
      status: "failed_closed",
      code: "tools_file_changed",
      tools_file_sha256_verified: false,
    });
    // A new session picks the edited file up.
    const fresh = await createChatSession({
      engine: await engine([call("hello_world", {}), "done"]),
      host,
      tools: { kind: "file", source: memorySource("tools.py", () => text) },
    });
    const ok = await fresh.chat("hi");
    expect(ok.outcome).toBe("answered");
  });

  it("an abort mid-call terminates the runner and the receipt says aborted", async () => {
    const src = `from edgestudio.tools import edge_tool\n\n@edge_tool\ndef spin() -> dict:\n    while True:\n        pass\n`;
    const e = await engine([call("spin", {}), "never"]);
    const s = await createChatSession({
      engine: e,
      host,
      tools: { kind: "file", source: memorySource("spin.py", src) },
      timeoutMs: 30_000,
    });
    const ctl = new AbortController();
    const run = s.chat("spin", {
      signal: ctl.signal,
      onEvent: (ev) => ev.type === "tool_call" && setTimeout(() => ctl.abort(), 300),
    });
    const done = await run;
    expect(done).toMatchObject({ outcome: "failed_closed", error: { code: "aborted" } });
    expect(done.receipt.calls[0]).toMatchObject({ tool_name: "spin", status: "aborted" });
  });
});
