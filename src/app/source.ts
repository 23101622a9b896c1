// Where tools.py comes from: the editor's buffer, or a file on disk through the File System
// Access API (then the file on disk is the source: every call re-reads it, so an edit on disk
// during a turn is refused with tools_file_changed, exactly as the contract says; Inspect or the
// next message starts a new session with the edited file: chat-panel.ts, tools-panel.ts).
import type { ToolSource } from "../runner/host.ts";
import { memoryProjectSource } from "../toolset/project.ts";
import type { PickedProject } from "../toolset/project-archive.ts";

/** The part of the File System Access API we use (TypeScript's DOM lib lacks the pickers). */
export interface FileHandleLike {
  readonly kind: "file";
  readonly name: string;
  getFile(): Promise<File>;
}

interface PickerWindow {
  showOpenFilePicker?: (options?: {
    multiple?: boolean;
    types?: { description: string; accept: Record<string, string[]> }[];
  }) => Promise<FileHandleLike[]>;
}

export function hasFileSystemAccess(): boolean {
  return typeof (window as Window & PickerWindow).showOpenFilePicker === "function";
}

/** Ask the user for a .py file; null when they cancel. */
export async function pickPythonFileHandle(): Promise<FileHandleLike | null> {
  const picker = (window as Window & PickerWindow).showOpenFilePicker;
  if (!picker) return null;
  try {
    const [handle] = await picker({
      multiple: false,
      types: [{ description: "Python tools file", accept: { "text/x-python": [".py"] } }],
    });
    return handle ?? null;
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") return null;
    throw err;
  }
}

/** A dropped item as a live handle when the browser offers one (Chromium), else null. */
export async function handleFromDrop(item: DataTransferItem): Promise<FileHandleLike | null> {
  const get = (item as DataTransferItem & { getAsFileSystemHandle?: () => Promise<{ kind: string } | null> })
    .getAsFileSystemHandle;
  if (typeof get !== "function") return null;
  try {
    const handle = await get.call(item);
    return handle && handle.kind === "file" ? (handle as FileHandleLike) : null;
  } catch {
    return null;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The text of a project's file, or null for one that is not UTF-8 text (shown as a note, not edited). */
export function textOf(data: Uint8Array): string | null {
  try {
    const text = utf8.decode(data);
    return text.includes("\0") ? null : text;
  } catch {
    return null;
  }
}

/** `project`: a folder or zip held in memory; `open` is the file the editor shows (edits go to it). */
export type SourceMode =
  | { kind: "buffer"; name: string }
  | { kind: "disk"; handle: FileHandleLike }
  | { kind: "project"; project: PickedProject; open: string };

/** The ToolSource for a mode. Buffer: the editor's text at the moment of each read. */
export function toolSourceFor(mode: SourceMode, bufferText: () => string): ToolSource {
  if (mode.kind === "project") {
    const p = mode.project;
    return memoryProjectSource(p.entry, () => p.files, `${p.name}/${p.entry}`, p.skipped);
  }
  if (mode.kind === "disk") {
    const handle = mode.handle;
    return {
      name: handle.name,
      async read() {
        const file = await handle.getFile();
        return new Uint8Array(await file.arrayBuffer());
      },
    };
  }
  const enc = new TextEncoder();
  return { name: mode.name, read: async () => enc.encode(bufferText()) };
}
