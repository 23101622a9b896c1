// (a) The placeholder page starts the sandboxed runner, discovers /examples/tools.py and shows
// the inspect report (hashes included) as text.
import { expect, test } from "@playwright/test";

test("placeholder page discovers the example tools.py in the sandbox and shows its hashes", async ({ page }) => {
  const consoleErrors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  await page.goto("/?debug");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("placeholder");
  await expect(page.locator("#status")).toHaveAttribute("data-state", "ok", { timeout: 90_000 });

  const text = await page.locator("#inspect").textContent();
  const report = JSON.parse(text ?? "null") as {
    ok: boolean;
    tools_file_sha256: string;
    active_set_sha256: string;
    schema_generator_version: string;
    tools: { name: string; schema_sha256: string }[];
  };
  expect(report.ok).toBe(true);
  expect(report.tools_file_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(report.active_set_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(report.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["hello_world", "fee_quote", "order_status"]));
  for (const tool of report.tools) expect(tool.schema_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);

  // The file hash shown is the hash of the bytes the server serves.
  const served = await page.evaluate(async () => {
    const bytes = new Uint8Array(await (await fetch("/examples/tools.py")).arrayBuffer());
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    return "sha256:" + Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  });
  expect(report.tools_file_sha256).toBe(served);

  // The runner really is in an opaque-origin sandbox frame with a connection-blocking CSP.
  const frame = page.locator("iframe[data-edge-runner-sandbox]");
  await expect(frame).toHaveAttribute("sandbox", "allow-scripts");
  const srcdoc = (await frame.getAttribute("srcdoc")) ?? "";
  expect(srcdoc).toContain("connect-src 'none'");
  expect(srcdoc).not.toContain("allow-same-origin");
  expect(consoleErrors).toEqual([]);
  console.log(await page.locator("#timings").textContent());
});
