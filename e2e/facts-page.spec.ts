// The playground's Facts tab, in real Chromium: a saved HTML page becomes facts (main text only,
// with the page's URL and sha256 as provenance) and the store answers a lookup in chat; a URL on a
// site without CORS permission is refused with a message that says so and what to do instead.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

const SAVED = `<!doctype html><html><head><meta charset="utf-8"><title>Refund policy — Example Desk</title>
<script>window.track = () => "TRACKING-CODE";</script><style>nav { color: red }</style></head>
<body><header><nav><a href="/">Home</a> <a href="/login">Sign in</a></nav></header>
<main><article><h1>Refund policy</h1>
<p>Customers can ask for a full refund within 30 days of purchase. After 30 days only store credit is offered, for up to one year.</p>
<p>Approved refunds reach the original payment method in 5 to 7 business days. Shipping costs are refunded only for damaged goods.</p>
</article></main><footer>© 2026 Example Desk. All rights reserved.</footer></body></html>`;

async function openFacts(page: Page): Promise<void> {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto("/?nosw");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  await page.getByRole("tab", { name: "Facts" }).click();
  await expect(page.locator("#facts-page-store")).toBeVisible();
  expect(errors).toEqual([]);
}

test("Facts tab: a saved HTML page becomes facts with provenance; a URL without CORS says so", async ({ page }) => {
  await openFacts(page);
  await page.locator("#facts-page-store").fill("refunds");
  await page.locator("#facts-page-url").fill("https://desk.example.org/policies/refunds");
  await page.locator("#facts-page-tags").fill("policy, refunds");
  const chooser = page.waitForEvent("filechooser");
  await page.locator("#facts-page-import-file").click();
  await (await chooser).setFiles({ name: "refunds.html", mimeType: "text/html", buffer: Buffer.from(SAVED) });
  await expect(page.locator("#facts-status")).toContainText(
    "Imported 1 facts from refunds.html into “refunds”: 1 new",
    { timeout: 60_000 },
  );
  await expect(page.locator('#facts-list [data-store="refunds"]')).toContainText("1 facts");

  // What was stored, read back through the same store the app uses (IndexedDB).
  const stored = await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open("edge-web");
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const all = await new Promise<unknown[]>((resolve, reject) => {
      const req = db.transaction("facts").objectStore("facts").getAll();
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    db.close();
    return all as Array<{
      store: string;
      fact_id: string;
      text: string;
      topic: string;
      tags: string[];
      provenance: { source_url: string; page_sha256: string; split: string };
    }>;
  });
  const fact = stored.find((f) => f.store === "refunds")!;
  expect(fact).toMatchObject({
    fact_id: "desk-example-org-policies-refunds-1",
    topic: "Refund policy — Example Desk",
    tags: ["policy", "refunds"],
  });
  expect(fact.text).toContain("full refund within 30 days");
  for (const noise of ["Sign in", "TRACKING-CODE", "All rights reserved", "color: red"])
    expect(fact.text).not.toContain(noise);
  expect(fact.provenance).toMatchObject({
    source_url: "https://desk.example.org/policies/refunds",
    split: "page",
    page_sha256: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
  });

  // A site that does not allow CORS (here: nothing listens there) is refused, nothing changes.
  await page.locator("#facts-page-store").fill("remote");
  await page.locator("#facts-page-url").fill("http://127.0.0.1:9/docs.html");
  await page.locator("#facts-page-import-url").click();
  await expect(page.locator("#facts-status")).toContainText("url_blocked_by_cors", { timeout: 30_000 });
  await expect(page.locator("#facts-status")).toContainText("Save the page as HTML and import the saved file");
  await expect(page.locator('#facts-list [data-store="remote"]')).toHaveCount(0);
});
