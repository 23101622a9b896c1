// The Edge playground: a tools.py editor, what inspect found, "try a tool", a chat through the
// real tool loop, receipts, imprints and local facts — all in this page, tools running in a
// sandboxed Pyodide runner. With `?debug` the page also exposes window.__edge (see debug.ts).
import "./app.css";
import { toErrorJson } from "../contract/errors.ts";
import { browserPackages } from "../packages/browser.ts";
import { createBrowserRunnerHost } from "../runner/browser/index.ts";
import { App } from "./app.ts";
import { mountChatPanel } from "./chat-panel.ts";
import { installDebugHook } from "./debug.ts";
import { byId, errorText, setStatus } from "./dom.ts";
import { loadToolsEditor } from "./editor.ts";
import { mountEnginePanel } from "./engine-panel.ts";
import { mountProjectFiles } from "./project-files.ts";
import { setupServiceWorker } from "./pwa.ts";
import { mountReceiptsPanel } from "./receipts-panel.ts";
import { PlaygroundScript } from "./scripted.ts";
import { handleFromDrop, hasFileSystemAccess, pickPythonFileHandle, type FileHandleLike } from "./source.ts";
import { mountTabs } from "./tabs.ts";
import { mountToolsPanel } from "./tools-panel.ts";
import { mountTryTool } from "./try-tool.ts";

const EXAMPLE_URL = "/examples/tools.py";

async function main(): Promise<void> {
  const t0 = performance.now();
  const toolsStatus = byId("tools-status-boot");
  setupServiceWorker();

  // Start the sandboxed runner (fetches Pyodide, compiles it in the frame) while the example loads.
  const hostPromise = createBrowserRunnerHost();
  const exampleText = fetch(EXAMPLE_URL).then((r) => {
    if (!r.ok) throw new Error(`could not load ${EXAMPLE_URL}: HTTP ${r.status}`);
    return r.text();
  });
  const storesPromise = App.openStores();
  const editor = await loadToolsEditor(byId("editor"), await exampleText, "tools.py (Python)");
  const host = await hostPromise;
  installDebugHook(host);
  const stores = await storesPromise;
  // Python packages: Pyodide's own lock and CDN, or a self-hosted set the address names
  // (?package-lock=URL of its pyodide-lock.json, ?package-source=URL of the folder of its wheels).
  const params = new URLSearchParams(location.search);
  const packages = browserPackages({
    ownLock: host.sandbox.lockFileContents,
    ...(params.get("package-lock") ? { lockUrl: params.get("package-lock")! } : {}),
    ...(params.get("package-source") ? { sourceUrl: params.get("package-source")! } : {}),
  });
  const app = new App(host, stores, editor, packages);
  const script = new PlaygroundScript();

  // The imprints and facts panels (and their code) load when their tab is first opened.
  const lazyPanels: Record<string, () => Promise<void>> = {
    "tab-imprints": async () => (await import("./imprints-panel.ts")).mountImprintsPanel(app, byId("panel-imprints")),
    "tab-facts": async () => (await import("./facts-panel.ts")).mountFactsPanel(app, byId("panel-facts")),
    "tab-workspace": async () => (await import("./workspace-panel.ts")).mountWorkspacePanel(app, byId("panel-workspace")),
  };
  const tabs = mountTabs(byId("tablist"), (id) => {
    const mount = lazyPanels[id];
    if (!mount) return;
    delete lazyPanels[id];
    mount().catch((err: unknown) => setStatus(byId(id.replace("tab-", "panel-")), `Could not load this panel: ${String(err)}`, "error"));
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
  toolsStatus.remove();

  // Source controls: file name, open, example, inspect; drag and drop onto the editor.
  const fileName = byId("file-name");
  const sourceNote = byId("source-note");
  const reloadDisk = byId<HTMLButtonElement>("reload-disk");
  const detachDisk = byId<HTMLButtonElement>("detach-disk");
  const showSource = (): void => {
    const m = app.sourceMode;
    fileName.textContent = m.kind === "disk" ? m.handle.name : m.kind === "project" ? `${m.project.name}/${m.open}` : m.name;
    reloadDisk.hidden = detachDisk.hidden = m.kind !== "disk";
    sourceNote.textContent =
      m.kind === "disk"
        ? "The file on disk is the source: every call re-reads it. Edit it in your own editor, then press Inspect, or just send your next message: a new session starts with the edited file (a turn already running never switches files)."
        : m.kind === "project"
          ? `A tools project held in this page: ${Object.keys(m.project.files).length} files, mounted read-only at /tools for every call (the working directory, on sys.path). Edit any text file here, then press Inspect, or just send your next message: a new session starts with the edited files (a turn already running never switches files).`
          : "The editor's text is the source. After an edit, press Inspect, or just send your next message: a new session starts with the edited file (a turn already running never switches files).";
    projectFiles.render();
  };
  let applying = false;
  const showText = (text: string, readOnly: boolean): void => {
    applying = true;
    editor.setText(text);
    editor.setReadOnly(readOnly);
    applying = false;
  };
  const projectFiles = mountProjectFiles(app, byId("project-files"), {
    showText,
    switched: () => showSource(),
    loaded: async (project) => {
      app.sourceMode = { kind: "project", project, open: project.entry };
      editor.setReadOnly(false);
      await loadText(new TextDecoder().decode(project.files[project.entry]), `${project.name}/${project.entry}`);
    },
  });
  editor.onChange(() => {
    if (applying) return;
    projectFiles.editorChanged(editor.getText());
    if (app.current?.toolset && !app.sourceChanged) {
      app.sourceChanged = true;
      app.emit("source");
    }
  });
  const loadText = async (text: string, name: string): Promise<void> => {
    applying = true;
    editor.setText(text);
    applying = false;
    if (app.current?.toolset) app.sourceChanged = true;
    app.emit("source");
    showSource();
    fileName.textContent = name;
    await tools.inspect({ renew: false });
    await tools.freeze();
  };
  const useHandle = async (handle: FileHandleLike): Promise<void> => {
    app.sourceMode = { kind: "disk", handle };
    editor.setReadOnly(true);
    const file = await handle.getFile();
    await loadText(await file.text(), handle.name);
  };
  const useFile = async (file: File): Promise<void> => {
    app.sourceMode = { kind: "buffer", name: file.name };
    editor.setReadOnly(false);
    await loadText(await file.text(), file.name);
  };
  byId("open-file").addEventListener("click", async () => {
    try {
      if (hasFileSystemAccess()) {
        const handle = await pickPythonFileHandle();
        if (handle) await useHandle(handle);
        return;
      }
      byId<HTMLInputElement>("file-input").click();
    } catch (err) {
      setStatus(byId("tools-status"), errorText(toErrorJson(err)), "error");
    }
  });
  byId<HTMLInputElement>("file-input").addEventListener("change", (ev) => {
    const input = ev.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = "";
    if (file) void useFile(file);
  });
  byId("load-example").addEventListener("click", async () => {
    app.sourceMode = { kind: "buffer", name: "tools.py" };
    editor.setReadOnly(false);
    await loadText(await (await fetch(EXAMPLE_URL)).text(), "tools.py");
  });
  byId("inspect").addEventListener("click", () => void tools.inspect());
  reloadDisk.addEventListener("click", async () => {
    if (app.sourceMode.kind !== "disk") return;
    applying = true;
    editor.setText(await (await app.sourceMode.handle.getFile()).text());
    applying = false;
    await tools.inspect();
  });
  detachDisk.addEventListener("click", () => {
    const m = app.sourceMode;
    if (m.kind !== "disk") return;
    app.sourceMode = { kind: "buffer", name: m.handle.name };
    editor.setReadOnly(false);
    showSource();
  });
  // Picking a file from disk: when the window regains focus, show what the file holds now.
  window.addEventListener("focus", async () => {
    const m = app.sourceMode;
    if (m.kind !== "disk") return;
    const text = await (await m.handle.getFile()).text().catch(() => null);
    if (text === null || text === editor.getText()) return;
    applying = true;
    editor.setText(text);
    applying = false;
    if (app.current?.toolset) {
      app.sourceChanged = true;
      app.emit("source");
    }
  });
  const editorPane = byId("editor-pane");
  editorPane.addEventListener("dragover", (ev) => {
    if (!ev.dataTransfer?.types.includes("Files")) return;
    ev.preventDefault();
    editorPane.classList.add("dragging");
  });
  editorPane.addEventListener("dragleave", () => editorPane.classList.remove("dragging"));
  editorPane.addEventListener("drop", async (ev) => {
    ev.preventDefault();
    editorPane.classList.remove("dragging");
    if (ev.dataTransfer && projectFiles.dropped(ev.dataTransfer)) return;
    const item = ev.dataTransfer?.items[0];
    const file = ev.dataTransfer?.files[0];
    const handle = item ? await handleFromDrop(item) : null;
    if (handle) await useHandle(handle);
    else if (file) await useFile(file);
  });
  document.addEventListener("keydown", (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && ev.key === "Enter" && editorPane.contains(document.activeElement)) {
      ev.preventDefault();
      void tools.inspect();
    }
  });
  showSource();

  // First run: inspect the example, then freeze it into the first session.
  await engine.ready;
  await tools.inspect();
  if (app.report?.ok) await tools.freeze();
  document.body.dataset.ready = "1";
  byId("boot-time").textContent = `Ready in ${Math.round(performance.now() - t0)} ms (runner sandbox ${Math.round(host.timings.frameMs)} ms, first discovery ${Math.round(app.reportMs)} ms).`;
}

window.__edgeReady = main().catch((err: unknown) => {
  const node = document.getElementById("tools-status-boot") ?? document.getElementById("tools-status");
  if (node) setStatus(node, `The playground could not start: ${err instanceof Error ? err.message : String(err)}`, "error");
  document.body.dataset.ready = "error";
  console.error(err);
});
