// What a new user trips on in the playground, at a desktop (1400×900) and a phone (390×844)
// viewport: an edit followed by Inspect or by the next message starts a new session with the new
// file (and says so in the chat); a failed model load leaves the picker on the engine the chat
// really uses, a server without CORS is named as the cause, and the "until then: scripted demo"
// box goes once a model is in use; the page never jumps during boot, the chat comes before the
// tool list, the editor stays inside the screen, and the busy mark is drawn, not an emoji.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import { buildTestModel } from "../test/fixtures/gguf.ts";
import { startModelServer, type ModelServer } from "../test/engines/model-server.ts";
import { loadModelFromUrl, openModelSources, storedReceipts } from "./playground-helpers.ts";

const SHOTS = ".cache/screenshots";
const VIEWPORTS = [
  { name: "desktop", width: 1400, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;
const PING_TOOL = "\n\n@edge_tool\ndef ping() -> str:\n    return 'pong'\n";

let server: ModelServer;
test.beforeAll(async () => {
  server = await startModelServer(buildTestModel());
});
test.afterAll(() => server.close());

/** Open the playground and record window.scrollY from the first paint until it is ready. */
async function openAndWatchScroll(page: Page): Promise<number[]> {
  await page.addInitScript(() => {
    const seen: number[] = [];
    (window as typeof window & { __scrolls: number[] }).__scrolls = seen;
    const tick = (): void => {
      seen.push(Math.round(window.scrollY));
      if (document.body?.dataset.ready !== "1") requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await page.goto("/?nosw");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });
  // The first session's divider lands in the chat after ready: give it a moment to (not) scroll.
  await expect(page.locator("#chat-log .entry.divider")).toHaveCount(1);
  return page.evaluate(() => [
    ...(window as typeof window & { __scrolls: number[] }).__scrolls,
    Math.round(window.scrollY),
  ]);
}

async function typeAtEnd(page: Page, text: string): Promise<void> {
  await page.locator("#editor .cm-content").click();
  await page.keyboard.press("Control+End");
  // Inserted as a paste is (no auto-indent after a Python block's last line).
  await page.keyboard.insertText(text);
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel("Message").fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

const inspectedSha = async (page: Page): Promise<string> =>
  /tools_file_sha256 (sha256:[0-9a-f]{64})/.exec((await page.locator("#tools-status").textContent()) ?? "")![1]!;

for (const vp of VIEWPORTS) {
  test.describe(`${vp.name} ${vp.width}×${vp.height}`, () => {
    test.use({ viewport: { width: vp.width, height: vp.height } });

    // The boot of a newcomer's first visit: a fresh profile (e2e/fixtures.ts), so the runner's
    // snapshot is made during it. The later tests start from a visited profile (a returning visitor).
    test.describe("first visit", () => {
      test.use({ freshProfile: true });

      test("boot keeps the page still; the chat comes before the tool list; nothing is wider than the screen; no emoji", async ({
        page,
      }) => {
        const scrolls = await openAndWatchScroll(page);
        expect(scrolls.length).toBeGreaterThan(3);
        expect(new Set(scrolls)).toEqual(new Set([0]));
        const box = async (sel: string) => (await page.locator(sel).boundingBox())!;
        const chat = await box("#chat-region");
        const tools = await box(".tools");
        expect(chat.y).toBeLessThan(tools.y);
        if (vp.name === "desktop") expect(chat.y).toBeLessThan(vp.height);
        // The editor wraps long lines: its content is no wider than its own box, the page no wider than the screen.
        const widths = await page.evaluate(() => {
          const scroller = document.querySelector<HTMLElement>("#editor .cm-scroller")!;
          return {
            content: scroller.scrollWidth,
            box: scroller.clientWidth,
            page: document.documentElement.scrollWidth,
          };
        });
        expect(widths.content).toBeLessThanOrEqual(widths.box);
        expect(widths.page).toBeLessThanOrEqual(vp.width);
        // The busy mark is drawn with CSS (a spinner), never an emoji a font may lack.
        const mark = await page.evaluate(() => {
          const p = document.createElement("p");
          p.className = "status";
          p.dataset.state = "busy";
          p.textContent = "Working…";
          document.body.append(p);
          const s = getComputedStyle(p, "::before");
          const out = { content: s.content, width: parseFloat(s.width), border: s.borderTopStyle };
          p.remove();
          return out;
        });
        expect(mark).toEqual({ content: '""', width: expect.any(Number), border: "solid" });
        expect(mark.width).toBeGreaterThan(0);
        expect(await page.evaluate(() => /\p{Extended_Pictographic}/u.test(document.body.innerText))).toBe(false);
        await page.screenshot({ path: `${SHOTS}/first-steps-${vp.name}.png` });
      });
    });

    test("Inspect after an edit starts a new session with the new file and says so; so does the first send after an edit", async ({
      page,
    }) => {
      await openAndWatchScroll(page);
      const first = await inspectedSha(page);
      // The note under the editor tells the same story (it used to describe the trap).
      await expect(page.locator("#source-note")).toContainText(
        "After an edit, press Inspect, or just send your next message: a new session starts with the edited file",
      );
      await typeAtEnd(page, PING_TOOL);
      await expect(page.locator("#source-changed")).toContainText("Press Inspect, or just send your next message");
      await page.getByRole("button", { name: "Inspect", exact: true }).click();
      const divider = page.locator("#chat-log .entry.divider.edited");
      await expect(divider).toHaveCount(1);
      const second = await inspectedSha(page);
      expect(second).not.toBe(first);
      await expect(divider).toContainText(
        `tools.py changed: new session with the edited file (tools_file_sha256 ${second.slice(0, 19)}…)`,
      );
      await expect(page.locator("#session-info")).toContainText("6 active tool(s)");
      await send(page, "Quote a fee.");
      await expect(page.locator("#chat-status")).toHaveText("Done: answered.", { timeout: 60_000 });
      expect((await storedReceipts(page)).at(-1)).toMatchObject({
        kind: "chat",
        outcome: "answered",
        tools_file_sha256: second,
      });

      // No Inspect this time: the next message starts the new session itself, then runs in it.
      await typeAtEnd(page, "\n# a comment changes the file's bytes\n");
      await send(page, "Quote a fee again.");
      await expect(divider).toHaveCount(2);
      await expect(page.locator("#chat-status")).toHaveText("Done: answered.", { timeout: 60_000 });
      const last = (await storedReceipts(page)).at(-1)!;
      expect(last.tools_file_sha256).not.toBe(second);
      expect(last.outcome).toBe("answered");
      expect(last.calls.every((c) => c.code !== "tools_file_changed")).toBe(true);
      // Two turns: the conversation is taller than its box, and the last answer (its receipt line
      // is added after the entry) is in view at the box's end, not cut off below it.
      const log = page.locator("#chat-log");
      await expect(log.locator(".entry.assistant .receipt-line")).toHaveCount(2);
      expect(await log.evaluate((l) => l.scrollHeight > l.clientHeight)).toBe(true);
      await expect.poll(() => log.evaluate((l) => l.scrollHeight - l.scrollTop - l.clientHeight)).toBeLessThan(2);

      // An edit that breaks the file: the session keeps the file it froze, and the chat says why.
      await typeAtEnd(page, "\n@edge_tool\ndef broken(x) -> str:\n    return x\n");
      await page.getByRole("button", { name: "Inspect", exact: true }).click();
      await expect(page.locator("#chat-log .entry.notice").last()).toContainText(
        "the edited file has 1 problem(s) (missing_parameter_type_hint): this session keeps the file it froze",
      );
      await send(page, "And now?");
      await expect(page.locator("#chat-log .entry.error").last()).toContainText(
        "tools.py changed, and the edited file cannot start a session",
      );
      await expect(page.getByLabel("Message")).toHaveValue("And now?");
      await expect(divider).toHaveCount(2);
    });

    test("a failed model load leaves the picker on the engine in use and names CORS; the scripted-demo box goes once a model runs", async ({
      page,
    }) => {
      test.setTimeout(240_000);
      await openAndWatchScroll(page);
      const explain = page.locator("#gpu-explain");
      await expect(explain).toBeVisible();
      await expect(explain.locator("summary")).toContainText(
        "until you load a model, the chat uses the “Scripted demo (no model)” engine",
      );
      // One line until it is opened, on a wide screen as on a phone.
      expect(await explain.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      await expect(explain).toContainText("Until then the playground uses");
      // A catalog model picked in the picker whose download fails (its host answers 404 here; never
      // a real download): the picker goes back to the engine the chat uses, not the model that failed.
      await page.context().route(
        (url) => url.hostname === "huggingface.co",
        (route) => route.fulfill({ status: 404, headers: { "access-control-allow-origin": "*" }, body: "not here" }),
      );
      const picked = await page.locator("#engine-select option[value^='llamacpp:']").first().getAttribute("value");
      await page.locator("#engine-select").selectOption(picked!);
      await page.getByRole("button", { name: "Load model", exact: true }).click();
      await expect(page.locator("#engine-status")).toContainText("Could not load", { timeout: 60_000 });
      await expect(page.locator("#engine-status")).toContainText("The chat uses Scripted demo (no model).");
      await expect(page.locator("#engine-select option:checked")).toHaveText("Scripted demo (no model)");
      // A model URL that is not there (HTTP 404): the picker stays on the engine the chat uses.
      await openModelSources(page);
      await page.locator("#llama-url").fill(server.url("/missing.gguf"));
      await page.getByRole("button", { name: "Load URL" }).click();
      await expect(page.locator("#engine-status")).toContainText("Could not load", { timeout: 60_000 });
      await expect(page.locator("#engine-status")).toContainText("HTTP 404");
      await expect(page.locator("#engine-status")).toContainText("The chat uses Scripted demo (no model).");
      await expect(page.locator("#engine-select option:checked")).toHaveText("Scripted demo (no model)");
      // A server that does not allow cross-origin reads: the message says so, and what to do instead.
      await page.locator("#llama-url").fill(server.url("/no-cors.gguf"));
      await page.getByRole("button", { name: "Load URL" }).click();
      const status = page.locator("#engine-status");
      await expect(status).toContainText("model_fetch_failed", { timeout: 60_000 });
      await expect(status).toContainText("Access-Control-Allow-Origin");
      await expect(status).toContainText("GGUF from file…");
      await expect(page.locator("#engine-select option:checked")).toHaveText("Scripted demo (no model)");
      // The failure's line says which engine the chat uses: the no-GPU line, which would say it
      // again, steps aside while it shows.
      await expect(explain).toBeHidden();
      // A GGUF that loads: the box that says "until then … scripted demo" is gone.
      await loadModelFromUrl(page, server.url("/model.gguf"));
      await expect(explain).toBeHidden();
      await page.screenshot({ path: `${SHOTS}/first-steps-model-${vp.name}.png` });
    });
  });
}
