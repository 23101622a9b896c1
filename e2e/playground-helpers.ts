// Steps shared by the playground specs: open a tools file, load a GGUF model from a URL through
// the llama.cpp row (as a person does), and read the receipts the page stored in IndexedDB.
import { expect, type Page } from "@playwright/test";
import type { Receipt } from "../src/receipts/types.ts";

/** Open `source` as the tools file `name` and wait until its tools are inspected. */
export async function openToolsFile(page: Page, name: string, source: string, tools: number): Promise<void> {
  await page.locator("#file-input").setInputFiles({ name, mimeType: "text/x-python", buffer: Buffer.from(source) });
  await expect(page.locator("#tools-status")).toContainText(`Inspected ${name}: ${tools} tool(s)`, { timeout: 60_000 });
}

/** Show the other model sources (a GGUF file or URL, web-llm, stored models): a row of their own on
 *  a wide screen, behind one summary on a phone. */
export async function openModelSources(page: Page): Promise<void> {
  const more = page.locator("#model-more");
  if (!(await more.evaluate((d) => (d as HTMLDetailsElement).open)))
    await page.locator("#model-more > summary").click();
  await expect(page.locator("#llama-url")).toBeVisible();
}

/** Load the GGUF model at `url` on the CPU through the llama.cpp row; `name` is its file name (the
 *  URL's last part). A real-weight model takes longer: `timeout`. */
export async function loadModelFromUrl(page: Page, url: string, name = "model.gguf", timeout = 120_000): Promise<void> {
  await openModelSources(page);
  await page.locator("#llama-url").fill(url);
  await page.getByRole("button", { name: "Load URL" }).click();
  await expect(page.locator("#engine-status")).toContainText("(llama.cpp, CPU) ready; new session started.", {
    timeout,
  });
  await expect(page.locator("#engine-select option:checked")).toHaveText(`${name} (llama.cpp, CPU)`);
}

/** Every receipt in the page's store ("edge-web" IndexedDB), oldest first. */
export async function storedReceipts(page: Page): Promise<Receipt[]> {
  const receipts = await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((res, rej) => {
      const r = indexedDB.open("edge-web");
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    return new Promise<Receipt[]>((res, rej) => {
      const q = db.transaction("receipts").objectStore("receipts").getAll();
      q.onsuccess = () => res(q.result as Receipt[]);
      q.onerror = () => rej(q.error);
    });
  });
  return receipts.sort((a, b) => a.seq - b.seq);
}

/** Run `tool` from the Try-a-tool panel with its form as it stands; its outcome's state and text. */
export async function tryTool(page: Page, tool: string): Promise<{ state: string | null; text: string }> {
  await page.getByRole("tab", { name: "Try a tool" }).click();
  await page.locator("#try-tool-select").selectOption(tool);
  await page.locator("#try-output").evaluate((el) => el.replaceChildren());
  await page.locator("#try-run").click();
  const outcome = page.locator("[data-testid=try-outcome]");
  await expect(outcome).toBeVisible({ timeout: 60_000 });
  return { state: await outcome.getAttribute("data-state"), text: (await outcome.textContent()) ?? "" };
}
