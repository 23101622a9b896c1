// The <edge-chat> element's visitor files, a lit reactive controller: the files a visitor adds
// (the file input, or dropped on the widget) live in an in-memory workspace for this page visit,
// never uploaded; the built-in tools read and write them there. It keeps the list the widget shows
// and renders the files section.
import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from "lit";
import type { EdgeVfs } from "../builtins/vfs/core.ts";
import { EdgeError } from "../contract/errors.ts";
import { errorDetail, type WidgetPorts } from "./host.ts";

/** Files a visitor drops into one widget: small, in memory, gone with the page. */
const VISITOR_LIMITS = { maxTotalBytes: 16 * 1024 * 1024, maxFileBytes: 16 * 1024 * 1024, maxEntries: 2000 };

export class VisitorFiles implements ReactiveController {
  /** The files the visitor added (page lifetime). */
  private files: { path: string; bytes: number }[] = [];
  /** The current tools read the visitor's files (the core said so). */
  private accepts = false;
  private vfsPromise: Promise<EdgeVfs> | undefined;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly ports: WidgetPorts,
  ) {}

  hostDisconnected(): void {
    // Nothing to release: the files stay for the page visit, across the element leaving the page
    // and coming back (a new session reads the same workspace).
  }

  /** The files the visitor drops here live in memory for this page visit (never uploaded). */
  vfs(): Promise<EdgeVfs> {
    this.vfsPromise ??= import("../builtins/vfs/core.ts").then((m) => m.openVfs({ limits: VISITOR_LIMITS }));
    return this.vfsPromise;
  }

  /** Whether the tools use the visitor's files (shows the files section). */
  setAccepts(accepts: boolean): void {
    this.accepts = accepts;
    this.host.requestUpdate();
  }

  /** After a run: built-in writes may have changed the files (only once there are any). */
  refreshIfOpen(): void {
    if (this.vfsPromise) void this.refresh();
  }

  private async refresh(): Promise<void> {
    const vfs = await this.vfs();
    this.files = vfs
      .getAllPaths()
      .filter((p) => p.startsWith("/workspace/"))
      .sort()
      .flatMap((p) => {
        const data = vfs.readBytesIfFile(p);
        return data ? [{ path: p.slice("/workspace/".length), bytes: data.byteLength }] : [];
      });
    this.host.requestUpdate();
  }

  /** Add files (checked whole first: names and limits; written as one change, or not at all). */
  async add(list: readonly File[]): Promise<void> {
    try {
      const [{ importPath }, vfs] = await Promise.all([import("../builtins/workspace/import-path.ts"), this.vfs()]);
      const paths = list.map((f) => importPath(f.name));
      const total = list.reduce((n, f) => n + f.size, 0);
      if (total + vfs.usage().bytes > VISITOR_LIMITS.maxTotalBytes) {
        throw new EdgeError(
          "vfs_quota_exceeded",
          { bytes: total },
          `These files (${total} bytes) do not fit the ${VISITOR_LIMITS.maxTotalBytes}-byte limit for files in this widget; nothing was added. Add fewer or smaller files.`,
        );
      }
      const data = await Promise.all(list.map(async (f) => new Uint8Array(await f.arrayBuffer())));
      await vfs.writeBatch(paths.map((path, i) => ({ path, data: data[i]! })));
      this.ports.status(`Added ${list.length} file(s) for the tools.`);
    } catch (err) {
      const detail = errorDetail(err);
      this.ports.fail(
        { kind: "error", code: detail.code, message: detail.message },
        `Files not added: ${detail.code}.`,
        detail,
      );
    }
    await this.refresh();
  }

  private readonly onFileInput = (event: Event): void => {
    const input = event.target as HTMLInputElement;
    const list = [...(input.files ?? [])];
    input.value = "";
    if (list.length) void this.add(list);
  };

  readonly onDragOver = (event: DragEvent): void => {
    if (event.dataTransfer?.types.includes("Files")) event.preventDefault();
  };

  readonly onDrop = (event: DragEvent): void => {
    if (!event.dataTransfer?.files.length) return;
    event.preventDefault();
    void this.add([...event.dataTransfer.files]);
  };

  /** The files section: shown when the tools use files, built-ins are on, or files were added. */
  render(builtins: string | null): TemplateResult | typeof nothing {
    if (!this.accepts && !builtins && this.files.length === 0) return nothing;
    const id = `${this.ports.uid}-files`;
    return html`<div class="files" part="files">
      <label for=${id}>Files for the tools (kept in this page only)</label>
      <input id=${id} type="file" multiple @change=${this.onFileInput} />
      ${
        this.files.length
          ? html`<ul aria-label="Your files">${this.files.map((f) => html`<li><code>${f.path}</code> <span class="muted">${f.bytes} bytes</span></li>`)}</ul>`
          : nothing
      }
    </div>`;
  }
}
