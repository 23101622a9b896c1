// The <edge-chat> widget with a real model and no WebGPU: engine "auto" runs llama.cpp on the CPU.
// The widget comes from an asset origin (its llama.cpp worker starts through a same-origin blob:
// module, its wasm from the asset host), the docs page from another; the model (the generated
// test model, random weights) from a third server. A question calls a tool (tool-choice
// "required"): the tool card and the receipt (with the model file's sha256) show; after a reload
// the stored model answers again without downloading anything. (The widget has no service worker of
// its own: offline use of the widget needs the host page's; the playground's is tested offline.)
import { createHash } from "node:crypto";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { buildTestModel } from "../test/fixtures/gguf.ts";
import { startModelServer, type ModelServer } from "../test/engines/model-server.ts";
import { docsPage, ensureWidgetBuild, startStaticServer, startWidgetSites, type StaticServer } from "./widget-servers.ts";

const TOOLS = `from edgestudio.tools import edge_tool

@edge_tool(description="Add two whole numbers.")
def add(a: int, b: int) -> dict:
    return {"sum": a + b}
`;
const model = buildTestModel();
const sha = createHash("sha256").update(model).digest("hex");
let sites: Awaited<ReturnType<typeof startWidgetSites>>;
let docs: StaticServer;
let server: ModelServer;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  sites = await startWidgetSites({ widgetDir: ensureWidgetBuild() });
  docs = await startStaticServer();
  server = await startModelServer(model);
  docs.route("/tools.py", TOOLS);
  docs.route("/page.html", docsPage({ widgetUrl: sites.assets.url("/edge-chat.js"), attrs: `tools-src="./tools.py" model="${server.url("/model.gguf")}" tool-choice="required"` }));
});
test.afterAll(async () => {
  await server?.close();
  await docs?.close();
  await sites?.close();
});

async function receipts(page: Page): Promise<Array<Record<string, unknown>>> {
  return page.evaluate(() => (window as unknown as { __receipts: Array<Record<string, unknown>> }).__receipts);
}

async function askAdd(widget: Locator): Promise<void> {
  const input = widget.getByRole("textbox", { name: "Your question" });
  await input.fill("Add 2 and 3.");
  await input.press("Enter");
  const card = widget.getByRole("article", { name: "Tool call add" });
  await expect(card.getByText("ok", { exact: true })).toBeVisible({ timeout: 180_000 });
}

test("no WebGPU: engine auto runs the GGUF model on the CPU, calls a tool, records the model file; after a reload it answers from the stored model", async ({ page, context }) => {
  test.setTimeout(360_000);
  await context.addInitScript(`window.__receipts = []; document.addEventListener("edge-receipt", (e) => window.__receipts.push(JSON.parse(JSON.stringify(e.detail))));`);
  const workers: string[] = [];
  page.on("worker", (w) => workers.push(w.url()));
  await page.goto(docs.url("/page.html"));
  const widget = page.locator("edge-chat");
  await expect(widget.getByText("model.gguf · on-device model (llama.cpp, CPU)")).toBeVisible();
  await askAdd(widget);
  await expect.poll(async () => (await receipts(page)).length, { timeout: 180_000 }).toBe(1);
  const [receipt] = await receipts(page);
  expect(receipt).toMatchObject({ engine: "llamacpp", model_id: "model.gguf", model_fingerprint: { sha256: `sha256:${sha}` }, calls: [{ tool_name: "add", status: "ok", runner_secret_verified: true }] });
  // The llama.cpp worker and its wasm came from the asset host; the worker started via a blob: module.
  expect(sites.assets.requests.some((p) => /^\/assets\/llamacpp\.worker-[\w-]+\.js$/.test(p))).toBe(true);
  expect(sites.assets.requests.some((p) => /^\/assets\/wllama-[\w-]+\.wasm$/.test(p))).toBe(true);
  expect(workers.some((u) => u.startsWith("blob:" + docs.origin))).toBe(true);
  expect(server.hits("/model.gguf")).toBe(1);

  await page.reload();
  await askAdd(page.locator("edge-chat"));
  expect(server.hits("/model.gguf")).toBe(1);
});
