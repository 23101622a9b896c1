// The tools project beside the editor: "Open folder…" (<input webkitdirectory>) and
// "Open zip…" make the picked files the source, and the list shows every mounted file (and what was
// skipped); choosing one puts it in the editor, where a text file can be edited — the edit goes into
// the project held in this page, so the next call of a frozen session refuses it (tools_file_changed,
// naming the file) and the next Inspect starts a new session with it.
import { toErrorJson } from "../contract/errors.ts";
import type { App } from "./app.ts";
import { byId, bytes as fmtBytes, errorText, h, replace, setStatus } from "./dom.ts";
import type { PickedProject } from "../toolset/project-archive.ts";
import { textOf } from "./source.ts";
import { itemsFromDrop, itemsFromInput } from "./workspace-upload.ts";

export interface ProjectFilesHooks {
  /** Put text in the editor without it counting as an edit. */
  showText(text: string, readOnly: boolean): void;
  /** A project was picked: show its tools file, inspect and freeze it. */
  loaded(project: PickedProject): Promise<void>;
}

export function mountProjectFiles(
  app: App,
  nav: HTMLElement,
  hooks: ProjectFilesHooks,
): { render(): void; dropped(data: DataTransfer): boolean } {
  const folderInput = byId<HTMLInputElement>("folder-input");
  const zipInput = byId<HTMLInputElement>("zip-input");
  const fail = (err: unknown): void =>
    setStatus(byId("tools-status"), `Could not open the project: ${errorText(toErrorJson(err))}`, "error");

  byId("open-folder").addEventListener("click", () => folderInput.click());
  byId("open-zip").addEventListener("click", () => zipInput.click());
  folderInput.addEventListener("change", async () => {
    const items = itemsFromInput(folderInput.files);
    folderInput.value = "";
    if (!items.length) return;
    try {
      const { projectFromItems } = await import("./project-upload.ts");
      await hooks.loaded(await projectFromItems(items));
    } catch (err) {
      fail(err);
    }
  });
  zipInput.addEventListener("change", async () => {
    const file = zipInput.files?.[0];
    zipInput.value = "";
    if (!file) return;
    try {
      const { projectFromZip } = await import("./project-upload.ts");
      await hooks.loaded(projectFromZip(file.name, new Uint8Array(await file.arrayBuffer())));
    } catch (err) {
      fail(err);
    }
  });

  /** A folder dropped on the editor is a project too (entries must be taken during the drop event). */
  function dropped(data: DataTransfer): boolean {
    const first = data.items[0]?.webkitGetAsEntry?.();
    if (!first?.isDirectory) return false;
    const items = itemsFromDrop(data);
    void (async () => {
      try {
        const { projectFromItems } = await import("./project-upload.ts");
        await hooks.loaded(await projectFromItems(await items));
      } catch (err) {
        fail(err);
      }
    })();
    return true;
  }

  /** Show a file of the project in the editor ("source" re-renders the file name, the note and this list). */
  function open(path: string): void {
    const m = app.sourceMode;
    const data = m.kind === "project" ? m.project.files[path] : undefined;
    if (!data) return;
    const text = textOf(data);
    hooks.showText(
      text ?? `# ${path} is not text (${fmtBytes(data.byteLength)}); it is mounted as it is at /tools/${path}.\n`,
      text === null,
    );
    app.openProjectFile(path);
  }

  function render(): void {
    const m = app.sourceMode;
    nav.hidden = m.kind !== "project";
    if (m.kind !== "project") return replace(nav);
    const { files, entry, skipped } = m.project;
    const items = Object.keys(files)
      .sort()
      .map((path) =>
        h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: `link project-file${path === m.open ? " open" : ""}`,
              "data-path": path,
              ...(path === m.open ? { "aria-current": "true" } : {}),
              onclick: () => open(path),
            },
            path,
          ),
          path === entry ? h("span", { class: "badge", title: "The tools file" }, "tools") : null,
          h("span", { class: "muted small" }, ` ${fmtBytes(files[path]!.byteLength)}`),
        ),
      );
    const skippedNote = skipped.length
      ? h(
          "p",
          { class: "muted small", id: "project-skipped" },
          `Not mounted: ${skipped.map((s) => `${s.path} (${s.reason})`).join(", ")}.`,
        )
      : null;
    replace(nav, h("ul", { class: "project-file-list" }, ...items), skippedNote);
  }

  return { render, dropped };
}
