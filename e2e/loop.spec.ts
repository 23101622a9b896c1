// The tool loop end to end in Chromium: scripted model, Python tools in the sandboxed runner,
// chained receipts in IndexedDB that survive a reload.
import { expect, test } from "./fixtures.ts";

const PAGE = "/e2e/pages/loop.html";
const call = (tool: string, args: object) => JSON.stringify({ tool_name: tool, arguments: args });

test("calls a tool and answers, returns a prepare result directly, refuses an edited file; receipts survive a reload", async ({
  page,
}) => {
  await page.goto(PAGE);
  await expect(page.locator("#status")).toHaveText("ready", { timeout: 60_000 });

  const answered = await page.evaluate(
    async (script) => {
      await window.__loop!.open("a", script);
      return window.__loop!.chat("a", "Use the fee_quote tool for amount 250. State the exact fee.");
    },
    [call("fee_quote", { amount: 250 }), "The fee is 0.75."],
  );
  expect(answered).toMatchObject({ ok: true, outcome: "answered", answer: "The fee is 0.75." });
  expect(answered.receipt.calls[0]).toMatchObject({
    tool_name: "fee_quote",
    status: "ok",
    runner_secret_verified: true,
    tools_file_sha256_verified: true,
  });

  const direct = await page.evaluate(
    async (script) => {
      await window.__loop!.open("b", script);
      return window.__loop!.chat("b", "Prepare two of sku ab-1.");
    },
    [call("prepare_order", { sku: "ab-1", quantity: 2 })],
  );
  expect(direct).toMatchObject({ outcome: "return_direct", result: { draft_id: "D-AB-1-2", status: "prepared" } });

  const edited = await page.evaluate(
    async (script) => {
      await window.__loop!.open("c", script);
      window.__loop!.editTools('return "hello world"', 'return "edited mid-session"');
      return window.__loop!.chat("c", "Say hello.");
    },
    [call("hello_world", {}), "unreachable"],
  );
  expect(edited).toMatchObject({ ok: false, outcome: "failed_closed", error: { code: "tools_file_changed" } });
  expect(edited.receipt.calls[0]).toMatchObject({ status: "failed_closed", code: "tools_file_changed" });

  const before = await page.evaluate(() => window.__loop!.listReceipts());
  expect(before.map((r) => r.outcome)).toEqual(["answered", "return_direct", "failed_closed"]);

  await page.reload();
  await expect(page.locator("#status")).toHaveText("ready", { timeout: 60_000 });
  const after = await page.evaluate(() => window.__loop!.listReceipts());
  expect(after.map((r) => r.receipt_sha256)).toEqual(before.map((r) => r.receipt_sha256));
  expect(await page.evaluate(() => window.__loop!.verify())).toMatchObject({ ok: true, count: 3 });
});
