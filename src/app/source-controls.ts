// The playground's source controls, around the tools.py editor: the file name and its note, Open (a
// file from disk, through the File System Access API where there is one), the example, Inspect,
// Reload and Detach for a file on disk, the tools project's file list, and dropping a file or a
// project onto the editor (Ctrl/Cmd+Enter there inspects). main.ts mounts them once the panels are
// up; what inspecting and freezing do is the tools panel's.
import { toErrorJson } from "../contract/errors.ts";
import type { App } from "./app.ts";
import { byId, errorText, setStatus } from "./dom.ts";
import type { ToolsEditor } from "./editor.ts";
import { mountProjectFiles } from "./project-files.ts";
import { handleFromDrop, hasFileSystemAccess, pickPythonFileHandle, type FileHandleLike } from "./source.ts";
import type { ToolsPanel } from "./tools-panel.ts";

export const EXAMPLE_URL = "/examples/tools.py";

type Source = ReturnType<typeof sourceLoader>;

export function mountSourceControls(app: App, editor: ToolsEditor, tools: ToolsPanel): void {
  const source = sourceLoader(app, editor, tools);
  wireOpenButtons(app, editor, tools, source);
  wireDiskFile(app, editor, tools, source);
  wireEditorPane(tools, source);
  source.show();
}

/** What the source is and how a new one is loaded: shown, inspected and frozen. `writes.applying`
 *  is true while the controls themselves put text in the editor, so that it is not an edit. */
function sourceLoader(app: App, editor: ToolsEditor, tools: ToolsPanel) {
  const fileName = byId("file-name");
  const sourceNote = byId("source-note");
  const reloadDisk = byId<HTMLButtonElement>("reload-disk");
  const detachDisk = byId<HTMLButtonElement>("detach-disk");
  const writes = { applying: false };
  const show = (): void => {
    const m = app.sourceMode;
    fileName.textContent =
      m.kind === "disk" ? m.handle.name : m.kind === "project" ? `${m.project.name}/${m.open}` : m.name;
    reloadDisk.hidden = detachDisk.hidden = m.kind !== "disk";
    sourceNote.textContent =
      m.kind === "disk"
        ? "The file on disk is the source: every call re-reads it. Edit it in your own editor, then press Inspect, or just send your next message: a new session starts with the edited file (a turn already running never switches files)."
        : m.kind === "project"
          ? `A tools project held in this page: ${Object.keys(m.project.files).length} files, mounted read-only at /tools for every call (the working directory, on sys.path). Edit any text file here, then press Inspect, or just send your next message: a new session starts with the edited files (a turn already running never switches files).`
          : "The editor's text is the source. After an edit, press Inspect, or just send your next message: a new session starts with the edited file (a turn already running never switches files).";
    projectFiles.render();
  };
  const showText = (text: string, readOnly: boolean): void => {
    writes.applying = true;
    editor.setText(text);
    editor.setReadOnly(readOnly);
    writes.applying = false;
  };
  const projectFiles = mountProjectFiles(app, byId("project-files"), {
    showText,
    loaded: async (project) => {
      app.setSourceMode({ kind: "project", project, open: project.entry });
      editor.setReadOnly(false);
      await loadText(new TextDecoder().decode(project.files[project.entry]), `${project.name}/${project.entry}`);
    },
  });
  // A new source, another open file, an edit after a freeze, or a file put into the project by
  // another panel (the pylock.toml "Lock dependencies" wrote).
  app.on((change) => {
    if (change === "source") show();
  });
  editor.onChange(() => {
    if (!writes.applying) app.editSource(editor.getText());
  });
  const loadText = async (text: string, name: string): Promise<void> => {
    writes.applying = true;
    editor.setText(text);
    writes.applying = false;
    app.markSourceChanged();
    fileName.textContent = name;
    await tools.inspect({ renew: false });
    await tools.freeze();
  };
  const useHandle = async (handle: FileHandleLike): Promise<void> => {
    app.setSourceMode({ kind: "disk", handle });
    editor.setReadOnly(true);
    const file = await handle.getFile();
    await loadText(await file.text(), handle.name);
  };
  const useFile = async (file: File): Promise<void> => {
    app.setSourceMode({ kind: "buffer", name: file.name });
    editor.setReadOnly(false);
    await loadText(await file.text(), file.name);
  };
  return { writes, show, loadText, useHandle, useFile, projectFiles, reloadDisk, detachDisk };
}

/** Open (a handle where the browser gives one, else the file input), the example and Inspect. */
function wireOpenButtons(app: App, editor: ToolsEditor, tools: ToolsPanel, source: Source): void {
  byId("open-file").addEventListener("click", async () => {
    try {
      if (hasFileSystemAccess()) {
        const handle = await pickPythonFileHandle();
        if (handle) await source.useHandle(handle);
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
    if (file) void source.useFile(file);
  });
  byId("load-example").addEventListener("click", async () => {
    app.setSourceMode({ kind: "buffer", name: "tools.py" });
    editor.setReadOnly(false);
    await source.loadText(await (await fetch(EXAMPLE_URL)).text(), "tools.py");
  });
  byId("inspect").addEventListener("click", () => void tools.inspect());
}

/** A file on disk as the source: Reload, Detach (its text stays, as an editable buffer), and a
 *  look at the file whenever the window regains focus. */
function wireDiskFile(app: App, editor: ToolsEditor, tools: ToolsPanel, source: Source): void {
  const { writes } = source;
  source.reloadDisk.addEventListener("click", async () => {
    if (app.sourceMode.kind !== "disk") return;
    writes.applying = true;
    editor.setText(await (await app.sourceMode.handle.getFile()).text());
    writes.applying = false;
    await tools.inspect();
  });
  source.detachDisk.addEventListener("click", () => {
    const m = app.sourceMode;
    if (m.kind !== "disk") return;
    app.setSourceMode({ kind: "buffer", name: m.handle.name });
    editor.setReadOnly(false);
  });
  // Picking a file from disk: when the window regains focus, show what the file holds now.
  window.addEventListener("focus", async () => {
    const m = app.sourceMode;
    if (m.kind !== "disk") return;
    const text = await (await m.handle.getFile()).text().catch(() => null);
    if (text === null || text === editor.getText()) return;
    writes.applying = true;
    editor.setText(text);
    writes.applying = false;
    if (app.current?.toolset) app.markSourceChanged();
  });
}

/** Dropping a file (or a project folder) onto the editor; Ctrl/Cmd+Enter in it inspects. */
function wireEditorPane(tools: ToolsPanel, source: Source): void {
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
    if (ev.dataTransfer && source.projectFiles.dropped(ev.dataTransfer)) return;
    const item = ev.dataTransfer?.items[0];
    const file = ev.dataTransfer?.files[0];
    const handle = item ? await handleFromDrop(item) : null;
    if (handle) await source.useHandle(handle);
    else if (file) await source.useFile(file);
  });
  document.addEventListener("keydown", (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && ev.key === "Enter" && editorPane.contains(document.activeElement)) {
      ev.preventDefault();
      void tools.inspect();
    }
  });
}
