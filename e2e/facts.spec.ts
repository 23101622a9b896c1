// Local facts and the built-in workspace tools in real Chromium (no Python runner involved):
// import the example facts into IndexedDB, answer a scripted question with local_facts_lookup,
// run a bash pipeline over files written by write_file, reload, and find everything still there.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

const PAGE = "/e2e/pages/facts.html";

async function ready(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page.locator("#status")).toHaveText("ready");
}

const LOOKUP = '{"tool_name": "local_facts_lookup", "arguments": {"query": "refund within days", "limit": 2}}';
const WRITE_A =
  '{"tool_name": "write_file", "arguments": {"path": "logs/a.log", "content": "ERROR disk full\\nINFO ok\\nERROR timeout\\n"}}';
const WRITE_B =
  '{"tool_name": "write_file", "arguments": {"path": "logs/b.log", "content": "ERROR disk full\\nWARN slow\\n"}}';
const PIPELINE =
  '{"tool_name": "bash", "arguments": {"command": "cat logs/*.log | grep ERROR | sort | uniq -c | sort -rn | tee report.txt"}}';

test("facts, a lookup-answered chat and a bash pipeline over write_file output all survive a reload", async ({
  page,
}) => {
  await ready(page);
  const imported = await page.evaluate(() => window.edgeFactsTest.importUrl("/examples/facts.json"));
  expect(imported).toMatchObject({ ok: true, value: { store: "support", imported: 7, inserted: 7 } });

  const chat = await page.evaluate(
    (outputs) => window.edgeFactsTest.chatFacts({ store: "support" }, "Can I still get a refund?", outputs),
    [LOOKUP, "Yes, within 30 days."],
  );
  expect(chat.ok).toBe(true);
  if (!chat.ok) return;
  expect(chat.value.outcome).toBe("answered");
  expect(chat.value.receipt.calls[0]).toMatchObject({
    tool_name: "local_facts_lookup",
    status: "ok",
    rows: 2,
    network_used_by_edge: false,
  });
  const lookup = chat.value.results[0] as { rows: number; matches: { fact_id: string }[] };
  expect(lookup.matches.map((m) => m.fact_id)).toContain("refund-window");

  const tools = await page.evaluate(
    (outputs) => window.edgeFactsTest.chatBuiltins("Summarise the errors in the logs", outputs),
    [WRITE_A, WRITE_B, PIPELINE, "Two disk errors, one timeout."],
  );
  expect(tools.ok).toBe(true);
  if (!tools.ok) return;
  expect(tools.value.outcome).toBe("answered");
  expect(tools.value.calls.map((c) => [c.tool_name, c.execution_level, c.status])).toEqual([
    ["write_file", "commit", "ok"],
    ["write_file", "commit", "ok"],
    ["bash", "commit", "ok"],
  ]);
  expect(tools.value.results[2]).toEqual({
    exit_code: 0,
    stdout: "   2 ERROR disk full\n   1 ERROR timeout\n",
    stderr: "",
  });

  await page.reload();
  await expect(page.locator("#status")).toHaveText("ready");
  // The facts store, the workspace files and the receipts are all still there.
  const stores = await page.evaluate(() => window.edgeFactsTest.listStores());
  expect(stores.ok && stores.value.map((s) => [s.store, s.facts])).toEqual([["support", 7]]);
  expect(await page.evaluate(() => window.edgeFactsTest.readWorkspace("/workspace/report.txt"))).toEqual({
    ok: true,
    value: "   2 ERROR disk full\n   1 ERROR timeout\n",
  });
  expect(await page.evaluate(() => window.edgeFactsTest.readWorkspace("/workspace/logs/b.log"))).toEqual({
    ok: true,
    value: "ERROR disk full\nWARN slow\n",
  });
  const receipts = await page.evaluate(() => window.edgeFactsTest.receipts());
  expect(receipts.ok && receipts.value.map((r) => r.calls)).toEqual([
    [["local_facts_lookup", "ok", 2]],
    [
      ["write_file", "ok", null],
      ["write_file", "ok", null],
      ["bash", "ok", null],
    ],
  ]);
  // After the reload, the shell still sees the files, and the lookup still answers.
  const again = await page.evaluate(
    (outputs) => window.edgeFactsTest.chatBuiltins("count lines", outputs),
    ['{"tool_name": "bash", "arguments": {"command": "wc -l < logs/a.log"}}', "3 lines."],
  );
  expect(again.ok && again.value.results[0]).toEqual({ exit_code: 0, stdout: "3\n", stderr: "" });
  const manifestChat = await page.evaluate(
    (outputs) =>
      window.edgeFactsTest.chatFacts({ manifestUrl: "/examples/tools.manifest.json" }, "Shipping to the EU?", outputs),
    ['{"tool_name": "support_kb", "arguments": {"query": "European Union"}}', "3 to 5 business days."],
  );
  expect(manifestChat.ok && manifestChat.value.receipt.calls[0]).toMatchObject({
    tool_name: "support_kb",
    status: "ok",
  });
  const top = manifestChat.ok
    ? (manifestChat.value.results[0] as { rows: number; matches: { fact_id: string }[] })
    : null;
  expect(top?.matches[0]?.fact_id).toBe("shipping-eu");
  expect(manifestChat.ok && manifestChat.value.receipt.calls[0]!.rows).toBe(top?.rows);
  expect(manifestChat.ok && manifestChat.value.receipt.tools_manifest_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
});

test("bad inputs in the browser: a bad facts file changes nothing; writes ask unless allowed; the shell has no network", async ({
  page,
}) => {
  await ready(page);
  await page.evaluate(() => window.edgeFactsTest.importUrl("/examples/facts.json"));
  const bad = await page.evaluate(() =>
    window.edgeFactsTest.importText(
      JSON.stringify({
        schema_version: "edge.demo.facts.v1",
        store: "support",
        facts: [
          { fact_id: "x", topic: "t", text: "new" },
          { fact_id: "x", topic: "t", text: "dup" },
        ],
      }),
    ),
  );
  expect(bad).toMatchObject({ ok: false, code: "invalid_facts_file" });
  const exported = await page.evaluate(() => window.edgeFactsTest.exportStore("support"));
  expect(exported.ok && exported.value.facts.map((f) => f.fact_id)).not.toContain("x");

  const denied = await page.evaluate(
    (outputs) => window.edgeFactsTest.chatBuiltins("write", outputs, false),
    ['{"tool_name": "write_file", "arguments": {"path": "nope.txt", "content": "x"}}'],
  );
  expect(denied.ok && [denied.value.outcome, denied.value.code]).toEqual(["failed_closed", "tool_denied"]);
  expect(await page.evaluate(() => window.edgeFactsTest.readWorkspace("nope.txt"))).toMatchObject({
    ok: false,
    code: "vfs_not_found",
  });

  const curl = await page.evaluate(
    (outputs) => window.edgeFactsTest.chatBuiltins("fetch", outputs),
    ['{"tool_name": "bash", "arguments": {"command": "curl -s https://example.com; cat /etc/passwd"}}', "No network."],
  );
  const result = curl.ok ? (curl.value.results[0] as { exit_code: number; stderr: string }) : null;
  expect(result?.stderr).toMatch(/curl: command not found/);
  expect(result?.stderr).toMatch(/\/etc\/passwd: No such file or directory/);

  const loop = await page.evaluate(
    (outputs) => window.edgeFactsTest.chatBuiltins("loop", outputs),
    ['{"tool_name": "bash", "arguments": {"command": "while true; do :; done"}}'],
  );
  expect(loop.ok && [loop.value.outcome, loop.value.code]).toEqual(["failed_closed", "bash_limit_exceeded"]);
});
