// DOM helpers for the playground. Everything is built with createElement and textContent: no
// HTML string ever reaches the DOM, so model output, tool results and file contents stay text.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** `h("button", { type: "button", onclick: fn, "aria-label": "…" }, "text", child)`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      node.className = String(value);
    } else if (value === true) {
      node.setAttribute(key, "");
    } else {
      node.setAttribute(key, String(value));
    }
  }
  append(node, ...children);
  return node;
}

function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(
      typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child,
    );
  }
}

/** Replace every child of `parent`. */
export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, ...children);
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} missing from index.html`);
  return node as T;
}

/** Pretty JSON for display (always via textContent). */
export function pretty(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A short hash for tight spaces; the full value stays in the title attribute. */
export function shortHash(hash: string | null | undefined): string {
  if (!hash) return "—";
  const hex = hash.replace(/^sha256:/, "");
  return `sha256:${hex.slice(0, 12)}…`;
}

/** `<code title=full>short</code>` with a copy-friendly full value. */
export function hashCode(hash: string | null | undefined): HTMLElement {
  return h("code", { class: "hash", title: hash ?? "" }, shortHash(hash));
}

export function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
}

export function bytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(0)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)} KB`;
  return `${n} B`;
}

/** Offer text or bytes as a file download (receipts, imprints, facts exports, workspace files). */
export function download(
  filename: string,
  data: string | Uint8Array<ArrayBuffer>,
  type = "application/octet-stream",
): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = h("a", { href: url, download: filename });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Pick a local file with a plain <input type=file> (works everywhere). */
export function pickFile(accept: string): Promise<File | null> {
  return new Promise((resolve) => {
    const input = h("input", { type: "file", accept, hidden: true });
    input.addEventListener("change", () => {
      resolve(input.files?.[0] ?? null);
      input.remove();
    });
    input.addEventListener("cancel", () => {
      resolve(null);
      input.remove();
    });
    document.body.appendChild(input);
    input.click();
  });
}

/** A status line: text plus a state for styling ("busy" | "ok" | "error" | "warn" | "idle"). */
export function setStatus(node: HTMLElement, text: string, state: "busy" | "ok" | "error" | "warn" | "idle"): void {
  node.textContent = text;
  node.dataset.state = state;
}

export function errorText(err: { code?: string; message?: string } | undefined): string {
  if (!err) return "";
  return err.code ? `${err.code}: ${err.message ?? ""}` : (err.message ?? "");
}
