// Neural Imprint in real Chromium: learn from public/examples/learn_sample.json with the scripted
// engine, store it in IndexedDB, reload, restore it, and chat — the tool call runs in the sandboxed
// browser runner and the receipt says tool_instruction_mode "imprint". Then every gate fails closed.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

const PAGE = "/e2e/pages/imprint.html";
const call = (name: string, args: object) => JSON.stringify({ tool_name: name, arguments: args });
const EVAL = [
  "It depends.",
  call("fee_quote", { amount: 100 }),
  "It depends.",
  call("fee_quote", { amount: 2500, tier: "pro" }),
  "Which order?",
  call("order_status", { order_id: "A-1001" }),
  "Sure.",
  call("prepare_order", { sku: "kb-42", quantity: 3, express: true }),
  call("hello_world", {}),
  "I quote fees, look up orders and prepare drafts.",
];
const CHAT = [call("fee_quote", { amount: 100 }), "The fee is 0.50 EUR."];

async function ready(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page.locator("#status")).toHaveText("ready");
}

test("learn, reload, restore, chat: the tool runs and the receipt says imprint; every gate fails closed", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const db = `edge-imprint-${Date.now()}`;
  await ready(page);
  const learned = await page.evaluate(([d, s]) => window.edgeImprintTest.learn(d, s), [db, EVAL] as const);
  expect(learned.ok, JSON.stringify(learned)).toBe(true);
  if (!learned.ok) return;
  const id = learned.value.imprint_id;
  expect(learned.value.evaluation).toMatchObject({ scored: 5, matched_without_prefix: 0, matched_with_prefix: 5 });
  expect(learned.value.receipt).toMatchObject({
    kind: "learn",
    imprint_id: id,
    tool_instruction_mode: "imprint",
    seq: 1,
  });

  // A new page load: only IndexedDB carries the imprint over.
  await ready(page);
  expect(await page.evaluate((d) => window.edgeImprintTest.list(d), db)).toMatchObject({
    ok: true,
    value: [{ id, corrupted: false, sample_id: "order_desk_tools_v1" }],
  });
  const chat = await page.evaluate(
    ([d, i, s]) => window.edgeImprintTest.chat(d, i, "Quote the fee for amount 100.", s),
    [db, id, CHAT] as const,
  );
  expect(chat.ok, JSON.stringify(chat)).toBe(true);
  if (!chat.ok) return;
  expect(chat.value).toMatchObject({ ok: true, outcome: "answered", answer: "The fee is 0.50 EUR." });
  expect(chat.value.system).toEqual({ role: "system", content: chat.value.prefix });
  expect(chat.value.receipt).toMatchObject({
    tool_instruction_mode: "imprint",
    imprint_id: id,
    tool_instruction_sha256: learned.value.prefix_sha256,
    seq: 2,
  });
  // The scripted demo keeps no prefix between conversations, and the receipt says so (a llama.cpp engine: "engine").
  expect(chat.value.receipt).toMatchObject({ imprint_restore: "prefix", imprint_prefix: { prefix_cache: "none" } });
  expect(chat.value.receipt.calls[0]).toMatchObject({
    tool_name: "fee_quote",
    status: "ok",
    runner_secret_verified: true,
    tools_file_sha256_verified: true,
  });

  // A function-body edit restores.
  const body = await page.evaluate(
    ([d, i, s]) =>
      window.edgeImprintTest.chat(d, i, "Quote the fee for amount 100.", s, {
        edit: ['return "hello world"', 'return "hello, world"'],
      }),
    [db, id, CHAT] as const,
  );
  expect(body).toMatchObject({ ok: true, value: { ok: true, receipt: { tool_instruction_mode: "imprint" } } });

  // Each gate, with its code, before any generation.
  const gate = (opts: { edit?: [string, string]; modelId?: string; noTools?: boolean }) =>
    page
      .evaluate(([d, i, s, o]) => window.edgeImprintTest.chat(d, i, "x", s, o), [db, id, CHAT, opts] as const)
      .then((r) => (r.ok ? "restored" : r.code));
  expect(await gate({ noTools: true })).toBe("imprint_requires_tools");
  expect(await gate({ modelId: "another-model" })).toBe("imprint_model_mismatch");
  expect(
    await gate({
      edit: [
        '@edge_tool\ndef hello_world() -> str:\n    """Say hello: answers "hello world" (a first tool to try; it takes nothing)."""\n    return "hello world"\n',
        "",
      ],
    }),
  ).toBe("imprint_tool_active_set_mismatch");
  expect(await gate({ edit: ["def order_status(order_id: str)", "def order_status(order_ref: str)"] })).toBe(
    "imprint_tool_schema_mismatch",
  );
  expect(await gate({ edit: ['execution_level="prepare"', 'execution_level="commit"'] })).toBe(
    "imprint_tool_schema_mismatch",
  );

  // Export → import into another database; then a tampered record is refused.
  expect(
    await page.evaluate(([d, i, o]) => window.edgeImprintTest.exportImport(d, i, o), [db, id, `${db}-other`] as const),
  ).toEqual({ ok: true, value: id });
  expect(await page.evaluate(([d, i]) => window.edgeImprintTest.tamper(d, i), [db, id] as const)).toEqual({
    ok: true,
    value: true,
  });
  expect(await gate({})).toBe("imprint_corrupted");
  expect(await page.evaluate((d) => window.edgeImprintTest.list(d), db)).toMatchObject({
    ok: true,
    value: [{ id, corrupted: true }],
  });
  expect(await page.evaluate(([d, i]) => window.edgeImprintTest.delete(d, i), [db, id] as const)).toMatchObject({
    ok: true,
  });
  expect(await gate({})).toBe("imprint_not_found");
});
