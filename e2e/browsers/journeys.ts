// The core journeys in Firefox and WebKit, as a visitor makes them (driver.ts speaks to both):
//   playground — load, the example inspected, try a tool (HMAC-verified runner), a scripted chat
//     through a tool call, a commit confirmed once, the receipts still there after a reload; then
//     the generated GGUF model (random weights: the plumbing, not quality) from a URL through the
//     loop (a Cancel that stops a stalled download first), with the network gone an offline reload
//     that loads the stored copy and the same model from a file, and Delete.
//   widget — the sample docs page's scripted demo (a tool call, then a confirmed commit), and a
//     docs page whose widget runs the generated model from a URL (engine auto: no WebGPU here),
//     again after a reload from the stored copy, then from a file the visitor picks.
//   real weights — the playground with a trained model from a file, a URL and, offline, the
//     store (real-model-journey.ts).
//   PyPI packages — a tools file's declared dependencies locked, downloaded and run in the
//     playground (also offline) and in the widget (pypi-journey.ts).
//   load loop (Firefox) — the generated model loaded five times in a row in a page the service
//     worker controls, none stalled (load-journey.ts; load-loop.ts runs it 100 times).
// With default settings and no prompt answered. No console errors: Firefox's console, WebKit's
// as the page-side capture sees it (page-capture.ts says what that is).
import { createHash } from "node:crypto";
import { buildTestModel } from "../../test/fixtures/gguf.ts";
import { startModelServer } from "../../test/engines/model-server.ts";
import { docsPage, ensureWidgetBuild, startStaticServer, startWidgetSites } from "../widget-servers.ts";
import { evaluate, fill, until, untilText, type Driver } from "./driver.ts";
import { loadLoopJourney } from "./load-journey.ts";
import { pypiPlaygroundJourney, pypiWidgetJourney } from "./pypi-journey.ts";
import { realModelJourney } from "./real-model-journey.ts";
import {
  bootPlayground,
  expectEqual,
  expectIsolated,
  loadModel,
  noConsoleErrors,
  send,
  startAppServer,
  workFile,
  type Journey,
  type Pace,
} from "./steps.ts";

const ADD_TOOLS = `from edgestudio.tools import edge_tool

@edge_tool(description="Add two whole numbers.")
def add(a: int, b: int) -> dict:
    return {"sum": a + b}
`;

const CHROME_WORDS = /chrome:\/\/|113 or later|Chrome or Edge/;

/** Tool choice "required", a prompt, and the add tool's card: ok, with the sum of the model's arguments. */
async function askAdd(driver: Driver, pace: Pace): Promise<void> {
  await fill(driver, "#tool-choice", "required");
  await untilText(driver, "#session-info", "1 active tool(s)");
  await send(driver, "Add 2 and 3.");
  const card = await until(
    driver,
    "the add tool's card to be ok",
    () => {
      const cards = document.querySelectorAll(".tool-card[data-tool=add]");
      const card = cards[cards.length - 1];
      if (card?.getAttribute("data-state") !== "ok") return null;
      return {
        args: card.querySelector("[data-testid=tool-args]")?.textContent ?? "",
        result: card.querySelector("[data-testid=tool-result]")?.textContent ?? "",
      };
    },
    null,
    pace.model,
  );
  const args = JSON.parse(card.args) as { a: number; b: number };
  if (!card.result.includes(`"sum": ${args.a + args.b}`))
    throw new Error(`add's result ${card.result} is not the sum of ${card.args}`);
  await until(
    driver,
    "the run's receipt line",
    () =>
      /(answered|failed_closed).* · receipt #\d+/.test(
        [...document.querySelectorAll(".entry .receipt-line")].pop()?.textContent ?? "",
      ),
    null,
    pace.model,
  );
}

async function scriptedPart(driver: Driver, pace: Pace, log: (step: string) => void): Promise<void> {
  await untilText(driver, "#tools-status", "Inspected tools.py: 5 tool(s)", pace.boot);
  const advice = await evaluate(
    driver,
    () =>
      `${document.querySelector("#gpu-status")?.textContent} ${document.querySelector("#gpu-explain")?.textContent}`,
    null,
  );
  if (CHROME_WORDS.test(advice)) throw new Error(`Chrome advice in ${driver.name}: ${advice}`);
  log("inspected; WebGPU advice fits the browser");

  await driver.click("#tab-try");
  await fill(driver, "#try-tool-select", "fee_quote");
  await fill(driver, "#try-form input[data-field=amount]", "250");
  await driver.click("#try-run");
  await untilText(driver, "[data-testid=try-outcome]", "ok", pace.boot);
  const result = await evaluate(
    driver,
    () => JSON.parse(document.querySelector("#try-result")?.textContent ?? "{}") as unknown,
    null,
  );
  expectEqual(result, { amount: 250, tier: "basic", rate: 0.003, fee: 0.75 }, "fee_quote's result");
  await untilText(driver, "#try-output", "runner secret (HMAC) verified: yes");
  log("tried fee_quote in the sandboxed runner");

  await driver.click("#tab-chat");
  await fill(
    driver,
    "#script",
    JSON.stringify([
      { tool_name: "fee_quote", arguments: { amount: 250 } },
      "The fee for 250 is {{tool_result.fee}} EUR.",
    ]),
  );
  await send(driver, "What is the fee for 250?");
  await until(
    driver,
    "the fee_quote card",
    () => document.querySelector(".tool-card[data-tool=fee_quote]")?.getAttribute("data-state") === "ok",
    null,
    pace.boot,
  );
  await untilText(driver, ".entry.answer .text", "The fee for 250 is 0.75 EUR.");
  log("scripted chat called a tool and answered");

  await fill(driver, "#script", JSON.stringify([{ tool_name: "submit_order", arguments: { draft_id: "D-KB-42-3X" } }]));
  await send(driver, "Submit my draft D-KB-42-3X.");
  await untilText(driver, ".confirm-card [data-testid=pending-args]", '"draft_id": "D-KB-42-3X"', pace.boot);
  await driver.click(".confirm-card button[data-action=confirm]");
  await untilText(driver, ".confirm-card [data-testid=confirm-result]", '"order_id": "O-KB-42-3X"', pace.boot);
  await until(
    driver,
    "Confirm to be disabled after one confirmation",
    () =>
      (document.querySelector(".confirm-card button[data-action=confirm]") as HTMLButtonElement | null)?.disabled ===
      true,
    null,
  );
  log("commit confirmed once");

  await driver.reload();
  await bootPlayground(driver, pace);
  await driver.click("#tab-receipts");
  await untilText(driver, "#receipts-table", "pending_confirmation (tool_confirmation_required)");
  await untilText(driver, "#receipts-table", "confirm");
  await driver.click("#receipts-verify");
  await untilText(driver, "#receipts-verdict", /chain OK — [4-9] receipt\(s\)/);
  log("receipts still there after a reload, chain verified");
  await driver.click("#tab-chat");
}

async function llamaPart(
  driver: Driver,
  pace: Pace,
  log: (step: string) => void,
  servers: { close(): Promise<void> }[],
  modelUrl: (p: string) => string,
  modelFile: string,
): Promise<void> {
  await driver.chooseFile("#file-input", workFile("tools.py", ADD_TOOLS));
  await untilText(driver, "#tools-status", "Inspected tools.py: 1 tool(s)", pace.boot);

  // Cancel ends a load whose download stalls (nothing waits on a prompt, nothing hangs).
  await fill(driver, "#llama-url", modelUrl("/stall.gguf"));
  await driver.click("#llama-url-load");
  await untilText(driver, "#engine-status", "Downloading", pace.model);
  await driver.click("#cancel-load");
  await untilText(driver, "#engine-status", /Could not load .*stall\.gguf.*(abort|cancel|stopp)/i);
  log("Cancel stopped a stalled download");

  await loadModel(driver, pace, { url: modelUrl("/model.gguf") });
  const keep = await untilText(driver, "#llama-status", /stored models|keep stored models/);
  await untilText(driver, "#stored-models summary", /Stored models: 1 \(0\.5 MB\)/);
  log(`model from a URL loaded and stored (${keep.trim()})`);
  await askAdd(driver, pace);
  log("the model called add through the loop");

  // The network goes away (servers closed): the service worker serves the app, the store the model.
  for (const s of servers) await s.close();
  await driver.reload();
  await bootPlayground(driver, pace);
  await expectIsolated(driver);
  await driver.chooseFile("#file-input", workFile("tools.py", ADD_TOOLS));
  await untilText(driver, "#tools-status", "Inspected tools.py: 1 tool(s)", pace.boot);
  await loadModel(driver, pace, { url: modelUrl("/model.gguf") });
  await askAdd(driver, pace);
  log("offline reload: the stored model answered");

  await loadModel(driver, pace, { file: modelFile });
  await askAdd(driver, pace);
  log("the model from a file answered");

  await evaluate(driver, () => ((document.querySelector("#stored-models") as HTMLDetailsElement).open = true), null);
  await driver.click("#stored-models li button");
  await untilText(driver, "#stored-models summary", "Stored models: 0");
  log("Delete removed the stored model");
}

const playground: Journey = {
  name: "playground: inspect, try a tool, scripted chat, confirm, receipts after reload; llama.cpp from a URL, offline, from a file",
  async run(driver, pace, log) {
    const model = buildTestModel();
    const app = await startAppServer(driver, 30 * 60_000);
    const models = await startModelServer(model);
    try {
      await driver.goto(app.url("/"));
      await bootPlayground(driver, pace);
      await expectIsolated(driver);
      await until(
        driver,
        "the service worker to have precached the app",
        () => document.body.dataset.offlineReady === "1",
        null,
        pace.boot,
      );
      await scriptedPart(driver, pace, log);
      await llamaPart(driver, pace, log, [app, models], (p) => models.url(p), workFile("model.gguf", model));
      await noConsoleErrors(driver);
    } finally {
      await models.close();
      await app.close();
    }
  },
};

/** In the widget's shadow root: a question typed and sent, as a visitor does — once the send
 *  button is back (while a run ends, the widget shows Stop in its place; seen in Firefox). */
async function widgetAsk(driver: Driver, text: string): Promise<void> {
  await until(
    driver,
    `the send button, to ask ${JSON.stringify(text)}`,
    (text) => {
      const root = document.querySelector("edge-chat")!.shadowRoot!;
      const send = root.querySelector("button[type=submit]") as HTMLButtonElement | null;
      if (!send || send.disabled) return false;
      const input = root.querySelector("input[part=input]") as HTMLInputElement;
      input.focus();
      input.value = text;
      input.dispatchEvent(new Event("input", { bubbles: true }));
      send.click();
      return true;
    },
    text,
  );
}

function widgetText(driver: Driver, what: string, needle: string, timeoutMs?: number): Promise<string> {
  return until(
    driver,
    what,
    (needle) => ((document.querySelector("edge-chat")?.shadowRoot?.textContent ?? "").includes(needle) ? needle : ""),
    needle,
    timeoutMs,
  );
}

async function widgetClick(driver: Driver, what: string, text: string): Promise<void> {
  await until(
    driver,
    what,
    (text) => {
      const button = [...(document.querySelector("edge-chat")?.shadowRoot?.querySelectorAll("button") ?? [])].find(
        (b) => b.textContent?.trim() === text,
      );
      button?.click();
      return Boolean(button);
    },
    text,
  );
}

/** The widget's `n`-th add tool card (1-based, in this page) is ok, and its run has ended: with
 *  an answer (random weights: any text), never with a failed model turn — except the one failure
 *  random weights cause and the widget names: bytes that are not valid UTF-8, which wllama 3.13
 *  cannot stream (src/engines/llamacpp/browser/worker-errors.ts; seen in Firefox). */
async function widgetAddOk(driver: Driver, what: string, n: number, pace: Pace): Promise<void> {
  // The card, or a run that ended without it (then said at once, with what the widget showed;
  // only for a page's first card: before a later one the status may still be the last run's).
  const seen = await until(
    driver,
    what,
    (n) => {
      const root = document.querySelector("edge-chat")!.shadowRoot!;
      if (root.querySelectorAll('article[aria-label="Tool call add"]')[n - 1]?.querySelector(".status.ok")) return "ok";
      const status = root.querySelector("[role=status]")?.textContent ?? "";
      return n === 1 && /^Failed/.test(status)
        ? `${status} — the widget showed: ${(root.textContent ?? "").replace(/\s+/g, " ").slice(-600)}`
        : "";
    },
    n,
    pace.model,
  );
  if (seen !== "ok") throw new Error(`${what}: the run ended without it: ${seen}`);
  const status = await until(
    driver,
    `${what}: the run to end`,
    () =>
      /^(Answered|Failed)/.exec(
        document.querySelector("edge-chat")!.shadowRoot!.querySelector("[role=status]")?.textContent ?? "",
      )?.input ?? "",
    null,
    pace.model,
  );
  if (status.startsWith("Answered")) return;
  const shown = await evaluate(driver, () => document.querySelector("edge-chat")!.shadowRoot!.textContent ?? "", null);
  if (
    status.startsWith("Failed: generation_failed") &&
    shown.includes("The model produced bytes that are not valid UTF-8")
  )
    return;
  throw new Error(`${what}: the run after the tool call ended with "${status}"`);
}

/** The visitor picks the generated model as a file: ready with its sha256, then a tool call. */
async function widgetModelFile(driver: Driver, pace: Pace, file: string, sha: string): Promise<void> {
  const label = await evaluate(
    driver,
    () => {
      const input = document
        .querySelector("edge-chat")!
        .shadowRoot!.querySelector("input[part=model-file-input]") as HTMLInputElement | null;
      return input?.labels?.[0]?.textContent ?? "";
    },
    null,
  );
  expectEqual(label, "Use a GGUF model file from this device", "the model file input's label");
  await driver.chooseFile("input[part=model-file-input]", file, "edge-chat");
  // Loaded: its sha256 is shown. The status line says "picked.gguf (llama.cpp, CPU) is ready; ask a
  // question." at the same moment, and at once how reading the tools ahead goes (half a second on
  // this model): too short a time to be sure to see it.
  await widgetText(
    driver,
    "the picked file's sha256",
    `sha256:${sha}: read here, never uploaded, never stored.`,
    pace.model,
  );
  await widgetText(driver, "the badge of the picked file", "picked.gguf · on-device model (llama.cpp, CPU)");
  await widgetAsk(driver, "Add 2 and 3.");
  await widgetAddOk(driver, "a second add card ok, with the picked file", 2, pace);
}

const widget: Journey = {
  name: "widget: the sample page's scripted demo with a confirmed commit; the generated model from a URL (engine auto), stored, and from a file",
  async run(driver, pace, log) {
    const model = buildTestModel();
    const sites = await startWidgetSites({
      widgetDir: ensureWidgetBuild(),
      lifetimeMs: 30 * 60_000,
      headScript: driver.pageScript,
    });
    const docs = await startStaticServer({ lifetimeMs: 30 * 60_000, headScript: driver.pageScript });
    const models = await startModelServer(model);
    try {
      await driver.goto(sites.docs.url("/widget.html"));
      await widgetText(driver, "the CPU notice", "runs on this device's CPU (llama.cpp)", pace.boot);
      const notice = await evaluate(
        driver,
        () => document.querySelector("edge-chat")!.shadowRoot!.querySelector("[part=notice]")?.textContent ?? "",
        null,
      );
      if (CHROME_WORDS.test(notice)) throw new Error(`Chrome advice in the widget: ${notice}`);
      await widgetClick(driver, "the scripted demo button", "Use the Scripted demo (no model)");
      await widgetAsk(driver, "Where is order A-1001?");
      await widgetText(
        driver,
        "the scripted answer",
        "Order A-1001 has shipped with DHL: 2 items, 129.90 in total.",
        pace.boot,
      );
      await until(
        driver,
        "the order_status card ok",
        () =>
          document
            .querySelector("edge-chat")!
            .shadowRoot!.querySelector('article[aria-label="Tool call order_status"] .status.ok') !== null,
        null,
      );
      await widgetAsk(driver, "Submit draft D-SKU-7-1");
      await widgetText(driver, "the confirmation card", "Confirm submit_order?", pace.boot);
      await widgetClick(driver, "Confirm", "Confirm");
      await widgetText(driver, "the commit's result", '"order_id": "O-SKU-7-1"', pace.boot);
      log("scripted widget: a tool call, then a confirmed commit");

      docs.route("/tools.py", ADD_TOOLS);
      docs.route(
        "/page.html",
        docsPage({
          widgetUrl: sites.assets.url("/edge-chat.js"),
          attrs: `tools-src="./tools.py" model="${models.url("/model.gguf")}" tool-choice="required"`,
        }),
      );
      await driver.goto(docs.url("/page.html"));
      await widgetText(driver, "the model's badge", "model.gguf · on-device model (llama.cpp, CPU)", pace.boot);
      // Stored here (OPFS in Firefox, IndexedDB in WebKit): said so, and no offline promise (the
      // page and its tools file come from the site).
      await widgetText(
        driver,
        "what storing the model means here",
        "once; later visits use the stored copy.",
        pace.boot,
      );
      const words = await evaluate(
        driver,
        () => document.querySelector("edge-chat")!.shadowRoot!.textContent ?? "",
        null,
      );
      if (/offline/i.test(words))
        throw new Error(`the widget promises offline use in ${driver.name}: ${words.replace(/\s+/g, " ")}`);
      await widgetAsk(driver, "Add 2 and 3.");
      await widgetAddOk(driver, "the add card ok", 1, pace);
      expectEqual(models.hits("/model.gguf"), 1, "model downloads");
      log("widget: the model from a URL called add");
      await driver.reload();
      await widgetText(
        driver,
        "the model's badge after the reload",
        "model.gguf · on-device model (llama.cpp, CPU)",
        pace.boot,
      );
      await widgetAsk(driver, "Add 2 and 3.");
      await widgetAddOk(driver, "the add card ok again", 1, pace);
      expectEqual(models.hits("/model.gguf"), 1, "model downloads after a reload");
      log("widget: after a reload the stored model answered without a download");
      await widgetModelFile(
        driver,
        pace,
        workFile("picked.gguf", model),
        createHash("sha256").update(model).digest("hex"),
      );
      expectEqual(models.hits("/model.gguf"), 1, "model downloads with a picked file");
      log("widget: the model from a file the visitor picked called add");
      await noConsoleErrors(driver);
    } finally {
      await models.close();
      await docs.close();
      await sites.close();
    }
  },
};

/** A page that makes each kind of console error once (and says when it is done). */
const PROBE_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>probe</title></head><body><script>
console.error("probe console.error");
Promise.reject(new Error("probe rejection"));
setTimeout(() => { throw new Error("probe uncaught"); });
const worker = new Worker(URL.createObjectURL(new Blob(['throw new Error("probe worker uncaught")'], { type: "text/javascript" })));
worker.addEventListener("error", () => setTimeout(() => (document.body.dataset.done = "1"), 50));
</script></body></html>`;

const PROBES = ["probe console.error", "probe rejection", "probe uncaught", "probe worker uncaught"];

/** The check the other journeys end with can fail: a probe page's errors are seen, on two pages. */
const consoleProbe: Journey = {
  name: "console: the driver sees a page's console errors (a probe page makes each kind, twice)",
  async run(driver, _pace, log) {
    const site = await startStaticServer({ headScript: driver.pageScript });
    site.route("/probe.html", { body: PROBE_PAGE, type: "text/html; charset=utf-8" });
    try {
      for (const visit of ["first", "second"]) {
        await driver.goto(site.url(`/probe.html?${visit}`));
        await until(driver, "the probe page to be done", () => document.body.dataset.done === "1", null);
      }
      const errors = await driver.errors();
      const missing = PROBES.filter((p) => errors.filter((e) => e.includes(p)).length < 2);
      if (missing.length)
        throw new Error(`${driver.name}: not seen twice: ${missing.join(", ")}; seen:\n  ${errors.join("\n  ")}`);
      log(`saw ${errors.length} console errors, each probe twice`);
    } finally {
      await site.close();
    }
  },
};

/** In the order run.ts queues them: the console probe first, then the real-weight journey (the
 *  longest by far, so the others fill the other lane meanwhile); the load loop (Firefox only) last. */
export const JOURNEYS: Journey[] = [
  consoleProbe,
  realModelJourney,
  playground,
  widget,
  pypiPlaygroundJourney,
  pypiWidgetJourney,
  loadLoopJourney,
];
