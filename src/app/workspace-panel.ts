// The Workspace tab: the files of the workspace VFS (IndexedDB) — the same files the built-in
// tools and read_local Python tools see. Upload files and folders (picker or drop), import and
// export a zip, create, rename, delete, download, preview and edit; each file's size and sha256;
// the current session's goals (workspace-goals.ts); a storage meter (workspace limit and the
// browser's quota). Every change is validated whole first and written as one VFS change, so a
// refusal changes nothing.
import { EdgeError, toErrorJson } from "../contract/errors.ts";
import { sha256Bytes } from "../contract/hash.ts";
import { WORKSPACE_DIR, type EdgeVfs } from "../builtins/vfs/core.ts";
import { importPath, relativeTo } from "../builtins/workspace/import-path.ts";
import type { App } from "./app.ts";
import { bytes as fmtBytes, download, errorText, h, replace, setStatus, shortHash } from "./dom.ts";
import { renderGoals } from "./workspace-goals.ts";
import { renderPreview } from "./workspace-preview.ts";
import {
  browserStorageEstimate,
  itemsFromDrop,
  itemsFromInput,
  uploadItems,
  type UploadItem,
} from "./workspace-upload.ts";

const shaCache = new WeakMap<Uint8Array, string>();

export async function mountWorkspacePanel(app: App, root: HTMLElement): Promise<void> {
  const vfs = await app.stores.workspace();
  const ui = workspaceUi();
  replace(root, ...ui.nodes);
  let selected: string | null = null;

  const changed = (): void => app.storeChanged("workspace");
  const run = async (busy: string, action: () => Promise<string>): Promise<void> => {
    setStatus(ui.status, busy, "busy");
    try {
      setStatus(ui.status, await action(), "ok");
    } catch (err) {
      setStatus(ui.status, errorText(toErrorJson(err)), "error");
    }
    changed();
  };
  const upload = (items: UploadItem[]): Promise<void> =>
    run(`Checking ${items.length} file(s)…`, async () => `Uploaded ${(await uploadItems(vfs, items)).length} file(s).`);

  ui.filesInput.addEventListener(
    "change",
    () => void upload(itemsFromInput(ui.filesInput.files)).finally(() => (ui.filesInput.value = "")),
  );
  ui.folderInput.addEventListener(
    "change",
    () => void upload(itemsFromInput(ui.folderInput.files)).finally(() => (ui.folderInput.value = "")),
  );
  wireZip(ui, vfs, run);
  const create = (kind: "file" | "folder"): void => {
    const name = ui.nameInput.value.trim();
    void run(`Creating ${name}…`, async () => {
      const path = importPath(name);
      if (await vfs.exists(path))
        throw new EdgeError("vfs_exists", { path }, `${path} already exists; pick another name.`);
      if (kind === "folder") await vfs.mkdir(path, { recursive: true });
      else await vfs.writeBatch([{ path, data: new Uint8Array(0) }]);
      ui.nameInput.value = "";
      selected = kind === "file" ? path : selected;
      return `Created ${path}.`;
    });
  };
  ui.newFile.addEventListener("click", () => create("file"));
  ui.newFolder.addEventListener("click", () => create("folder"));
  wireDrop(ui, upload);

  const rename = (path: string): void => {
    const next = window.prompt(
      `New name for ${relativeTo(WORKSPACE_DIR, path)} (a path inside the workspace):`,
      relativeTo(WORKSPACE_DIR, path),
    );
    if (next === null || next.trim() === "") return;
    void run("Renaming…", async () => {
      const dest = importPath(next.trim());
      if (await vfs.exists(dest))
        throw new EdgeError("vfs_exists", { path: dest }, `${dest} already exists; pick another name.`);
      await vfs.mkdir(dest.slice(0, dest.lastIndexOf("/")), { recursive: true });
      await vfs.mv(path, dest);
      if (selected === path) selected = dest;
      return `Renamed to ${dest}.`;
    });
  };
  const remove = (path: string, isDir: boolean): void => {
    if (!window.confirm(`Delete ${path}${isDir ? " and everything in it" : ""}?`)) return;
    void run("Deleting…", async () => {
      await vfs.rm(path, { recursive: true });
      if (selected && (selected === path || selected.startsWith(`${path}/`))) selected = null;
      return `Deleted ${path}.`;
    });
  };

  async function refresh(): Promise<void> {
    renderTable(ui.table, vfs, selected, {
      select: (p) => {
        selected = p;
        void refresh();
      },
      rename,
      remove,
    });
    const saved = (path: string): void => {
      setStatus(ui.status, `Saved ${path}.`, "ok");
      changed();
    };
    if (selected) renderPreview(ui.preview, vfs, selected, { saved });
    else replace(ui.preview, h("p", { class: "muted" }, "Select a file to see its size, sha256 and contents."));
    await renderMeter(ui.meter, ui.meterText, vfs);
    renderGoals(ui.goals, vfs, app.current?.id ?? null);
  }
  app.on((change) => {
    if (change === "workspace" || change === "session" || change === "receipts") void refresh();
  });
  await refresh();
}

function workspaceUi() {
  const filesInput = h("input", { type: "file", id: "ws-files", multiple: true, hidden: true });
  const folderInput = h("input", {
    type: "file",
    id: "ws-folder",
    multiple: true,
    hidden: true,
    webkitdirectory: true,
  });
  const zipInput = h("input", { type: "file", id: "ws-zip", accept: ".zip,application/zip", hidden: true });
  const pick = (input: HTMLInputElement) => () => input.click();
  const exportBtn = h("button", { type: "button", id: "ws-export", class: "secondary" }, "Download all as zip");
  const nameInput = h("input", { type: "text", id: "ws-name", placeholder: "notes/todo.txt", autocomplete: "off" });
  const newFile = h("button", { type: "button", id: "ws-new-file", class: "secondary" }, "New file");
  const newFolder = h("button", { type: "button", id: "ws-new-folder", class: "secondary" }, "New folder");
  const meter = h("meter", { id: "ws-meter", min: 0, max: 1, value: 0, "aria-labelledby": "ws-meter-label" });
  const meterText = h("span", { id: "ws-meter-text" });
  const status = h("p", { id: "ws-status", class: "status", role: "status", "aria-live": "polite" });
  const table = h("table", { id: "ws-table", class: "ws-table" });
  const preview = h("section", { id: "ws-preview", class: "ws-preview", "aria-label": "Selected file" });
  const goals = h("section", { id: "ws-goals", "aria-labelledby": "ws-goals-h" });
  const drop = h(
    "div",
    { id: "ws-drop", class: "ws-drop" },
    h(
      "div",
      { class: "button-row" },
      h("button", { type: "button", id: "ws-upload", class: "primary", onclick: pick(filesInput) }, "Upload files…"),
      h(
        "button",
        { type: "button", id: "ws-upload-folder", class: "secondary", onclick: pick(folderInput) },
        "Upload a folder…",
      ),
      h(
        "button",
        { type: "button", id: "ws-import-zip", class: "secondary", onclick: pick(zipInput) },
        "Import a zip…",
      ),
      exportBtn,
    ),
    h(
      "p",
      { class: "muted small" },
      "Or drop files and folders here. Files go into /workspace, where the built-in tools and read_local Python tools see them.",
    ),
    h(
      "div",
      { class: "button-row" },
      h("label", { for: "ws-name" }, "New file or folder name"),
      nameInput,
      newFile,
      newFolder,
    ),
  );
  const nodes = [
    h("h2", {}, "Workspace"),
    h("p", { class: "ws-meter" }, h("span", { id: "ws-meter-label" }, "Storage used "), meter, " ", meterText),
    drop,
    filesInput,
    folderInput,
    zipInput,
    status,
    table,
    preview,
    goals,
  ];
  return {
    nodes,
    filesInput,
    folderInput,
    zipInput,
    exportBtn,
    nameInput,
    newFile,
    newFolder,
    meter,
    meterText,
    status,
    table,
    preview,
    goals,
    drop,
  };
}

type Ui = ReturnType<typeof workspaceUi>;
/** Runs a change with `busy` on the status line, then what it did or why it was refused. */
type Run = (busy: string, action: () => Promise<string>) => Promise<void>;

/** Import a zip into the workspace, or download the whole workspace as one. */
function wireZip(ui: Ui, vfs: EdgeVfs, run: Run): void {
  ui.zipInput.addEventListener("change", () => {
    const file = ui.zipInput.files?.[0];
    ui.zipInput.value = "";
    if (!file) return;
    void run(`Importing ${file.name}…`, async () => {
      const { importZip } = await import("../builtins/workspace/zip.ts");
      const r = await importZip(vfs, new Uint8Array(await file.arrayBuffer()));
      return `Imported ${r.files} file(s), ${fmtBytes(r.bytes)}, from ${file.name}.`;
    });
  });
  ui.exportBtn.addEventListener(
    "click",
    () =>
      void run("Zipping the workspace…", async () => {
        const { exportZip } = await import("../builtins/workspace/zip.ts");
        const zip = exportZip(vfs);
        download("workspace.zip", zip as Uint8Array<ArrayBuffer>, "application/zip");
        return `Downloaded workspace.zip (${fmtBytes(zip.byteLength)}).`;
      }),
  );
}

/** Files and folders dropped on the drop zone upload like picked ones; the zone shows a drag over it. */
function wireDrop(ui: Ui, upload: (items: UploadItem[]) => Promise<void>): void {
  ui.drop.addEventListener("dragover", (ev) => {
    if (!ev.dataTransfer?.types.includes("Files")) return;
    ev.preventDefault();
    ui.drop.classList.add("dragging");
  });
  ui.drop.addEventListener("dragleave", () => ui.drop.classList.remove("dragging"));
  ui.drop.addEventListener("drop", (ev) => {
    ev.preventDefault();
    ui.drop.classList.remove("dragging");
    if (ev.dataTransfer)
      void itemsFromDrop(ev.dataTransfer).then(upload, (err: unknown) => setStatus(ui.status, String(err), "error"));
  });
}

interface RowActions {
  select(path: string): void;
  rename(path: string): void;
  remove(path: string, isDir: boolean): void;
}

function renderTable(table: HTMLTableElement, vfs: EdgeVfs, selected: string | null, actions: RowActions): void {
  const paths = vfs
    .getAllPaths()
    .filter((p) => p.startsWith(`${WORKSPACE_DIR}/`))
    .sort();
  const rows = paths.map((path) => {
    const data = vfs.readBytesIfFile(path);
    const rel = relativeTo(WORKSPACE_DIR, path);
    const depth = rel.split("/").length - 1;
    const name = rel.slice(rel.lastIndexOf("/") + 1);
    const sha = h("code", { class: "hash" }, data ? "…" : "");
    if (data) {
      const cached = shaCache.get(data);
      if (cached) sha.textContent = shortHash(cached);
      else
        void sha256Bytes(data).then((s) => {
          shaCache.set(data, s);
          sha.textContent = shortHash(s);
          sha.title = s;
        });
    }
    const label = data ? name : `${name}/`;
    return h(
      "tr",
      { "data-path": path, class: path === selected ? "selected" : "" },
      h(
        "th",
        { scope: "row", style: `padding-left: ${0.4 + depth * 1.1}rem` },
        data
          ? h(
              "button",
              {
                type: "button",
                class: "link",
                "aria-pressed": String(path === selected),
                onclick: () => actions.select(path),
              },
              label,
            )
          : h("span", {}, label),
      ),
      h("td", {}, data ? fmtBytes(data.byteLength) : "folder"),
      h("td", {}, sha),
      h(
        "td",
        { class: "button-row" },
        h(
          "button",
          {
            type: "button",
            class: "small secondary",
            "aria-label": `Rename ${rel}`,
            onclick: () => actions.rename(path),
          },
          "Rename",
        ),
        h(
          "button",
          {
            type: "button",
            class: "small danger",
            "aria-label": `Delete ${rel}`,
            onclick: () => actions.remove(path, !data),
          },
          "Delete",
        ),
      ),
    );
  });
  replace(
    table,
    h("caption", { class: "visually-hidden" }, "Workspace files"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Name"),
        h("th", { scope: "col" }, "Size"),
        h("th", { scope: "col" }, "sha256"),
        h("th", { scope: "col" }, "Actions"),
      ),
    ),
    h(
      "tbody",
      {},
      ...(rows.length
        ? rows
        : [
            h(
              "tr",
              {},
              h(
                "td",
                { colspan: 4, class: "muted" },
                "The workspace is empty: upload files, or let a built-in tool write some.",
              ),
            ),
          ]),
    ),
  );
}

async function renderMeter(meter: HTMLMeterElement, text: HTMLElement, vfs: EdgeVfs): Promise<void> {
  const u = vfs.usage();
  meter.max = u.limits.maxTotalBytes;
  meter.value = u.bytes;
  meter.high = u.limits.maxTotalBytes * 0.9;
  const estimate = await browserStorageEstimate();
  text.textContent =
    `${fmtBytes(u.bytes)} of ${fmtBytes(u.limits.maxTotalBytes)} · ${u.entries} of ${u.limits.maxEntries} entries · at most ${fmtBytes(u.limits.maxFileBytes)} per file` +
    (estimate
      ? ` · browser storage for this site: ${fmtBytes(estimate.usage)} used of ${fmtBytes(estimate.quota)}`
      : "");
}
