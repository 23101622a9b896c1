// Confirmation of commit tools in real Chromium (docs/contract.md §6): the scripted engine reaches
// submit_order, a pending action lands in IndexedDB, and confirming it runs the tool once in the
// sandboxed browser runner. Two tabs confirming the same action at the same time: exactly one
// execution, the other gets confirmation_already_claimed. Bad inputs fail closed with their codes.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

const PAGE = "/e2e/pages/confirm.html";

async function ready(page: Page, db: string): Promise<void> {
  await page.goto(PAGE);
  await expect(page.locator("#status")).toHaveText("ready");
  expect(await page.evaluate((name) => window.edgeConfirmTest.init(name), db)).toBe("ready");
}

test("two tabs confirm the same action at once: exactly one execution, one confirmation_already_claimed", async ({
  context,
}) => {
  test.setTimeout(240_000);
  const db = `edge-confirm-race-${Date.now()}`;
  const [a, b] = [await context.newPage(), await context.newPage()];
  await ready(a, db);
  await ready(b, db);
  const run = await a.evaluate(() => window.edgeConfirmTest.chat("D-AB-1-2"));
  expect(run).toMatchObject({
    outcome: "pending_confirmation",
    error: { code: "tool_confirmation_required" },
    executions: 0,
  });
  const ticket = run.pending_action!;
  // Tab B sees the same pending action (the app's one IndexedDB), with exactly what will run.
  expect(await b.evaluate((id) => window.edgeConfirmTest.get(id), ticket.id)).toMatchObject({
    status: "pending",
    tool_name: "submit_order",
    execution_level: "commit",
    arguments: { draft_id: "D-AB-1-2" },
  });

  // Each tab's claim waits until both passed every check before it: the claim decides, not the timing.
  for (const tab of [a, b]) await tab.evaluate(() => window.edgeConfirmTest.armClaimBarrier(2));
  const [ra, rb] = await Promise.all([
    a.evaluate(([id, token]) => window.edgeConfirmTest.confirm(id, token), [
      ticket.id,
      ticket.confirmation_token,
    ] as const),
    b.evaluate(([id, token]) => window.edgeConfirmTest.confirm(id, token), [
      ticket.id,
      ticket.confirmation_token,
    ] as const),
  ]);
  const execA = await a.evaluate(() => window.edgeConfirmTest.executions());
  const execB = await b.evaluate(() => window.edgeConfirmTest.executions());
  expect(execA + execB).toBe(1);
  const outs = [ra, rb];
  const winner = outs.find((o) => o.ok)!;
  expect(outs.filter((o) => o.ok)).toHaveLength(1);
  expect(outs.find((o) => !o.ok)!.error!.code).toBe("confirmation_already_claimed");
  expect(winner).toMatchObject({
    status: "done",
    result: { order_id: "O-AB-1-2", draft_id: "D-AB-1-2", status: "submitted" },
  });
  // Both tabs passed every check before the claim: the atomic claim itself decided the race.
  expect(
    (await a.evaluate(() => window.edgeConfirmTest.verified())) +
      (await b.evaluate(() => window.edgeConfirmTest.verified())),
  ).toBe(2);
  // The winner's tab ran it.
  expect(ra.ok ? execA : execB).toBe(1);

  const receipts = await a.evaluate(() => window.edgeConfirmTest.receipts());
  const confirms = receipts.filter((r) => r.kind === "confirm");
  expect(confirms).toHaveLength(1);
  expect(confirms[0]).toMatchObject({
    id: winner.receipt_id,
    outcome: "return_direct",
    extra: { pending_action_id: ticket.id },
  });
  expect(confirms[0]!.calls[0]).toMatchObject({
    status: "ok",
    runner_secret_verified: true,
    tools_file_sha256_verified: true,
    execution_level: "commit",
  });
  expect(await b.evaluate((id) => window.edgeConfirmTest.get(id), ticket.id)).toMatchObject({
    status: "done",
    receipt_id: winner.receipt_id,
  });
  // And later attempts from either tab never run it again.
  expect(
    await b.evaluate(([id, token]) => window.edgeConfirmTest.confirm(id, token), [
      ticket.id,
      ticket.confirmation_token,
    ] as const),
  ).toMatchObject({
    ok: false,
    error: { code: "confirmation_already_claimed" },
  });
  expect(
    (await a.evaluate(() => window.edgeConfirmTest.executions())) +
      (await b.evaluate(() => window.edgeConfirmTest.executions())),
  ).toBe(1);
});

test("bad inputs fail closed in the browser: wrong token, tampered arguments, edited tools file, rejected, expired", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await ready(page, `edge-confirm-bad-${Date.now()}`);
  const t = (await page.evaluate(() => window.edgeConfirmTest.chat("D-1"))).pending_action!;
  const other = (await page.evaluate(() => window.edgeConfirmTest.chat("D-2"))).pending_action!;
  const conf = (id: string, token: string) =>
    page.evaluate(([i, k]) => window.edgeConfirmTest.confirm(i, k), [id, token] as const);

  expect(await conf(t.id, other.confirmation_token)).toMatchObject({
    ok: false,
    error: { code: "confirmation_token_invalid" },
  });

  await page.evaluate((id) => window.edgeConfirmTest.tamper(id, { arguments: { draft_id: "D-EVIL" } }), t.id);
  expect(await conf(t.id, t.confirmation_token)).toMatchObject({
    ok: false,
    error: { code: "confirmation_binding_mismatch" },
  });
  await page.evaluate((id) => window.edgeConfirmTest.tamper(id, { arguments: { draft_id: "D-1" } }), t.id);

  const original = await page.evaluate(() => window.edgeConfirmTest.tools());
  await page.evaluate((text) => window.edgeConfirmTest.setTools(text + "\n# edited\n"), original);
  expect(await conf(t.id, t.confirmation_token)).toMatchObject({
    ok: false,
    status: "pending",
    error: { code: "tools_file_changed" },
  });
  await page.evaluate((text) => window.edgeConfirmTest.setTools(text), original);

  expect(await page.evaluate((id) => window.edgeConfirmTest.reject(id), other.id)).toMatchObject({
    ok: true,
    status: "rejected",
  });
  expect(await conf(other.id, other.confirmation_token)).toMatchObject({
    ok: false,
    error: { code: "confirmation_rejected" },
  });

  await page.evaluate(() => window.edgeConfirmTest.advanceClock(10 * 60 * 1000 + 1));
  expect(await conf(t.id, t.confirmation_token)).toMatchObject({ ok: false, error: { code: "confirmation_expired" } });
  expect(await page.evaluate((id) => window.edgeConfirmTest.get(id), t.id)).toMatchObject({
    status: "expired",
    arguments: null,
    arguments_wiped: true,
  });
  expect(await page.evaluate(() => window.edgeConfirmTest.executions())).toBe(0);
});
