// The IndexedDB receipt store in real Chromium: receipts survive a reload and still verify, two
// tabs appending at once form ONE chain, another tab's upgrade closes our connection instead of
// being blocked, and schema problems are storage_failed with the DOMException name.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

const PAGE = "/e2e/pages/store.html";

async function ready(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page.locator("#status")).toHaveText("ready");
}

test("receipts appended in a page are still there after a reload, in order, and verify", async ({ page }) => {
  await ready(page);
  expect(await page.evaluate(() => window.edgeStoreTest.open())).toEqual({ ok: true, value: 1 });
  expect(await page.evaluate(() => window.edgeStoreTest.stores())).toEqual([
    "facts",
    "imprints",
    "meta",
    "pending",
    "receipts",
    "sessions",
    "vfs",
  ]);
  expect(await page.evaluate(() => window.edgeStoreTest.append(3, "first"))).toEqual({ ok: true, value: [1, 2, 3] });

  await page.reload();
  await expect(page.locator("#status")).toHaveText("ready");
  await page.evaluate(() => window.edgeStoreTest.open());
  const list = await page.evaluate(() => window.edgeStoreTest.list());
  expect(list.ok && list.value.map((r) => [r.seq, r.id])).toEqual([
    [1, "first-0"],
    [2, "first-1"],
    [3, "first-2"],
  ]);
  expect(await page.evaluate(() => window.edgeStoreTest.verify())).toEqual({ ok: true, value: { ok: true, count: 3 } });
  // Appending after the reload continues the same chain.
  expect(await page.evaluate(() => window.edgeStoreTest.append(1, "second"))).toEqual({ ok: true, value: [4] });
  // A duplicate id is refused and nothing is written.
  expect(await page.evaluate(() => window.edgeStoreTest.append(1, "first"))).toMatchObject({
    ok: false,
    code: "receipt_id_conflict",
  });
  const got = await page.evaluate(() => window.edgeStoreTest.get("second-0"));
  expect(got.ok && got.value?.prev_receipt_sha256).toBe(list.ok && list.value[2]!.receipt_sha256);
  expect(await page.evaluate(() => window.edgeStoreTest.verify())).toEqual({ ok: true, value: { ok: true, count: 4 } });
});

test("two tabs appending at the same time produce one valid chain", async ({ context }) => {
  const [a, b] = [await context.newPage(), await context.newPage()];
  await Promise.all([ready(a), ready(b)]);
  await Promise.all([a.evaluate(() => window.edgeStoreTest.open()), b.evaluate(() => window.edgeStoreTest.open())]);
  const [ra, rb] = await Promise.all([
    a.evaluate(() => window.edgeStoreTest.append(20, "tab-a")),
    b.evaluate(() => window.edgeStoreTest.append(20, "tab-b")),
  ]);
  expect(ra.ok && rb.ok).toBe(true);
  const seqs = [...(ra.ok ? ra.value : []), ...(rb.ok ? rb.value : [])].sort((x, y) => x - y);
  expect(seqs).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  expect(await a.evaluate(() => window.edgeStoreTest.verify())).toEqual({ ok: true, value: { ok: true, count: 40 } });
  const list = await b.evaluate(() => window.edgeStoreTest.list());
  expect(list.ok && new Set(list.value.map((r) => r.id)).size).toBe(40);
});

test("another tab's schema upgrade closes this connection (not blocked); later writes are storage_failed", async ({
  context,
}) => {
  const [a, b] = [await context.newPage(), await context.newPage()];
  await Promise.all([ready(a), ready(b)]);
  await a.evaluate(() => window.edgeStoreTest.open("edge-web-upgrade"));
  // B plays a newer Edge version: it opens the same database at version 2.
  const upgraded = await b.evaluate(
    () =>
      new Promise<string>((resolve) => {
        const req = indexedDB.open("edge-web-upgrade", 2);
        req.onblocked = () => resolve("blocked");
        req.onsuccess = () => {
          req.result.close();
          resolve("opened");
        };
        req.onerror = () => resolve(`error ${req.error?.name}`);
      }),
  );
  expect(upgraded).toBe("opened");
  expect(await a.evaluate(() => window.edgeStoreTest.closed)).toEqual([{ reason: "version_change", newVersion: 2 }]);
  const after = await a.evaluate(() => window.edgeStoreTest.append(1, "late"));
  expect(after).toMatchObject({ ok: false, code: "storage_failed", details: { name: "InvalidStateError" } });
  // And this (older) code cannot open the newer database: storage_failed naming VersionError, no hang.
  expect(await a.evaluate(() => window.edgeStoreTest.open("edge-web-upgrade"))).toMatchObject({
    ok: false,
    code: "storage_failed",
    details: { op: "open", name: "VersionError" },
  });
});

test("a database of the right version without Edge's stores is storage_failed (schema_missing)", async ({ page }) => {
  await ready(page);
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const req = indexedDB.open("edge-web-foreign", 1);
        req.onsuccess = () => {
          req.result.close();
          resolve();
        };
      }),
  );
  expect(await page.evaluate(() => window.edgeStoreTest.open("edge-web-foreign"))).toMatchObject({
    ok: false,
    code: "storage_failed",
    details: { reason: "schema_missing" },
  });
});
