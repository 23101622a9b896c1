// The selected workspace file: its size and sha256, a download button, and a preview — an image,
// an editable text (saved as one VFS write), or a note that the file is binary.
import { toErrorJson } from "../contract/errors.ts";
import { sha256Bytes } from "../contract/hash.ts";
import { sniffImage } from "../builtins/fs-tools.ts";
import type { EdgeVfs } from "../builtins/vfs/core.ts";
import { asText } from "../builtins/workspace/text.ts";
import { bytes as fmtBytes, download, errorText, h, replace, setStatus } from "./dom.ts";

/** Text above this is shown read-only in part (editing it in a textarea helps no one). */
const EDIT_LIMIT = 1024 * 1024;

export interface PreviewHooks {
  /** After a save (the panel re-lists, other panels learn the workspace changed). */
  saved(path: string): void;
}

export function renderPreview(root: HTMLElement, vfs: EdgeVfs, path: string, hooks: PreviewHooks): void {
  const data = vfs.readBytesIfFile(path);
  if (!data) {
    replace(root);
    return;
  }
  const name = path.slice(path.lastIndexOf("/") + 1);
  const sha = h("code", { class: "hash", "data-testid": "ws-preview-sha" }, "…");
  void sha256Bytes(data).then((s) => (sha.textContent = s));
  const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  const mime = sniffImage(data);
  const text = mime ? null : asText(data);
  let body: HTMLElement;
  if (mime) {
    const url = URL.createObjectURL(new Blob([data as Uint8Array<ArrayBuffer>], { type: mime }));
    body = h("img", { src: url, alt: `Preview of ${name}`, class: "ws-image", onload: () => URL.revokeObjectURL(url) });
  } else if (text !== null && data.byteLength <= EDIT_LIMIT) {
    const area = h("textarea", { id: "ws-edit", rows: 12, spellcheck: "false" });
    area.value = text;
    const save = h("button", { type: "button", id: "ws-save", class: "primary" }, "Save changes");
    save.addEventListener("click", async () => {
      try {
        await vfs.writeBytes(path, new TextEncoder().encode(area.value));
        hooks.saved(path);
      } catch (err) {
        setStatus(status, errorText(toErrorJson(err)), "error");
      }
    });
    body = h(
      "div",
      {},
      h("label", { for: "ws-edit" }, `Contents of ${name}`),
      area,
      h("div", { class: "button-row" }, save),
    );
  } else if (text !== null) {
    body = h(
      "pre",
      { class: "json small" },
      `${text.slice(0, 64 * 1024)}\n… (${fmtBytes(data.byteLength)}: too large to edit here)`,
    );
  } else {
    body = h("p", { class: "muted" }, `Binary file (${fmtBytes(data.byteLength)}); no preview.`);
  }
  replace(
    root,
    h("h3", { id: "ws-preview-h" }, path),
    h(
      "dl",
      { class: "facts-grid small" },
      h("dt", {}, "size"),
      h("dd", {}, `${data.byteLength} bytes`),
      h("dt", {}, "sha256"),
      h("dd", {}, sha),
    ),
    h(
      "div",
      { class: "button-row" },
      h(
        "button",
        { type: "button", class: "secondary small", onclick: () => download(name, data as Uint8Array<ArrayBuffer>) },
        `Download ${name}`,
      ),
    ),
    body,
    status,
  );
}
