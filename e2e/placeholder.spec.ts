// (a) The playground page (with ?debug, as the runner specs use it) starts the sandboxed runner,
// discovers /examples/tools.py and shows what inspect found, hashes included. (This file kept its
// name from the placeholder page the playground replaced; e2e/playground.spec.ts covers the UI.)
import { expect, test } from "./fixtures.ts";

// A fresh profile (e2e/fixtures.ts): its "Ready in" line is a first visit's (snapshot made on the spot).
test.use({ freshProfile: true });

test("the playground discovers the example tools.py in the sandbox and shows its hashes", async ({ page }) => {
  const consoleErrors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  await page.goto("/?debug");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Edge playground");
  await expect(page.locator("#tools-status")).toHaveAttribute("data-state", "ok", { timeout: 90_000 });
  await page.evaluate(() => window.__edgeReady);

  const status = (await page.locator("#tools-status").textContent()) ?? "";
  const shown = /tools_file_sha256 (sha256:[0-9a-f]{64})/.exec(status)?.[1];
  expect(shown).toBeDefined();
  const names = await page.locator("#tool-list .tool-name").allTextContents();
  expect(names).toEqual(expect.arrayContaining(["hello_world", "fee_quote", "order_status"]));
  for (const title of await page
    .locator("#tool-list .tool-meta .hash")
    .evaluateAll((els) => els.map((e) => e.getAttribute("title")))) {
    expect(title).toMatch(/^sha256:[0-9a-f]{64}$/);
  }
  await expect(page.locator("#active-set .hash")).toHaveAttribute("title", /^sha256:[0-9a-f]{64}$/);

  // The file hash shown is the hash of the bytes the server serves, and the debug hook agrees.
  const served = await page.evaluate(async () => {
    const bytes = new Uint8Array(await (await fetch("/examples/tools.py")).arrayBuffer());
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    return "sha256:" + Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  });
  expect(shown).toBe(served);
  const report = await page.evaluate(async () =>
    window.__edge!.inspect(await (await fetch("/examples/tools.py")).text()),
  );
  expect(report.tools_file_sha256).toBe(served);

  // The runner really is in an opaque-origin sandbox frame with a connection-blocking CSP.
  const frame = page.locator("iframe[data-edge-runner-sandbox]");
  await expect(frame).toHaveAttribute("sandbox", "allow-scripts");
  const srcdoc = (await frame.getAttribute("srcdoc")) ?? "";
  expect(srcdoc).toContain("connect-src 'none'");
  expect(srcdoc).not.toContain("allow-same-origin");
  expect(consoleErrors).toEqual([]);
  console.log(await page.locator("#boot-time").textContent());
});
