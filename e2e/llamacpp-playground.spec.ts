// The playground with no WebGPU, as a person uses it: a GGUF model (the generated test model, from
// a URL typed into the llama.cpp row) loads with a progress bar, a prompt calls a tool (tool choice
// "required": the first turn must call), the tool call card and the receipt show, and after an
// offline reload the stored model loads again and the same works with the network cut.
// Random weights: the call's arguments and the answer's text are meaningless; the plumbing is real.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import { buildTestModel } from "../test/fixtures/gguf.ts";
import { startModelServer, type ModelServer } from "../test/engines/model-server.ts";
import { loadModelFromUrl, openToolsFile } from "./playground-helpers.ts";

const TOOLS = `from edgestudio.tools import edge_tool

@edge_tool(description="Add two whole numbers.")
def add(a: int, b: int) -> dict:
    return {"sum": a + b}
`;
let server: ModelServer;

test.beforeAll(async () => {
  server = await startModelServer(buildTestModel());
});
test.afterAll(() => server.close());

async function askAdd(page: Page): Promise<void> {
  await page.locator("#tool-choice").selectOption("required");
  await expect(page.locator("#session-info")).toContainText("1 active tool(s)");
  // One receipt line per run, when it ends.
  const ended = page.locator(".entry .receipt-line");
  const before = await ended.count();
  await page.getByLabel("Message").fill("Add 2 and 3.");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  // The run ends first: a random-weight model may call add more than once, and `.last()` would
  // otherwise move to a newer card between reading its arguments and its result.
  await expect(ended).toHaveCount(before + 1, { timeout: 240_000 });
  await expect(ended.last()).toContainText(/(answered|failed_closed).* · receipt #\d+/);
  const card = page.locator(".tool-card[data-tool=add]").last();
  await expect(card).toHaveAttribute("data-state", "ok");
  // The real function ran with the model's arguments: its result is their sum.
  const args = JSON.parse((await card.locator("[data-testid=tool-args]").textContent()) ?? "{}") as {
    a: number;
    b: number;
  };
  await expect(card.locator("[data-testid=tool-result]")).toContainText(`"sum": ${args.a + args.b}`);
}

test("no WebGPU: a GGUF model from a URL runs a tool call with a receipt, and again after an offline reload", async ({
  page,
  context,
}) => {
  test.setTimeout(420_000);
  // Persistent storage is asked for when the download starts, and the download does not wait for
  // the answer (Firefox holds it pending while its prompt is unanswered): here it never comes.
  const order: string[] = [];
  await page.exposeFunction("__edgePersistAsked", () => void order.push("persist"));
  await page.addInitScript(() => {
    // A permission prompt nobody answers.
    StorageManager.prototype.persist = function () {
      void (window as typeof window & { __edgePersistAsked(): Promise<void> }).__edgePersistAsked();
      return new Promise<boolean>(() => undefined);
    };
  });
  page.on("request", (r) => r.url().endsWith("/model.gguf") && order.push("download"));
  await page.goto("/");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  await expect(page.locator("body")).toHaveAttribute("data-offline-ready", "1", { timeout: 90_000 });
  await expect(page.locator("#gpu-status")).toContainText("not available");
  // Auto names what it would run here, and the catalog lists download sizes before anything downloads.
  await expect(page.locator("#engine-select option[value=auto]")).toHaveText(/^Auto: llama\.cpp on this CPU/);
  await expect(page.locator("#engine-select option[value='llamacpp:qwen2.5-0.5b-instruct-q4_k_m']")).toHaveText(
    /398 MB download/,
  );

  await openToolsFile(page, "tools.py", TOOLS, 1);
  await loadModelFromUrl(page, server.url("/model.gguf"));
  expect(order.sort()).toEqual(["download", "persist"]);
  await expect(page.locator("#llama-status")).toHaveText(
    "Asked the browser to keep stored models; the download does not wait for its answer.",
  );
  await expect(page.locator("#stored-models summary")).toHaveText(/Stored models: 1 \(0\.5 MB\)/);
  await askAdd(page);
  await page.screenshot({ path: ".cache/screenshots/playground-llamacpp.png", fullPage: true });

  await context.setOffline(true);
  await page.reload();
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  await openToolsFile(page, "tools.py", TOOLS, 1);
  const hits = server.hits("/model.gguf");
  await loadModelFromUrl(page, server.url("/model.gguf"));
  expect(server.hits("/model.gguf")).toBe(hits);
  await askAdd(page);
  await context.setOffline(false);

  // The stored model can be deleted from the list.
  await page.locator("#stored-models summary").click();
  await page.getByRole("button", { name: "Delete model.gguf" }).click();
  await expect(page.locator("#stored-models summary")).toHaveText("Stored models: 0");
});
