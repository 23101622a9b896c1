// The Edge playground: a tools.py editor, what inspect found, "try a tool", a chat through the
// real tool loop, receipts, imprints and local facts — all in this page, tools running in a
// sandboxed Pyodide runner. With `?debug` the page also exposes window.__edge (see debug.ts).
import "./app.css";
import { EdgeError } from "../contract/errors.ts";
import { browserPackages } from "../packages/browser.ts";
import { createBrowserEdge } from "../assembly/browser.ts";
import type { BrowserRunnerHost } from "../runner/browser/index.ts";
import { App } from "./app.ts";
import { mountChatPanel } from "./chat-panel.ts";
import { installDebugHook } from "./debug.ts";
import { byId, setStatus } from "./dom.ts";
import { loadToolsEditor, type ToolsEditor } from "./editor.ts";
import { mountEnginePanel, type EnginePanel } from "./engine-panel.ts";
import { setupServiceWorker } from "./pwa.ts";
import { mountReceiptsPanel } from "./receipts-panel.ts";
import { PlaygroundScript } from "./scripted.ts";
import { EXAMPLE_URL, mountSourceControls } from "./source-controls.ts";
import { mountTabs } from "./tabs.ts";
import { mountToolsPanel, type ToolsPanel } from "./tools-panel.ts";
import { mountTryTool } from "./try-tool.ts";

async function main(): Promise<void> {
  const t0 = performance.now();
  const toolsStatus = byId("tools-status-boot");
  setupServiceWorker();
  const { host, editor, app } = await boot();
  const script = new PlaygroundScript();
  const { engine, tools } = mountPanels(app, script);
  toolsStatus.remove();
  // Source controls: file name, open, example, inspect; drag and drop onto the editor.
  mountSourceControls(app, editor, tools);

  // First run: inspect the example, then freeze it into the first session.
  await engine.ready;
  await tools.inspect();
  if (app.report?.ok) await tools.freeze();
  document.body.dataset.ready = "1";
  byId("boot-time").textContent =
    `Ready in ${Math.round(performance.now() - t0)} ms (runner sandbox ${Math.round(host.timings.frameMs)} ms, first discovery ${Math.round(app.reportMs)} ms).`;
}

/** Start the sandboxed runner (fetches Pyodide, compiles it in the frame) while the example loads
 *  into the editor and the stores open; then the app over all of them. */
async function boot(): Promise<{ host: BrowserRunnerHost; editor: ToolsEditor; app: App }> {
  // The browser's composition root: the playground's records in IndexedDB (a closed database is
  // shown: data-db-closed), expired pending actions purged, the sandboxed runner.
  const edge = createBrowserEdge({ onDbClose: () => void (document.body.dataset.dbClosed = "1") });
  const hostPromise = edge.runnerHost();
  const exampleText = fetch(EXAMPLE_URL).then((r) => {
    if (!r.ok) {
      throw new EdgeError(
        "tools_file_unreadable",
        { file: EXAMPLE_URL, status: r.status },
        `could not load ${EXAMPLE_URL}: HTTP ${r.status}. The example tools file is not served with this build; reload the page, or deploy the playground with its examples/ folder.`,
      );
    }
    return r.text();
  });
  const storesPromise = App.openStores(edge);
  const editor = await loadToolsEditor(byId("editor"), await exampleText, "tools.py (Python)");
  const host = await hostPromise;
  installDebugHook(host);
  const stores = await storesPromise;
  // Python packages: Pyodide's own lock and CDN, or a self-hosted set the address names
  // (?package-lock=URL of its pyodide-lock.json, ?package-source=URL of the folder of its wheels);
  // declared dependencies are locked against PyPI, or the index ?package-index=URL names.
  const params = new URLSearchParams(location.search);
  const packages = browserPackages({
    ownLock: host.sandbox.lockFileContents,
    ...(params.get("package-lock") ? { lockUrl: params.get("package-lock")! } : {}),
    ...(params.get("package-source") ? { sourceUrl: params.get("package-source")! } : {}),
    ...(params.get("package-index") ? { indexUrl: params.get("package-index")! } : {}),
  });
  return { host, editor, app: new App(edge, host, stores, editor, packages) };
}

/** The tabs and every panel: receipts, engine, tools, try a tool and chat now; imprints, facts and
 *  the workspace when their tab is first opened. */
function mountPanels(app: App, script: PlaygroundScript): { engine: EnginePanel; tools: ToolsPanel } {
  // The imprints and facts panels (and their code) load when their tab is first opened.
  const lazyPanels: Record<string, () => Promise<void>> = {
    "tab-imprints": async () => (await import("./imprints-panel.ts")).mountImprintsPanel(app, byId("panel-imprints")),
    "tab-facts": async () => (await import("./facts-panel.ts")).mountFactsPanel(app, byId("panel-facts")),
    "tab-workspace": async () =>
      (await import("./workspace-panel.ts")).mountWorkspacePanel(app, byId("panel-workspace")),
  };
  const tabs = mountTabs(byId("tablist"), (id) => {
    const mount = lazyPanels[id];
    if (!mount) return;
    delete lazyPanels[id];
    mount().catch((err: unknown) =>
      setStatus(byId(id.replace("tab-", "panel-")), `Could not load this panel: ${String(err)}`, "error"),
    );
  });
  const receipts = mountReceiptsPanel(app, byId("panel-receipts"));
  const openReceipt = (id: string): void => {
    tabs.select("tab-receipts");
    void receipts.show(id);
  };
  const engine = mountEnginePanel(app, script, byId("engine-panel"));
  const tools = mountToolsPanel(app, byId("tools-panel"));
  mountTryTool(app, byId("panel-try"), openReceipt);
  mountChatPanel(app, script, byId("panel-chat"), openReceipt);
  return { engine, tools };
}

window.__edgeReady = main().catch((err: unknown) => {
  const node = document.getElementById("tools-status-boot") ?? document.getElementById("tools-status");
  if (node)
    setStatus(node, `The playground could not start: ${err instanceof Error ? err.message : String(err)}`, "error");
  document.body.dataset.ready = "error";
  console.error(err);
});
