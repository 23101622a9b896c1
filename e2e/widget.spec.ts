// The <edge-chat> widget as a docs site uses it, in real Chromium: the built widget
// (vite.widget.config.ts) on an ASSET origin with CORS, static docs pages on ANOTHER origin with
// no COOP/COEP headers, Python tools running in the sandboxed Pyodide runner. Every test checks
// what a person sees in the widget, plus the DOM events a host page gets.
//
// No GPU here: the widget says so (engine "auto" would run llama.cpp on the CPU; the real-model
// path is e2e/llamacpp-widget.spec.ts), and answers come from the scripted demo engine (labelled
// "Scripted demo (no model)") replaying model outputs through the REAL tool loop.
import type { Frame, Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import { CHROMIUM_ARGS, findChromium } from "../scripts/chromium.mjs";
import { mkdirSync } from "node:fs";
import { zipSync } from "fflate";
import path from "node:path";
import { askWidget as ask } from "./widget-helpers.ts";
import {
  docsPage,
  ensureWidgetBuild,
  ROOT,
  startStaticServer,
  startWidgetSites,
  type StaticServer,
} from "./widget-servers.ts";

type Sites = Awaited<ReturnType<typeof startWidgetSites>>;
let widgetDir: string;
let sites: Sites;

const SCREENSHOTS = path.join(ROOT, ".cache", "screenshots");

/** Records the widget's events (as JSON) on every page/frame of the context. */
const RECORD_EVENTS = `
  window.__edgeEvents = [];
  for (const type of ["edge-receipt", "edge-pending-action", "edge-error"]) {
    document.addEventListener(type, (e) => window.__edgeEvents.push({ type, detail: JSON.parse(JSON.stringify(e.detail)) }));
  }`;

interface Recorded {
  type: string;
  detail: Record<string, unknown> & { calls?: Array<Record<string, unknown>> };
}

function events(target: Page | Frame, type?: string): Promise<Recorded[]> {
  return target.evaluate((t) => {
    const all = (window as typeof window & { __edgeEvents: Recorded[] }).__edgeEvents;
    return t ? all.filter((e) => e.type === t) : all;
  }, type ?? null);
}

/** The events of `type` once at least `count` arrived: the page shows an answer as it streams, and
 *  the widget announces the run (edge-receipt, edge-pending-action, edge-error) only after its
 *  receipt is stored, so an event may follow what the test just saw. */
async function eventsOf(target: Page | Frame, type: string, count = 1): Promise<Recorded[]> {
  await expect.poll(async () => (await events(target, type)).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(count);
  return events(target, type);
}

const call = (tool: string, args: Record<string, unknown>): string =>
  JSON.stringify({ tool_name: tool, arguments: args });

/** The scripted attribute as a JSON array, HTML-attribute-escaped. */
function scriptAttr(outputs: string[]): string {
  return JSON.stringify(outputs).replace(/&/g, "&amp;").replace(/'/g, "&#39;");
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  widgetDir = ensureWidgetBuild();
  sites = await startWidgetSites({ widgetDir });
});

test.afterAll(async () => {
  await sites?.close();
});

test.beforeEach(async ({ context }) => {
  await context.addInitScript(RECORD_EVENTS);
});

test("sample docs page on another origin: scripted demo answers through a real Python tool, then a confirmed commit", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(sites.docs.url("/widget.html"));
  const widget = page.locator("edge-chat");
  // The docs page is not cross-origin isolated (no COOP/COEP) and the widget came from elsewhere.
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  expect(new URL(sites.assets.origin).origin).not.toBe(new URL(page.url()).origin);

  // No WebGPU here: a plain notice that the model would run on the CPU (llama.cpp) after a named
  // download, and the scripted demo only under its explicit label.
  await expect(widget.getByText("WebGPU is not available")).toBeVisible();
  await expect(widget.locator("[part=notice]")).toContainText(
    "runs on this device's CPU (llama.cpp). The first question downloads SmolLM2 135M Instruct (Q4_1) (98 MB) once",
  );
  await expect(widget.getByText("SmolLM2 135M Instruct (Q4_1) · on-device model (llama.cpp, CPU)")).toBeVisible();
  await widget.getByRole("button", { name: "Use the Scripted demo (no model)" }).click();
  await expect(widget.getByText("Scripted demo (no model)", { exact: true })).toBeVisible();

  await ask(widget, "Where is order A-1001?");
  const card = widget.getByRole("article", { name: "Tool call order_status" });
  await expect(card).toBeVisible();
  await expect(card.getByText("ok", { exact: true })).toBeVisible();
  await expect(widget.getByText("Order A-1001 has shipped with DHL: 2 items, 129.90 in total.")).toBeVisible();
  await card.getByText("Result").click();
  await expect(card.getByText('"carrier": "DHL"')).toBeVisible();

  const receipts = await eventsOf(page, "edge-receipt");
  expect(receipts).toHaveLength(1);
  expect(receipts[0]!.detail).toMatchObject({
    kind: "chat",
    outcome: "answered",
    engine: "scripted",
    network_used_by_edge: false,
  });
  expect(receipts[0]!.detail.calls![0]).toMatchObject({
    tool_name: "order_status",
    status: "ok",
    runner_secret_verified: true,
    tools_file_sha256_verified: true,
  });

  // A commit tool: a confirmation card; the host's event carries no token.
  await ask(widget, "Submit draft D-SKU-7-1");
  const confirmCard = widget.getByRole("article", { name: "Confirm submit_order?" });
  await expect(confirmCard).toBeVisible();
  await expect(confirmCard.getByText('"draft_id": "D-SKU-7-1"')).toBeVisible();
  const pending = await eventsOf(page, "edge-pending-action");
  expect(pending).toHaveLength(1);
  expect(pending[0]!.detail).toMatchObject({ tool: "submit_order", arguments: { draft_id: "D-SKU-7-1" } });
  expect(Object.keys(pending[0]!.detail).sort()).toEqual(["arguments", "expires_at", "id", "tool"]);
  expect(JSON.stringify(await events(page))).not.toContain("confirmation_token");

  mkdirSync(SCREENSHOTS, { recursive: true });
  await widget.screenshot({ path: path.join(SCREENSHOTS, "widget-confirm.png") });

  await confirmCard.getByRole("button", { name: "Confirm" }).click();
  await expect(confirmCard.getByText("confirmed")).toBeVisible();
  await expect(confirmCard.getByText('"order_id": "O-SKU-7-1"')).toBeVisible();
  const all = await eventsOf(page, "edge-receipt", 3);
  expect(all.map((r) => [r.detail.kind, r.detail.outcome])).toEqual([
    ["chat", "answered"],
    ["chat", "pending_confirmation"],
    ["confirm", "return_direct"],
  ]);
  expect(all[2]!.detail.calls![0]).toMatchObject({
    tool_name: "submit_order",
    status: "ok",
    runner_secret_verified: true,
  });
  await page.screenshot({ path: path.join(SCREENSHOTS, "widget.png"), fullPage: true });

  // What crossed origins: the widget's files and Pyodide from the asset host, the tools file from
  // the docs site, re-read for every job (discovery, call, discovery + call at confirm).
  expect(sites.assets.requests).toEqual(
    expect.arrayContaining(["/edge-chat.js", "/pyodide/pyodide.asm.wasm", "/pyodide/python_stdlib.zip"]),
  );
  expect(sites.docs.requests.filter((p) => p === "/examples/tools.py").length).toBeGreaterThanOrEqual(4);
  expect(errors).toEqual([]);
});

test.describe("docs pages made for the test", () => {
  let docs: StaticServer;
  let docsLocalhost: StaticServer;
  let tools = "";

  test.beforeAll(async () => {
    docs = await startStaticServer();
    docsLocalhost = await startStaticServer({ urlHost: "localhost" });
    tools = await (await import("node:fs/promises")).readFile(
      path.join(ROOT, "public", "examples", "tools.py"),
      "utf8",
    );
    for (const s of [docs, docsLocalhost]) s.route("/tools.py", tools);
  });
  test.afterAll(async () => {
    await docs?.close();
    await docsLocalhost?.close();
  });

  const widgetUrl = (): string => sites.assets.url("/edge-chat.js");

  test("docs on localhost, widget on 127.0.0.1 (another site): answers and emits edge-receipt; the programmatic API keeps the token", async ({
    page,
  }) => {
    test.setTimeout(150_000);
    docsLocalhost.route(
      "/page.html",
      docsPage({
        widgetUrl: widgetUrl(),
        attrs: `tools-src="./tools.py" tool-tag="orders" engine="scripted" script='${scriptAttr([call("order_status", { order_id: "A-1003" }), "A-1003 was delivered by UPS.", call("submit_order", { draft_id: "D-X-1" })])}'`,
      }),
    );
    await page.goto(docsLocalhost.url("/page.html"));
    const widget = page.locator("edge-chat");
    // engine="scripted": labelled, no GPU notice.
    await expect(widget.getByText("Scripted demo (no model)", { exact: true })).toBeVisible();
    await expect(widget.getByText("WebGPU is not available")).toHaveCount(0);
    await ask(widget, "Status of A-1003?");
    await expect(widget.getByText("A-1003 was delivered by UPS.")).toBeVisible();
    expect((await eventsOf(page, "edge-receipt"))[0]!.detail).toMatchObject({
      outcome: "answered",
      calls: [{ tool_name: "order_status", status: "ok" }],
    });

    // ask() from the host page: the run's pending action has no token; confirmationToken(id) does.
    const run = await page.evaluate(async () => {
      const el = document.querySelector("edge-chat") as HTMLElement & {
        ask(p: string): Promise<{ outcome: string; pending_action?: Record<string, unknown> }>;
        confirmationToken(id: string): string | undefined;
      };
      const r = await el.ask("Submit D-X-1");
      const id = String(r.pending_action?.["id"]);
      return { outcome: r.outcome, pending: r.pending_action, hasToken: typeof el.confirmationToken(id) === "string" };
    });
    expect(run).toMatchObject({
      outcome: "pending_confirmation",
      pending: { tool: "submit_order", arguments: { draft_id: "D-X-1" } },
      hasToken: true,
    });
    expect(run.pending).not.toHaveProperty("confirmation_token");
    const card = widget.getByRole("article", { name: "Confirm submit_order?" });
    await card.getByRole("button", { name: "Reject" }).click();
    await expect(card.getByText("rejected")).toBeVisible();
    // A rejected action can never run.
    const again = await page.evaluate(
      (id) =>
        (document.querySelector("edge-chat") as HTMLElement & { confirm(id: string): Promise<unknown> }).confirm(id),
      String(run.pending!["id"]),
    );
    expect(again).toMatchObject({ ok: false });
  });

  for (const variant of ["same-site", "cross-site"] as const) {
    test(`inside an iframe (${variant} parent): the widget answers and emits edge-receipt in the frame`, async ({
      page,
    }) => {
      test.setTimeout(150_000);
      docs.route(
        "/framed.html",
        docsPage({
          widgetUrl: widgetUrl(),
          attrs: `tools-src="./tools.py" engine="scripted" script='${scriptAttr([call("fee_quote", { amount: 1000, tier: "pro" }), "The fee is 2.00."])}'`,
        }),
      );
      // The outer page is a third origin: same site (127.0.0.1, another port) or another site
      // (localhost), where Chromium refuses the frame IndexedDB and the widget keeps receipts in memory.
      const outer = variant === "same-site" ? sites.docs : docsLocalhost;
      outer.route(
        "/outer.html",
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Outer</title><link rel="icon" href="data:,"></head><body><h1>Outer page</h1><iframe title="Docs" src="${docs.url("/framed.html")}" style="width:720px;height:640px"></iframe></body></html>`,
      );
      await page.goto(outer.url("/outer.html"));
      const widget = page.frameLocator("iframe[title=Docs]").locator("edge-chat");
      await ask(widget, "Fee for 1000 on pro?");
      await expect(
        widget.getByRole("article", { name: "Tool call fee_quote" }).getByText("ok", { exact: true }),
      ).toBeVisible();
      await expect(widget.getByText("The fee is 2.00.")).toBeVisible();
      const note = widget.getByText("receipts and confirmations are kept for this page visit only");
      if (variant === "cross-site") await expect(note).toBeVisible();
      else await expect(note).toHaveCount(0);
      const inner = page.frames().find((f) => f.url().startsWith(docs.origin))!;
      const receipts = await eventsOf(inner, "edge-receipt");
      expect(receipts[0]!.detail).toMatchObject({
        outcome: "answered",
        seq: 1,
        calls: [{ tool_name: "fee_quote", status: "ok", runner_secret_verified: true }],
      });
    });
  }

  test("builtins attribute and read_local: the visitor's files feed the tools; a write asks with its diff", async ({
    page,
  }) => {
    test.setTimeout(150_000);
    docs.route(
      "/workspace_tools.py",
      await (await import("node:fs/promises")).readFile(
        path.join(ROOT, "public", "examples", "workspace_tools.py"),
        "utf8",
      ),
    );
    const script = [
      call("summarize_csv", { path: "data.csv" }),
      "Summarized.",
      call("write_file", { path: "notes.txt", content: "north leads" }),
      "Saved.",
    ];
    docs.route(
      "/files.html",
      docsPage({
        widgetUrl: widgetUrl(),
        attrs: `tools-src="./workspace_tools.py" builtins="read_file write_file" engine="scripted" script='${scriptAttr(script)}'`,
      }),
    );
    await page.addInitScript(RECORD_EVENTS);
    await page.goto(docs.url("/files.html"));
    const widget = page.locator("edge-chat");
    await widget.getByLabel("Files for the tools (kept in this page only)").setInputFiles({
      name: "data.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("region,amount\nnorth,10\nsouth,32\n"),
    });
    await expect(widget.getByRole("list", { name: "Your files" })).toContainText("data.csv");
    await ask(widget, "Summarize my data");
    await expect(widget.getByText("Summarized.")).toBeVisible();
    const card = widget.getByRole("article", { name: "Tool call summarize_csv" });
    await expect(card.getByText("ok", { exact: true })).toBeVisible();
    const receipts = await eventsOf(page, "edge-receipt");
    expect(receipts[0]!.detail.calls![0]).toMatchObject({ tool_name: "summarize_csv", status: "ok" });
    expect(String(receipts[0]!.detail.calls![0]!["workspace_sha256"])).toMatch(/^sha256:[0-9a-f]{64}$/);

    await ask(widget, "Save a note");
    const write = widget.getByRole("article", { name: "Let write_file change your files?" });
    await expect(write.getByLabel("Changes to /workspace/notes.txt")).toContainText("+north leads");
    await write.getByRole("button", { name: "Approve" }).click();
    await expect(widget.getByText("Saved.")).toBeVisible();
    await expect(widget.getByRole("list", { name: "Your files" })).toContainText("notes.txt");
  });

  test("hostile page CSS does not break the widget, and the widget does not restyle the page", async ({ page }) => {
    test.setTimeout(150_000);
    const css = `* { color: red !important; display: block; font-family: "Comic Sans MS", cursive !important; letter-spacing: 4px !important; }
      input, button, iframe, article, section, div { display: none !important; visibility: hidden !important; }
      edge-chat { display: block; }
      p { color: rgb(1, 2, 3); }`;
    docs.route(
      "/hostile.html",
      docsPage({
        widgetUrl: widgetUrl(),
        css,
        body: `<p id="host-text">Host paragraph.</p>`,
        attrs: `tools-src="./tools.py" engine="scripted" script='${scriptAttr([call("hello_world", {}), "Hello from the tools."])}'`,
      }),
    );
    await page.goto(docs.url("/hostile.html"));
    const widget = page.locator("edge-chat");
    const input = widget.getByRole("textbox", { name: "Your question" });
    await expect(input).toBeVisible();
    await expect(widget.getByRole("button", { name: "Send" })).toBeVisible();
    await ask(widget, "Say hello");
    const answer = widget.getByText("Hello from the tools.");
    await expect(answer).toBeVisible();
    const style = await answer.evaluate((el) => {
      const s = getComputedStyle(el);
      return { color: s.color, letterSpacing: s.letterSpacing, font: s.fontFamily };
    });
    expect(style.color).not.toBe("rgb(255, 0, 0)");
    expect(style.letterSpacing).toBe("normal");
    expect(style.font).not.toContain("Comic");
    // The page's own styles still apply to the page (the widget's styles stay in its shadow root).
    expect(await page.locator("#host-text").evaluate((el) => getComputedStyle(el).color)).toBe("rgb(255, 0, 0)");
    expect(await page.evaluate(() => document.querySelectorAll("style, link[rel=stylesheet]").length)).toBe(1);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await widget.screenshot({ path: path.join(SCREENSHOTS, "widget-hostile-css.png") });
  });

  test("XSS in model output and in a tool result stays inert text", async ({ page }) => {
    test.setTimeout(150_000);
    const payload = `<img src=x onerror="window.__xss=(window.__xss||0)+1"><script>window.__xss=99</script><b>bold?</b>`;
    const xssTools = `${tools}

@edge_tool
def echo_html(text: str) -> dict:
    return {"html": text, "svg": "<svg onload=\\"window.__xss=7\\"></svg>"}
`;
    docs.route("/xss_tools.py", xssTools);
    docs.route(
      "/xss.html",
      docsPage({
        widgetUrl: widgetUrl(),
        attrs: `tools-src="./xss_tools.py" tool="echo_html" engine="scripted" script='${scriptAttr([call("echo_html", { text: payload }), `Here it is: ${payload}`])}'`,
      }),
    );
    page.on("dialog", (d) => void d.dismiss());
    await page.goto(docs.url("/xss.html"));
    const widget = page.locator("edge-chat");
    await ask(widget, payload);
    await expect(widget.getByText(`Here it is: ${payload}`)).toBeVisible();
    const card = widget.getByRole("article", { name: "Tool call echo_html" });
    await expect(card.getByText("ok", { exact: true })).toBeVisible();
    await card.getByText("Result").click();
    await expect(card.getByText('<svg onload=\\"window.__xss=7\\"></svg>', { exact: false })).toBeVisible();
    // The user's own prompt is text too.
    await expect(widget.locator(".user")).toContainText(payload);
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => (window as typeof window & { __xss?: number }).__xss)).toBeUndefined();
    const injected = await widget.evaluate((el) => el.shadowRoot!.querySelectorAll("img, script, svg, b").length);
    expect(injected).toBe(0);
  });

  test("facts-src: the facts file is imported and the model looks facts up through local_facts_lookup", async ({
    page,
  }) => {
    test.setTimeout(120_000);
    docs.route("/facts.json", {
      body: await (await import("node:fs/promises")).readFile(path.join(ROOT, "public", "examples", "facts.json")),
    });
    docs.route(
      "/facts.html",
      docsPage({
        widgetUrl: widgetUrl(),
        attrs: `facts-src="./facts.json" engine="scripted" script='${scriptAttr([call("local_facts_lookup", { query: "refund", topic: "refunds" }), "Refunds are possible within 30 days."])}'`,
      }),
    );
    await page.goto(docs.url("/facts.html"));
    const widget = page.locator("edge-chat");
    await ask(widget, "Can I get a refund?");
    const card = widget.getByRole("article", { name: "Tool call local_facts_lookup" });
    await expect(card.getByText("ok", { exact: true })).toBeVisible();
    await card.getByText("Result").click();
    await expect(card.getByText('"fact_id": "refund-window"')).toBeVisible();
    await expect(widget.getByText("Refunds are possible within 30 days.")).toBeVisible();
    expect((await eventsOf(page, "edge-receipt"))[0]!.detail).toMatchObject({
      outcome: "answered",
      calls: [{ tool_name: "local_facts_lookup", status: "ok" }],
    });
  });

  test("an edit of the tools file on the server during a session is refused: tools_file_changed", async ({ page }) => {
    test.setTimeout(150_000);
    docs.route("/live_tools.py", tools);
    docs.route(
      "/live.html",
      docsPage({
        widgetUrl: widgetUrl(),
        attrs: `tools-src="./live_tools.py" engine="scripted" script='${scriptAttr([call("hello_world", {}), "First answer.", call("hello_world", {})])}'`,
      }),
    );
    await page.goto(docs.url("/live.html"));
    const widget = page.locator("edge-chat");
    await ask(widget, "Hello?");
    await expect(widget.getByText("First answer.")).toBeVisible();
    docs.route("/live_tools.py", tools.replace('return "hello world"', 'return "hello, edited"'));
    await ask(widget, "Hello again?");
    await expect(widget.getByText("Not answered (tools_file_changed)")).toBeVisible();
    const errorsSeen = await eventsOf(page, "edge-error");
    expect(errorsSeen.at(-1)!.detail).toMatchObject({ code: "tools_file_changed" });
    expect((await eventsOf(page, "edge-receipt", 2)).at(-1)!.detail).toMatchObject({
      outcome: "failed_closed",
      code: "tools_file_changed",
    });
  });

  test("tools-src pointing at a zip: a tools project with its sibling module; an edited sibling on the server is refused, by name", async ({
    page,
  }) => {
    test.setTimeout(150_000);
    const enc = new TextEncoder();
    const bundle = (rate: number): Uint8Array =>
      zipSync({
        "shop/tools.py": enc.encode(
          "from edgestudio.tools import edge_tool\nfrom helpers import RATE\n\n@edge_tool\ndef rate() -> dict:\n    return {'rate': RATE, 'data': open('data.txt').read()}\n",
        ),
        "shop/helpers.py": enc.encode(`RATE = ${rate}\n`),
        "shop/data.txt": enc.encode("beside tools.py"),
      });
    docs.route("/shop.zip", { body: bundle(2), type: "application/zip" });
    docs.route(
      "/shop.html",
      docsPage({
        widgetUrl: widgetUrl(),
        attrs: `tools-src="./shop.zip" engine="scripted" script='${scriptAttr([call("rate", {}), "The rate is 2.", call("rate", {})])}'`,
      }),
    );
    await page.goto(docs.url("/shop.html"));
    const widget = page.locator("edge-chat");
    await ask(widget, "Rate?");
    await expect(widget.getByText("The rate is 2.")).toBeVisible();
    const first = (await eventsOf(page, "edge-receipt")).at(-1)!.detail as Record<string, unknown> & {
      calls: Record<string, unknown>[];
    };
    expect(first.calls[0]).toMatchObject({ tool_name: "rate", status: "ok", tools_file_sha256_verified: true });
    expect(first.tools_bundle_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    docs.route("/shop.zip", { body: bundle(9), type: "application/zip" });
    await ask(widget, "Rate again?");
    await expect(widget.getByText("Not answered (tools_file_changed)")).toBeVisible();
    const error = (await eventsOf(page, "edge-error")).at(-1)!.detail as Record<string, unknown>;
    expect(error).toMatchObject({ code: "tools_file_changed" });
    expect(String(error.message)).toContain("helpers.py changed after this session froze the tools project");
  });
});

test("web-llm engine on a foreign origin: its worker starts from the asset host, web-llm loads only on ask, and the blocked model download is reported", async ({
  playwright,
}) => {
  test.setTimeout(180_000);
  // A SwiftShader WebGPU adapter, so the widget goes as far as loading a model. No model exists
  // here: every request off the two local servers is aborted (never a download).
  const executablePath = findChromium();
  const browser = await playwright.chromium.launch({
    ...(executablePath ? { executablePath } : {}),
    args: [...CHROMIUM_ARGS, "--enable-unsafe-webgpu"],
  });
  try {
    const context = await browser.newContext();
    await context.addInitScript(RECORD_EVENTS);
    const attempted: string[] = [];
    await context.route(
      (url) => url.hostname !== "127.0.0.1" && url.hostname !== "localhost",
      async (route) => {
        attempted.push(route.request().url());
        await route.abort("internetdisconnected");
      },
    );
    const page = await context.newPage();
    const workers: string[] = [];
    page.on("worker", (w) => workers.push(w.url()));
    const docs = await startStaticServer();
    try {
      docs.route("/tools.py", {
        body: await (await import("node:fs/promises")).readFile(path.join(ROOT, "public", "examples", "tools.py")),
      });
      // engine="webllm": "auto" would not pick web-llm on a software (fallback) adapter.
      docs.route(
        "/llm.html",
        docsPage({ widgetUrl: sites.assets.url("/edge-chat.js"), attrs: `tools-src="./tools.py" engine="webllm"` }),
      );
      const before = sites.assets.requests.length;
      await page.goto(docs.url("/llm.html"));
      const widget = page.locator("edge-chat");
      await expect(widget.getByText("on-device model (WebGPU)")).toBeVisible();
      await expect(widget.getByText("WebGPU is not available")).toHaveCount(0);
      // Nothing heavy before the first question.
      await page.waitForTimeout(500);
      const initial = sites.assets.requests.slice(before);
      expect(initial.filter((p) => /lib-|pyodide|llm\.worker/.test(p))).toEqual([]);

      await ask(widget, "Where is order A-1001?");
      await expect(widget.getByText("Not answered (model_fetch_failed)")).toBeVisible({ timeout: 120_000 });
      const after = sites.assets.requests.slice(before);
      // The llm worker module came from the asset host (started through a same-origin blob: module).
      expect(after.some((p) => /^\/assets\/llm\.worker-[\w-]+\.js$/.test(p))).toBe(true);
      expect(workers.some((u) => u.startsWith("blob:" + docs.origin))).toBe(true);
      // web-llm itself was fetched from the asset host (the worker's half and the page's half).
      expect(after.filter((p) => /lib-[\w-]+\.js$/.test(p)).length).toBeGreaterThanOrEqual(2);
      expect(attempted.some((u) => u.startsWith("https://huggingface.co/"))).toBe(true);
      expect((await eventsOf(page, "edge-error")).at(-1)!.detail).toMatchObject({ code: "model_fetch_failed" });
    } finally {
      await docs.close();
    }
  } finally {
    await browser.close();
  }
});
