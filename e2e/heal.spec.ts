// Healing: a tool that exhausts the JS heap kills the sandbox frame's renderer process.
// The page must survive it, report that call as runner_crashed, replace the frame, and run the
// next call, with no reload. Driven through the playground's "Try a tool" panel.
//
// Chromium 156 runs the sandboxed srcdoc frame out of process (it is its own "iframe" target),
// so the crash takes the frame's process and leaves the page's. Playwright, however, marks the
// whole Page as crashed when ANY of its frame targets crashes (its FrameSession for the
// out-of-process frame forwards Inspector.targetCrashed to Page._didCrash), after which every
// page/locator call fails with "Page crashed". So everything after the crash goes through a CDP
// session of our own on the page target, which stays attached and answers: that the page really
// is alive is part of what this test shows.
import type { CDPSession } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

// A fresh profile (e2e/fixtures.ts): it watches the page's own browser for crashed targets
// (`browser.newBrowserCDPSession()`), and a visited profile's page runs in a browser of its own.
test.use({ freshProfile: true });

// The red team's payload, unchanged; and a tool for the call after it.
const TOOLS = `import js
from edgestudio.tools import edge_tool


@edge_tool
def hog() -> dict:
    """Keep allocating JavaScript arrays until the heap is exhausted."""
    keep = js.Array.new()
    while True:
        keep.push(js.Array.new(1000000).fill(1.5))
    return {}


@edge_tool
def ping() -> dict:
    """An ordinary call."""
    return {"pong": True}
`;

interface Crash {
  targetId: string;
  at: number;
}

/** Evaluate in the page through our own CDP session (await + return by value). */
async function evaluate<T>(cdp: CDPSession, expression: string): Promise<T> {
  const r = await cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
  if (r.exceptionDetails) throw new Error(`page evaluate failed: ${JSON.stringify(r.exceptionDetails).slice(0, 500)}`);
  return r.result.value as T;
}

/** Wait until `expression` is truthy in the page and return its value. */
async function waitFor<T>(cdp: CDPSession, expression: string, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await evaluate<T>(cdp, expression);
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Outcome {
  state: string;
  text: string;
  duration: string;
}

interface Health {
  frames: number;
  lost: number;
  lastLoss: { reason: string; at: number };
  lastRestartMs: number;
  slowestPongMs: number;
}

const health = (cdp: CDPSession) => evaluate<Health>(cdp, "window.__edge.host.sandbox.health");

const OUTCOME = `(() => {
  const el = document.querySelector("[data-testid=try-outcome]");
  return el && !document.querySelector("#try-run").disabled ? { state: el.dataset.state, text: el.textContent, duration: document.querySelector("#try-duration").textContent } : null;
})()`;

test("heap exhaustion in a tool: runner_crashed, the page lives, the next call works without a reload", async ({
  page,
  context,
  browser,
}) => {
  test.setTimeout(300_000);
  await page.goto("/?debug");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });

  await page.locator("#editor .cm-content").click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(TOOLS);
  await page.getByRole("button", { name: "Inspect", exact: true }).click();
  await expect(page.locator("#tools-status")).toContainText("2 tool(s)");
  await page.getByRole("button", { name: "Freeze / new session" }).click();
  await expect(page.locator("#session-info")).toContainText("2 active tool(s)");
  await page.getByRole("tab", { name: "Try a tool" }).click();
  await page.getByLabel("Tool", { exact: true }).selectOption("hog");
  await page.evaluate(() => window.__edge!.host.warm());
  const plainBootsBefore = await page.evaluate(() => window.__edge!.host.stats().plainBoots);

  const cdp = await context.newCDPSession(page);
  const browserCdp = await browser.newBrowserCDPSession();
  const crashes: Crash[] = [];
  browserCdp.on("Target.targetCrashed", (e) => crashes.push({ targetId: e.targetId, at: Date.now() }));
  await browserCdp.send("Target.setDiscoverTargets", { discover: true });
  const { targetInfos } = await browserCdp.send("Target.getTargets");
  const pageTarget = targetInfos.find((t) => t.type === "page" && t.url.includes("/?debug"))!;
  // The premise of the design: the sandbox frame is an out-of-process frame, a target of its own.
  expect(targetInfos.filter((t) => t.type === "iframe" && t.url === "about:srcdoc")).toHaveLength(1);
  await evaluate(cdp, "window.__sameDocument = true");

  await test.step("the payload from the Try-a-tool panel, with the playground's own 10 s limit", async () => {
    await page.getByRole("button", { name: "Run tool" }).click();
    const out = await waitFor<Outcome>(cdp, OUTCOME, 90_000);
    // Which comes first depends on how fast this machine fills the ≈ 4 GB the renderer may hold:
    // the frame's death (runner_crashed), or the time limit (runner_timeout: the worker is
    // terminated and its memory freed). Either way the page carries on (below).
    expect(out.state).toBe("error");
    expect(out.text).toMatch(/^runner_(crashed|timeout): /);
    console.log(`[heal] from the panel: ${out.text.slice(0, 40)}… after ${out.duration}`);
  });

  await test.step("the payload with a 90 s limit: the frame's process dies, the call is runner_crashed", async () => {
    const lostBefore = (await health(cdp)).lost;
    const started = Date.now();
    const report = await evaluate<{
      ok: boolean;
      error?: { code: string };
      diagnostics?: { reason?: string };
      duration_ms: number;
    }>(cdp, `window.__edge.freezeAndCall(${JSON.stringify(TOOLS)}, "hog", {}, 90000)`);
    expect(report.ok).toBe(false);
    expect(report.error?.code).toBe("runner_crashed");
    expect(report.diagnostics?.reason).toContain("stopped answering");
    // A frame's renderer died during this call, and only a frame's: the page target never crashed.
    const crash = crashes.filter((c) => c.at >= started).at(-1);
    expect(crash).toBeDefined();
    expect(crashes.map((c) => c.targetId)).not.toContain(pageTarget.targetId);
    // (≥: had the first step's worker outlived its termination, its frame's loss counts too.)
    const h = await health(cdp);
    expect(h.lost).toBeGreaterThanOrEqual(lostBefore + 1);
    console.log(
      `[heal] hog with a 90 s limit: runner_crashed after ${report.duration_ms} ms; ` +
        `the frame's crash (CDP event) → the page's detection: ${h.lastLoss.at - crash!.at} ms`,
    );
  });

  await test.step("the next call from the panel works, in the same document", async () => {
    await evaluate(
      cdp,
      `(() => {
      const select = document.querySelector("#try-tool-select");
      select.value = "ping";
      select.dispatchEvent(new Event("change", { bubbles: true }));
      document.querySelector("#try-output").replaceChildren();
      document.querySelector("#try-run").click();
    })()`,
    );
    const next = await waitFor<Outcome>(cdp, OUTCOME, 90_000);
    expect(next.state, next.text).toBe("ok");
    expect(JSON.parse(await evaluate<string>(cdp, `document.querySelector("#try-result").textContent`))).toEqual({
      pong: true,
    });
    expect(await evaluate<string>(cdp, `document.querySelector("#try-output").textContent`)).toContain(
      "runner secret (HMAC) verified: yes",
    );
    expect(await evaluate<boolean>(cdp, "window.__sameDocument === true")).toBe(true);
    expect(crashes.map((c) => c.targetId)).not.toContain(pageTarget.targetId);
    // The lost frames cost no plain boots: the memory snapshot was not blamed for them.
    const stats = await evaluate<{ snapshot: string; plainBoots: number }>(cdp, "window.__edge.host.stats()");
    expect(stats.snapshot).toBe("ready");
    expect(stats.plainBoots).toBe(plainBootsBefore);
    const h = await health(cdp);
    console.log(
      `[heal] next call from the panel: ok after ${next.duration}; replacement frame started in ${Math.round(h.lastRestartMs)} ms; ` +
        `frames ${h.frames}, lost ${h.lost}, slowest heartbeat answer ${Math.round(h.slowestPongMs)} ms`,
    );
  });
});
