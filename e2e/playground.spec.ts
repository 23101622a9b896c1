// The playground as a person uses it, in real Chromium: the example is inspected on load, a tool
// runs from the generated form, the scripted engine chats through a tool call, a commit tool asks
// for confirmation and runs once after Confirm, receipts export and verify, and hostile text from
// the model or a tool stays inert. Screenshots of the main screens go to .cache/screenshots/.
// (`?nosw`: these tests do not need the service worker; e2e/offline.spec.ts covers it.)
import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

const SHOTS = ".cache/screenshots";

// Uncaught errors and unhandled rejections of the page, its frames and its workers, for the whole
// test (not only until the page is ready): a rejection with no reason shows as ": undefined".
let pageErrors: string[] = [];
test.beforeEach(({ page }) => {
  pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(`${e.name}: ${e.message}`));
});
test.afterEach(() => {
  expect(pageErrors, "uncaught errors or unhandled rejections in the page").toEqual([]);
});

async function openPlayground(page: Page, query = "?nosw"): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  expect(pageErrors).toEqual([]);
}

async function setScript(page: Page, outputs: unknown[]): Promise<void> {
  await page.locator("#script").fill(JSON.stringify(outputs, null, 2));
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel("Message").fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

test("the example is inspected on load: tools, schema hashes, active set, line links", async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 1000 });
  await openPlayground(page);
  await expect(page.locator("#tools-status")).toContainText("Inspected tools.py: 5 tool(s)");
  await expect(page.locator("#tools-status")).toContainText(/tools_file_sha256 sha256:[0-9a-f]{64}/);
  const names = await page.locator("#tool-list .tool-name").allTextContents();
  expect(names).toEqual(["hello_world", "fee_quote", "order_status", "prepare_order", "submit_order"]);
  await expect(page.locator("#active-set")).toContainText("Active set: 5 of 5 tools");
  await expect(page.locator("#session-info")).toContainText("5 active tool(s) of tools.py");
  await expect(page.locator("#gpu-status")).toContainText("WebGPU");
  await expect(page.locator("#engine-select")).toHaveValue("scripted");
  await expect(page.locator("#engine-select option:checked")).toHaveText("Scripted demo (no model)");
  await page.screenshot({ path: `${SHOTS}/playground-main.png`, fullPage: true });

  // Narrowing by tag changes the active set locally; freezing starts a session with it.
  await page.getByLabel("#billing").check();
  await expect(page.locator("#active-set")).toContainText("Active set: 1 of 5 tools");
  await page.getByRole("button", { name: "Freeze / new session" }).click();
  await expect(page.locator("#session-info")).toContainText("1 active tool(s)");

  // A broken file: the problem names its line, and the link moves the cursor there.
  await page.locator("#editor .cm-content").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n\n@edge_tool\ndef broken(x) -> str:\n    return x\n");
  await page.getByRole("button", { name: "Inspect", exact: true }).click();
  await expect(page.locator("#tools-status")).toContainText("did not validate");
  const problem = page.locator(".problem[data-code=missing_parameter_type_hint]");
  await expect(problem).toBeVisible();
  const jump = problem.locator(".line-jump");
  const line = Number(await jump.getAttribute("data-line"));
  expect(line).toBeGreaterThan(100);
  await jump.click();
  await expect(page.locator("#editor .cm-lineNumbers .cm-activeLineGutter")).toHaveText(String(line));
});

test("try a tool: fee_quote from the generated form runs in the sandboxed runner", async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 1000 });
  await openPlayground(page);
  await page.getByRole("tab", { name: "Try a tool" }).click();
  await page.getByLabel("Tool", { exact: true }).selectOption("fee_quote");
  // The form follows the schema: amount is a number input, tier an enum select, note optional text.
  await expect(page.locator("#try-form input[data-field=amount]")).toHaveAttribute("type", "number");
  await expect(page.locator("#try-form select[data-field=tier] option")).toHaveText([
    '(default: "basic")',
    "basic",
    "pro",
  ]);
  await page.locator("#try-form input[data-field=amount]").fill("250");
  await page.getByRole("button", { name: "Run tool" }).click();
  await expect(page.locator("[data-testid=try-outcome]")).toHaveText("ok", { timeout: 60_000 });
  const result = JSON.parse((await page.locator("#try-result").textContent()) ?? "{}") as Record<string, unknown>;
  expect(result).toEqual({ amount: 250, tier: "basic", rate: 0.003, fee: 0.75 });
  await expect(page.locator("#try-duration")).toHaveText(/\d+ ms|\d\.\d\d s/);
  await expect(page.locator("#try-output")).toContainText("runner secret (HMAC) verified: yes");
  await expect(page.locator("#try-receipt")).toContainText(/Receipt #\d+ try_[0-9a-f]{24}/);

  // The pro tier through the enum select, and a print() goes to stderr only.
  await page.locator("#try-form select[data-field=tier]").selectOption({ label: "pro" });
  await page.getByRole("button", { name: "Run tool" }).click();
  await expect(page.locator("#try-result")).toContainText('"fee": 0.5');
  await page.screenshot({ path: `${SHOTS}/playground-try-a-tool.png`, fullPage: true });

  // The receipt is in the chain.
  await page.locator("#try-receipt button").click();
  await expect(page.getByRole("tab", { name: "Receipts" })).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("#receipt-json")).toContainText('"kind": "tool_call"');
});

test("chat with the scripted engine: a tool call card, then the answer quoting the real result", async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 1000 });
  await openPlayground(page);
  await setScript(page, [
    { tool_name: "fee_quote", arguments: { amount: 250 } },
    "The fee for 250 is {{tool_result.fee}} EUR.",
  ]);
  await send(page, "What is the fee for 250?");
  const card = page.locator(".tool-card[data-tool=fee_quote]");
  await expect(card).toHaveAttribute("data-state", "ok", { timeout: 60_000 });
  await expect(card.locator("[data-testid=tool-args]")).toContainText('"amount": 250');
  await expect(card.locator("[data-testid=tool-result]")).toContainText('"fee": 0.75');
  await expect(card.locator(".tool-state")).toHaveText(/ok · \d/);
  const answer = page.locator(".entry.answer .text");
  await expect(answer).toHaveText("The fee for 250 is 0.75 EUR.");
  await expect(page.locator(".entry.answer .receipt-line")).toContainText(/answered · receipt #\d+/);
  await page.screenshot({ path: `${SHOTS}/playground-chat.png`, fullPage: true });
});

test("a commit tool asks first: confirmation card → Confirm runs it once, with a receipt; receipts export and verify", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1400, height: 1000 });
  await openPlayground(page);
  await setScript(page, [{ tool_name: "submit_order", arguments: { draft_id: "D-KB-42-3X" } }]);
  await send(page, "Submit my draft D-KB-42-3X.");
  const card = page.locator(".confirm-card");
  await expect(card).toBeVisible({ timeout: 60_000 });
  await expect(card).toContainText("submit_order");
  await expect(card.locator("[data-testid=pending-args]")).toContainText('"draft_id": "D-KB-42-3X"');
  await expect(card.locator(".countdown")).toHaveText(/expires in (9|10):\d\d/);
  await expect(page.locator(".tool-card[data-tool=submit_order]")).toHaveAttribute(
    "data-state",
    "pending_confirmation",
  );
  // A run that waits on the person is not "done", and the call that has not run is not "unverified".
  await expect(page.locator("#chat-status")).toHaveText(
    "Waiting for you: confirm or reject the action in the card above.",
  );
  await expect(page.locator("#chat-status")).toHaveAttribute("data-state", "warn");
  await expect(page.locator(".tool-card[data-tool=submit_order]")).toContainText(
    "not run yet: it runs in a fresh runner once you confirm",
  );
  await page.screenshot({ path: `${SHOTS}/playground-confirmation.png`, fullPage: true });

  await card.getByRole("button", { name: "Confirm", exact: true }).click();
  await expect(card.locator("[data-testid=confirm-result]")).toContainText('"order_id": "O-KB-42-3X"', {
    timeout: 60_000,
  });
  await expect(card.locator(".confirm-result")).toContainText("Confirmed: done.");
  await expect(card.getByRole("button", { name: "Confirm", exact: true })).toBeDisabled();

  // Receipts: the chat run (pending_confirmation) and the confirm run are both in the chain.
  await card.locator(".confirm-result button.link").click();
  await expect(page.locator("#receipt-json")).toContainText('"kind": "confirm"');
  const rows = page.locator("#receipts-table tbody tr");
  await expect(rows.first()).toContainText("confirm");
  await expect(page.locator("#receipts-table")).toContainText("pending_confirmation (tool_confirmation_required)");
  await page.getByRole("button", { name: "Verify chain" }).click();
  await expect(page.locator("#receipts-verdict")).toContainText(/chain OK — \d+ receipt\(s\)/);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export JSON Lines" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^edge-receipts-.*\.jsonl$/);
  const lines = (await readFile(await download.path(), "utf8")).trim().split("\n");
  expect(lines.length).toBeGreaterThanOrEqual(2);
  const parsed = lines.map((l) => JSON.parse(l) as { seq: number; kind: string });
  expect(parsed.map((r) => r.seq)).toEqual(parsed.map((_, i) => i + 1));
  expect(parsed.at(-1)!.kind).toBe("confirm");
  await page.screenshot({ path: `${SHOTS}/playground-receipts.png`, fullPage: true });
});

test("hostile text from the model and from a tool result stays inert text", async ({ page }) => {
  await openPlayground(page);
  const payload = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><b>bold</b>`;
  await setScript(page, [{ tool_name: "order_status", arguments: { order_id: payload } }, `Model says: ${payload}`]);
  await send(page, payload);
  await expect(page.locator(".entry.answer .text")).toHaveText(`Model says: ${payload}`, { timeout: 60_000 });
  await expect(page.locator(".tool-card[data-tool=order_status] [data-testid=tool-result]")).toContainText(
    '"order_id": "<img src=x',
  );
  // Also through "try a tool".
  await page.getByRole("tab", { name: "Try a tool" }).click();
  await page.getByLabel("Tool", { exact: true }).selectOption("order_status");
  await page.locator("#try-form input[data-field=order_id]").fill(payload);
  await page.getByRole("button", { name: "Run tool" }).click();
  await expect(page.locator("#try-result")).toContainText("onerror", { timeout: 60_000 });
  expect(await page.evaluate(() => (window as typeof window & { __xss?: number }).__xss)).toBeUndefined();
  expect(
    await page.locator("#chat-log img, #chat-log script, #chat-log b, #try-output img, #try-output b").count(),
  ).toBe(0);
});

test("a file with more than 8 tools: the limit is explained on the active set, and narrowing by tag fixes it", async ({
  page,
}) => {
  await openPlayground(page);
  const nine =
    "from edgestudio.tools import edge_tool\n" +
    Array.from(
      { length: 9 },
      (_, i) => `\n@edge_tool(intent_tags=["${i < 2 ? "two" : "rest"}"])\ndef t${i}() -> str:\n    return "${i}"\n`,
    ).join("");
  await page.locator("#editor .cm-content").click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(nine);
  await page.getByRole("button", { name: "Inspect", exact: true }).click();
  // The file itself is valid: all nine tools are listed, and the problem is the selection.
  await expect(page.locator("#tools-status")).toContainText("Inspected tools.py: 9 tool(s)");
  await expect(page.locator("#tool-list .tool-name")).toHaveCount(9);
  await expect(page.locator("#active-set")).toContainText("active_tool_limit_exceeded");
  await page.getByLabel("#two").check();
  await expect(page.locator("#active-set")).toContainText("Active set: 2 of 9 tools");
  await page.getByRole("button", { name: "Freeze / new session" }).click();
  await expect(page.locator("#session-info")).toContainText("2 active tool(s)");
});
