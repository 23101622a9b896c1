// The Workspace tab as a person uses it, in real Chromium: upload a CSV, see its size and sha256,
// edit it, rename and delete, download and re-import a zip; and the bad inputs — a 200 MB file, a
// name with "..", NUL or 1,000 characters, a zip bomb, the browser's quota — each refused with a
// coded error and the workspace unchanged.
import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import { zipSync } from "fflate";
import { buildTestModel } from "../test/fixtures/gguf.ts";
import { TOTAL_TOOL } from "../test/fixtures/workspace-total-tool.ts";
import { startModelServer, type ModelServer } from "../test/engines/model-server.ts";
import { loadModelFromUrl, openToolsFile, storedReceipts } from "./playground-helpers.ts";

const CSV = "region,amount\nnorth,10\nsouth,32\n";

async function openWorkspace(page: Page): Promise<void> {
  await page.goto("/?nosw");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  await page.getByRole("tab", { name: "Workspace" }).click();
  await expect(page.locator("#ws-table")).toBeVisible();
}

/** The tree's paths as rendered (the tab renders after it reads the store: poll, do not read once). */
async function wsPaths(page: Page): Promise<string[]> {
  return page
    .locator("#ws-table tbody tr[data-path]")
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-path") ?? ""));
}

/** A synthetic drop of in-page Files (no bytes cross the test channel). */
async function dropFiles(page: Page, files: { name: string; size?: number; text?: string }[]): Promise<void> {
  await page.locator("#ws-drop").evaluate((zone, list) => {
    const dt = new DataTransfer();
    for (const f of list)
      dt.items.add(new File(f.text !== undefined ? [f.text] : [new ArrayBuffer(f.size ?? 0)], f.name));
    zone.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files);
}

test("upload, inspect, edit, rename, delete and zip round trip in the Workspace tab", async ({ page }) => {
  await openWorkspace(page);
  await page.locator("#ws-files").setInputFiles({ name: "data.csv", mimeType: "text/csv", buffer: Buffer.from(CSV) });
  await expect(page.locator("#ws-status")).toHaveText("Uploaded 1 file(s).");
  await expect.poll(() => wsPaths(page)).toEqual(["/workspace/data.csv"]);
  await page.getByRole("button", { name: "data.csv", exact: true }).click();
  await expect(page.locator("#ws-preview")).toContainText(`${CSV.length} bytes`);
  await expect(page.getByTestId("ws-preview-sha")).toHaveText(/^sha256:[0-9a-f]{64}$/);
  const before = await page.getByTestId("ws-preview-sha").textContent();

  await page.getByLabel("Contents of data.csv").fill(`${CSV}east,7\n`);
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByTestId("ws-preview-sha")).not.toHaveText(before ?? "");
  await expect(page.locator("#ws-meter-text")).toContainText("browser storage for this site");

  // A folder upload keeps its structure; an image previews as an image.
  const png = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
    "base64",
  );
  await page.locator("#ws-files").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: png });
  await page.getByRole("button", { name: "dot.png", exact: true }).click();
  await expect(page.getByRole("img", { name: "Preview of dot.png" })).toBeVisible();

  page.once("dialog", (d) => void d.accept("reports/q1.csv"));
  await page.getByRole("button", { name: "Rename data.csv" }).click();
  await expect(page.locator("#ws-status")).toHaveText("Renamed to /workspace/reports/q1.csv.");
  await expect
    .poll(() => wsPaths(page))
    .toEqual(["/workspace/dot.png", "/workspace/reports", "/workspace/reports/q1.csv"]);

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download all as zip" }).click();
  const zipPath = await (await download).path();
  const zip = await readFile(zipPath);
  expect(zip.subarray(0, 2).toString()).toBe("PK");

  page.once("dialog", (d) => void d.accept());
  await page.getByRole("button", { name: "Delete reports", exact: true }).click();
  await expect.poll(() => wsPaths(page)).toEqual(["/workspace/dot.png"]);
  await page.locator("#ws-zip").setInputFiles({ name: "workspace.zip", mimeType: "application/zip", buffer: zip });
  await expect(page.locator("#ws-status")).toContainText("Imported 2 file(s)");
  await expect
    .poll(() => wsPaths(page))
    .toEqual(["/workspace/dot.png", "/workspace/reports", "/workspace/reports/q1.csv"]);
  await page.screenshot({ path: ".cache/screenshots/workspace-tab.png", fullPage: true });
});

test("bad input is refused with a code and leaves the workspace unchanged", async ({ page }) => {
  await openWorkspace(page);
  await page
    .locator("#ws-files")
    .setInputFiles({ name: "keep.txt", mimeType: "text/plain", buffer: Buffer.from("keep") });
  await expect(page.locator("#ws-status")).toHaveText("Uploaded 1 file(s).");
  const unchanged = await wsPaths(page);

  // 200 MB: refused from its size, before a byte is read.
  await dropFiles(page, [
    { name: "small.txt", text: "x" },
    { name: "big.bin", size: 200 * 1024 * 1024 },
  ]);
  await expect(page.locator("#ws-status")).toContainText("vfs_quota_exceeded: /workspace/big.bin is 210 MB");
  await expect.poll(() => wsPaths(page)).toEqual(unchanged);

  // Names with "..", NUL or 1,000 characters (a drop can carry any File name).
  for (const [name, why] of [
    ["..", "parts are not allowed"],
    ["a\u0000b.txt", "NUL"],
    [`${"n".repeat(1000)}.txt`, "at most 255"],
  ] as const) {
    await dropFiles(page, [
      { name: "ok.txt", text: "ok" },
      { name, text: "x" },
    ]);
    await expect(page.locator("#ws-status")).toContainText(`vfs_invalid_path:`);
    await expect(page.locator("#ws-status")).toContainText(why);
    await expect.poll(() => wsPaths(page)).toEqual(unchanged);
  }
  await page.getByLabel("New file or folder name").fill("../escape.txt");
  await page.getByRole("button", { name: "New file" }).click();
  await expect(page.locator("#ws-status")).toContainText("vfs_invalid_path:");

  // A zip bomb: 64 MiB of zeros in ≈ 64 KB, over the 64 MiB workspace once added to what is there.
  const bombBytes = Buffer.from(zipSync({ "zeros.bin": new Uint8Array(65 * 1024 * 1024) }, { level: 9 }));
  await page.locator("#ws-zip").setInputFiles({ name: "bomb.zip", mimeType: "application/zip", buffer: bombBytes });
  await expect(page.locator("#ws-status")).toContainText("zip_too_large:");
  await expect.poll(() => wsPaths(page)).toEqual(unchanged);
  await page
    .locator("#ws-zip")
    .setInputFiles({ name: "fake.zip", mimeType: "application/zip", buffer: Buffer.from("not a zip") });
  await expect(page.locator("#ws-status")).toContainText("zip_invalid:");

  // The browser's quota, as navigator.storage.estimate() reports it: 512 KB left for this site.
  // (Chromium's CDP quota override is enforced for new storage only and not reported by
  // estimate(); the QuotaExceededError → storage_quota_exceeded mapping is a unit test.)
  await page.addInitScript(() => {
    Object.defineProperty(navigator.storage, "estimate", {
      value: async () => ({ usage: 4_000_000, quota: 4_000_000 + 512 * 1024 }),
    });
  });
  await openWorkspace(page);
  await expect.poll(() => wsPaths(page)).toEqual(unchanged);
  await expect(page.locator("#ws-meter-text")).toContainText("browser storage for this site: 4 MB used of 5 MB");
  await dropFiles(page, [{ name: "two-megabytes.bin", size: 2 * 1024 * 1024 }]);
  await expect(page.locator("#ws-status")).toContainText("storage_quota_exceeded:");
  await expect.poll(() => wsPaths(page)).toEqual(unchanged);
});

async function chat(page: Page, outputs: unknown[], prompt: string): Promise<void> {
  await page.getByRole("tab", { name: "Chat" }).click();
  await page.locator("#script").fill(JSON.stringify(outputs));
  await page.getByLabel("Message").fill(prompt);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

test("built-ins for a session: counted with the Python tools, writes shown as a diff and approved or rejected", async ({
  page,
}) => {
  await openWorkspace(page);
  await page
    .locator("#ws-files")
    .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("one\ntwo\n") });
  await expect(page.locator("#ws-status")).toHaveText("Uploaded 1 file(s).");
  for (const name of ["read_file", "write_file", "bash", "create_goal"])
    await page.locator(`#builtin-list input[data-builtin=${name}]`).check();
  await expect(page.locator("#active-set")).toContainText(
    "active_tool_limit_exceeded: 5 Python tool(s) + 4 built-in(s) = 9 of 8",
  );
  await page.locator("#builtin-list input[data-builtin=create_goal]").uncheck();
  await expect(page.locator("#active-set")).toContainText("+ 3 built-in(s) = 8 of 8");
  await page.getByRole("button", { name: "Freeze / new session" }).click();
  await expect(page.locator("#chat-info")).toContainText("write_file");

  // Approve: the card shows the line diff; the file holds exactly that afterwards.
  await chat(
    page,
    [{ tool_name: "write_file", arguments: { path: "notes.txt", content: "one\nTWO\n" } }, "Written."],
    "fix line two",
  );
  const card = page.locator(".write-card");
  await expect(card.getByTestId("write-diff")).toContainText("-two");
  await expect(card.getByTestId("write-diff")).toContainText("+TWO");
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.locator(".entry.answer .text")).toHaveText("Written.");
  await expect(page.locator(".tool-card[data-tool=write_file]")).toHaveAttribute("data-state", "ok");

  // Reject: nothing is written; the run fails closed with builtin_write_rejected.
  await page.getByRole("button", { name: "Clear conversation" }).click();
  await chat(page, [{ tool_name: "bash", arguments: { command: "echo three >> notes.txt" } }], "append");
  await expect(page.locator(".write-card").getByTestId("write-diff")).toContainText("+three");
  await page.locator(".write-card").getByRole("button", { name: "Reject" }).click();
  await expect(page.locator(".entry.error")).toContainText("builtin_write_rejected");

  // A read-only script needs no approval.
  await page.getByRole("button", { name: "Clear conversation" }).click();
  await chat(page, [{ tool_name: "bash", arguments: { command: "cat notes.txt" } }, "{{tool_result.stdout}}"], "show");
  await expect(page.locator(".entry.answer .text")).toHaveText("one\nTWO");
  await expect(page.locator(".write-card")).toHaveCount(0);

  await page.getByRole("tab", { name: "Workspace" }).click();
  await page.getByRole("button", { name: "notes.txt", exact: true }).click();
  await expect(page.getByLabel("Contents of notes.txt")).toHaveValue("one\nTWO\n");
  await page.getByRole("tab", { name: "Receipts" }).click();
  await expect(page.locator("#panel-receipts")).toContainText("failed_closed");
});

test("a read_local tool summarizes /workspace/data.csv; an edit changes the next call's workspace_sha256", async ({
  page,
}) => {
  await openWorkspace(page);
  await page.locator("#ws-files").setInputFiles({ name: "data.csv", mimeType: "text/csv", buffer: Buffer.from(CSV) });
  await expect(page.locator("#ws-status")).toHaveText("Uploaded 1 file(s).");
  // The example read_local tools become the session's tools.
  await page.locator("#file-input").setInputFiles("public/examples/workspace_tools.py");
  await expect(page.locator("#session-info")).toContainText("4 active tool(s) of workspace_tools.py");

  const summarize = [
    { tool_name: "summarize_csv", arguments: { path: "data.csv" } },
    "rows={{tool_result.rows}} sums={{tool_result.sums}}",
  ];
  await chat(page, summarize, "Summarize data.csv");
  await expect(page.locator(".entry.answer .text").last()).toHaveText('rows=2 sums={"amount":42}');
  const first = await page.getByTestId("workspace-sha").last().getAttribute("data-sha");
  expect(first).toMatch(/^sha256:[0-9a-f]{64}$/);

  await page.getByRole("tab", { name: "Workspace" }).click();
  await page.getByRole("button", { name: "data.csv", exact: true }).click();
  await page.getByLabel("Contents of data.csv").fill(`${CSV}east,8\n`);
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.locator("#ws-status")).toHaveText("Saved /workspace/data.csv.");
  await chat(page, summarize, "Again");
  await expect(page.locator(".entry.answer .text").last()).toHaveText('rows=3 sums={"amount":50}');
  const second = await page.getByTestId("workspace-sha").last().getAttribute("data-sha");
  expect(second).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(second).not.toBe(first);

  // Without read_local there is no /workspace; writing into it fails in Python.
  await chat(
    page,
    [{ tool_name: "sees_workspace", arguments: {} }, "exists={{tool_result.exists}}"],
    "Can you see it?",
  );
  await expect(page.locator(".entry.answer .text").last()).toHaveText("exists=false");
  await expect(page.locator(".tool-card[data-tool=sees_workspace] [data-testid=workspace-sha]")).toHaveCount(0);
  await chat(page, [{ tool_name: "write_report", arguments: { text: "hi" } }], "Write a report");
  await expect(page.locator(".entry.error").last()).toContainText("tool_raised");
  await expect(page.locator(".entry.error").last()).toContainText("PermissionError");
  await page.getByRole("tab", { name: "Workspace" }).click();
  await expect.poll(() => wsPaths(page)).toEqual(["/workspace/data.csv"]);

  // The receipt records the hash of exactly the data the call read.
  await page.getByRole("tab", { name: "Receipts" }).click();
  const reads = (await storedReceipts(page))
    .flatMap((r) => r.calls)
    .filter((c) => c.tool_name === "summarize_csv")
    .map((c) => c.workspace_sha256);
  expect(reads).toEqual([first, second]);
});

// The generated llama.cpp test model has random weights: this proves the plumbing (the real
// engine's grammar-forced call reaches a read_local tool, which reads the uploaded file at
// /workspace), never the model's judgement. One tool without parameters, so the call is fully
// determined; a scripted run over the same file gives the hashes the receipt must repeat.
test.describe("with the generated llama.cpp test model", () => {
  let server: ModelServer;
  test.beforeAll(async () => {
    server = await startModelServer(buildTestModel());
  });
  test.afterAll(() => server.close());

  test("no WebGPU: the model's required call runs a read_local tool on the uploaded data.csv, with a scripted run's workspace_sha256", async ({
    page,
  }) => {
    test.setTimeout(240_000);
    await openWorkspace(page);
    await expect(page.locator("#gpu-status")).toContainText("not available");
    await page.locator("#ws-files").setInputFiles({ name: "data.csv", mimeType: "text/csv", buffer: Buffer.from(CSV) });
    await expect(page.locator("#ws-status")).toHaveText("Uploaded 1 file(s).");
    await openToolsFile(page, "total_tools.py", TOTAL_TOOL, 1);

    // The scripted demo (the starting engine) records the reference hashes over the same file.
    await chat(
      page,
      [{ tool_name: "workspace_total", arguments: {} }, "total={{tool_result.total}}"],
      "What is the total?",
    );
    await expect(page.locator(".entry.answer .text").last()).toHaveText("total=42");

    await loadModelFromUrl(page, server.url("/model.gguf"));
    await page.locator("#tool-choice").selectOption("required");
    await expect(page.locator("#session-info")).toContainText("1 active tool(s)");
    // Only the model's run on screen from here: its card cannot be mistaken for the scripted one.
    await page.getByRole("button", { name: "Clear conversation" }).click();
    await page.getByLabel("Message").fill("What is the total?");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const card = page.locator(".tool-card[data-tool=workspace_total]");
    await expect(card).toHaveAttribute("data-state", "ok", { timeout: 120_000 });
    await expect(card.getByTestId("tool-result")).toContainText('"total": 42');
    await expect(page.locator(".entry .receipt-line")).toContainText(/^(answered|failed_closed).* · receipt #2 /, {
      timeout: 120_000,
    });

    const receipts = await storedReceipts(page);
    expect(receipts.map((r) => r.engine)).toEqual(["scripted", "llamacpp"]);
    const [scripted, real] = receipts;
    const reference = scripted?.calls[0];
    const call = real?.calls[0];
    expect(call).toMatchObject({ tool_name: "workspace_total", status: "ok" });
    expect(reference?.workspace_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const hash of ["args_sha256", "workspace_sha256", "result_sha256"] as const)
      expect(call?.[hash], hash).toBe(reference?.[hash]);
    await expect(card.getByTestId("workspace-sha")).toHaveAttribute("data-sha", reference?.workspace_sha256 ?? "");
  });
});

test("the workspace survives an offline reload", async ({ page, context }) => {
  test.setTimeout(240_000);
  await page.goto("/");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  await expect(page.locator("body")).toHaveAttribute("data-offline-ready", "1", { timeout: 120_000 });
  await page.getByRole("tab", { name: "Workspace" }).click();
  await page.locator("#ws-files").setInputFiles({ name: "data.csv", mimeType: "text/csv", buffer: Buffer.from(CSV) });
  await expect(page.locator("#ws-status")).toHaveText("Uploaded 1 file(s).");
  await context.setOffline(true);
  await page.reload();
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  await page.getByRole("tab", { name: "Workspace" }).click();
  await expect.poll(() => wsPaths(page)).toEqual(["/workspace/data.csv"]);
  await page.getByRole("button", { name: "data.csv", exact: true }).click();
  await expect(page.getByLabel("Contents of data.csv")).toHaveValue(CSV);
  await context.setOffline(false);
});
