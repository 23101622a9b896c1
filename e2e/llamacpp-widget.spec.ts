// The <edge-chat> widget with a real model and no WebGPU: engine "auto" runs llama.cpp on the CPU.
// The widget comes from an asset origin (its llama.cpp worker starts through a same-origin blob:
// module, its wasm from the asset host), the docs page from another; the model (the generated
// test model, random weights) from a third server. A question calls a tool (tool-choice
// "required"): the tool card and the receipt (with the model file's sha256) show; after a reload
// the stored model answers again without downloading anything. (The widget has no service worker of
// its own: offline use of the widget needs the host page's; the playground's is tested offline.)
// A GGUF file the visitor picks runs the same loop: loaded at once with its sha256 shown, nothing
// downloaded or stored; a file that is not a model is refused and the site's model stays.
import { createHash } from "node:crypto";
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import { buildTestModel } from "../test/fixtures/gguf.ts";
import { startModelServer, type ModelServer } from "../test/engines/model-server.ts";
import { CROSS_ORIGIN_ISOLATION } from "../vite.config.ts";
import { askWidget } from "./widget-helpers.ts";
import {
  docsPage,
  ensureWidgetBuild,
  startStaticServer,
  startWidgetSites,
  type StaticServer,
} from "./widget-servers.ts";

const TOOLS = `from edgestudio.tools import edge_tool

@edge_tool(description="Add two whole numbers.")
def add(a: int, b: int) -> dict:
    return {"sum": a + b}
`;
const model = buildTestModel();
const sha = createHash("sha256").update(model).digest("hex");
let sites: Awaited<ReturnType<typeof startWidgetSites>>;
let docs: StaticServer;
let isolatedDocs: StaticServer;
let server: ModelServer;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  sites = await startWidgetSites({ widgetDir: ensureWidgetBuild() });
  docs = await startStaticServer();
  server = await startModelServer(model);
  isolatedDocs = await startStaticServer({ headers: CROSS_ORIGIN_ISOLATION });
  for (const d of [docs, isolatedDocs]) {
    d.route("/tools.py", TOOLS);
    d.route(
      "/page.html",
      docsPage({
        widgetUrl: sites.assets.url("/edge-chat.js"),
        attrs: `tools-src="./tools.py" model="${server.url("/model.gguf")}" tool-choice="required"`,
      }),
    );
  }
});
test.afterAll(async () => {
  await server?.close();
  await docs?.close();
  await isolatedDocs?.close();
  await sites?.close();
});

async function receipts(page: Page): Promise<Array<Record<string, unknown>>> {
  return page.evaluate(() => (window as typeof window & { __receipts: Array<Record<string, unknown>> }).__receipts);
}

/** Every file in the page origin's OPFS (where Chromium stores downloaded models). */
async function storedFiles(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const out: string[] = [];
    const walk = async (dir: FileSystemDirectoryHandle, prefix: string): Promise<void> => {
      for await (const [name, handle] of dir.entries()) {
        if (handle.kind === "directory") await walk(handle as FileSystemDirectoryHandle, `${prefix}${name}/`);
        else out.push(prefix + name);
      }
    };
    await walk(await navigator.storage.getDirectory(), "");
    return out;
  });
}

/** What holds whatever the random-weight model chooses after a result (another call or an answer,
 *  up to the call budget): at least one call, every call add, ok, and run in a verified runner. */
function expectAddCalls(receipt: unknown): void {
  const calls = (receipt as { calls: unknown[] }).calls;
  expect(calls.length).toBeGreaterThanOrEqual(1);
  for (const call of calls)
    expect(call).toMatchObject({ tool_name: "add", status: "ok", runner_secret_verified: true });
}

async function askAdd(widget: Locator): Promise<void> {
  // A model file's load is a run too: Send comes back when it is done.
  await askWidget(widget, "Add 2 and 3.", 180_000);
  const card = widget.getByRole("article", { name: "Tool call add" }).last();
  await expect(card.getByText("ok", { exact: true })).toBeVisible({ timeout: 180_000 });
}

test("no WebGPU: engine auto runs the GGUF model on the CPU, calls a tool, records the model file; after a reload it answers from the stored model", async ({
  page,
  context,
}) => {
  test.setTimeout(360_000);
  await context.addInitScript(
    `window.__receipts = []; document.addEventListener("edge-receipt", (e) => window.__receipts.push(JSON.parse(JSON.stringify(e.detail))));`,
  );
  const workers: string[] = [];
  page.on("worker", (w) => workers.push(w.url()));
  await page.goto(docs.url("/page.html"));
  const widget = page.locator("edge-chat");
  await expect(widget.getByText("model.gguf · on-device model (llama.cpp, CPU)")).toBeVisible();
  await askAdd(widget);
  await expect.poll(async () => (await receipts(page)).length, { timeout: 180_000 }).toBe(1);
  const [receipt] = await receipts(page);
  expect(receipt).toMatchObject({
    engine: "llamacpp",
    model_id: "model.gguf",
    model_fingerprint: { sha256: `sha256:${sha}` },
  });
  expectAddCalls(receipt);
  // The llama.cpp worker and its wasm came from the asset host; the worker started via a blob: module.
  expect(sites.assets.requests.some((p) => /^\/assets\/llamacpp\.worker-[\w-]+\.js$/.test(p))).toBe(true);
  expect(sites.assets.requests.some((p) => /^\/assets\/wllama-[\w-]+\.wasm$/.test(p))).toBe(true);
  expect(workers.some((u) => u.startsWith("blob:" + docs.origin))).toBe(true);
  expect(server.hits("/model.gguf")).toBe(1);

  await page.reload();
  await askAdd(page.locator("edge-chat"));
  expect(server.hits("/model.gguf")).toBe(1);
});

test("a model file the visitor picks: labelled, loaded at once with its sha256, calls a tool, nothing downloaded or stored; a non-GGUF file is refused", async ({
  page,
}) => {
  test.setTimeout(300_000);
  await page.addInitScript(
    `window.__receipts = []; window.__errors = []; document.addEventListener("edge-receipt", (e) => window.__receipts.push(JSON.parse(JSON.stringify(e.detail)))); document.addEventListener("edge-error", (e) => window.__errors.push(e.detail.code));`,
  );
  const hits = server.hits("/model.gguf");
  await page.goto(docs.url("/page.html"));
  const widget = page.locator("edge-chat");
  const picker = widget.getByLabel("Use a GGUF model file from this device");
  await expect(picker).toHaveAttribute("type", "file");
  await expect(widget.getByText("Read on this device: never uploaded, never stored.")).toBeVisible();

  // Not a model: refused with its code, the site's model stays (its badge, its download later).
  await picker.setInputFiles({
    name: "notes.gguf",
    mimeType: "application/octet-stream",
    buffer: Buffer.from("These are my notes, not a model.\n".repeat(20)),
  });
  await expect(widget.getByText("Model file not loaded (model_not_gguf)")).toBeVisible({ timeout: 120_000 });
  await expect(
    widget.getByText("notes.gguf was not loaded (model_not_gguf); the site's model stays in use."),
  ).toBeVisible();
  await expect(widget.getByText("model.gguf · on-device model (llama.cpp, CPU)")).toBeVisible();
  // The event may follow what the widget shows: wait for it.
  await expect
    .poll(() => page.evaluate(() => (window as typeof window & { __errors: string[] }).__errors))
    .toEqual(["model_not_gguf"]);

  // The generated model as a file: ready at once, with the file's sha256.
  await picker.setInputFiles({ name: "picked.gguf", mimeType: "application/octet-stream", buffer: Buffer.from(model) });
  // Loaded: the file's sha256 shows (the status line then moves on to reading the tools ahead).
  await expect(widget.locator("[part=model-file]")).toContainText(
    `sha256:${sha}: read here, never uploaded, never stored.`,
    { timeout: 180_000 },
  );
  await expect(widget.getByText("picked.gguf · on-device model (llama.cpp, CPU)")).toBeVisible();
  await askAdd(widget);
  await expect.poll(async () => (await receipts(page)).length, { timeout: 180_000 }).toBe(1);
  expect((await receipts(page))[0]).toMatchObject({
    engine: "llamacpp",
    model_id: "picked.gguf",
    model_fingerprint: { sha256: `sha256:${sha}` },
  });
  expectAddCalls((await receipts(page))[0]);
  // Nothing was downloaded, and nothing was stored for the file.
  expect(server.hits("/model.gguf")).toBe(hits);
  expect(await storedFiles(page)).toEqual([]);

  // Back to the site's model: the picker says so, and the next question loads it (from the URL).
  await widget.getByRole("button", { name: "Use the site's model" }).click();
  await expect(widget.getByText("model.gguf · on-device model (llama.cpp, CPU)")).toBeVisible();
  await expect(widget.getByText("Read on this device: never uploaded, never stored.")).toBeVisible();
});

test("after the tool result the model's next turn ends the run: an answer, or the named invalid UTF-8 failure", async ({
  page,
}) => {
  // On the generated model (a byte vocabulary, random weights) the turn after the add result
  // emits a piece that is not valid UTF-8 in every run of this page so far: wllama 3.13's C++ JSON
  // encoder throws ("[json.exception.type_error.316] invalid UTF-8 byte …"), wllama_action writes
  // no output length, and its worker reads the input's "GLUE" magic (0x45554c47) as one. The
  // engine names that cause (src/engines/llamacpp/browser/worker-errors.ts) instead of the typed
  // array error; any other failure fails this test.
  test.setTimeout(300_000);
  await page.goto(docs.url("/page.html"));
  const widget = page.locator("edge-chat");
  await askAdd(widget);
  const status = widget.getByRole("status");
  await expect(status).toHaveText(/^(Answered|Failed)/, { timeout: 180_000 });
  const ended = (await status.textContent()) ?? "";
  if (ended.startsWith("Answered")) return;
  const errors = (await widget.locator(".msg.error").allTextContents()).join(" | ");
  expect(ended).toMatch(/^Failed: generation_failed/);
  expect(errors).toContain("The model produced bytes that are not valid UTF-8");
  expect(errors).not.toMatch(/typed array|Uint8Array/);
});

test("a cross-origin-isolated docs page (COOP/COEP, docs/widget.md): the widget from another origin still loads, runs the model and the sandboxed tool", async ({
  page,
}) => {
  test.setTimeout(300_000);
  await page.goto(isolatedDocs.url("/page.html"));
  // The asset host sends only CORS (no Cross-Origin-Resource-Policy): enough under require-corp.
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  const widget = page.locator("edge-chat");
  await expect(widget.getByText("model.gguf · on-device model (llama.cpp, CPU)")).toBeVisible();
  await askAdd(widget);
});
