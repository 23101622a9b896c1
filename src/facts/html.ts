// HTML → clean text, for facts from URLs and saved pages. A real HTML parser (linkedom: a DOM
// over htmlparser2, pure JS, the same code in Node and in the browser) and Mozilla's Readability
// (Firefox Reader View's extractor) find a page's main text; navigation, scripts, styles and other
// boilerplate never become facts. Text is read from the DOM block by block, never with regexes
// over markup. No network, no Node API, no browser DOM: usable in the core.
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";

// linkedom's types declare its document as the DOM's Document; the helpers below take only the few
// members they use, typed structurally.
interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}
interface DomElement extends DomNode {
  getAttribute(name: string): string | null;
  closest(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  querySelector(selector: string): DomElement | null;
  remove(): void;
}

const TEXT_NODE = 3;
const ELEMENT_NODE = 1;
/** Elements whose start and end break a line of text. */
const BLOCKS = new Set(
  "ADDRESS ARTICLE ASIDE BLOCKQUOTE BR CAPTION DD DETAILS DIALOG DIV DL DT FIELDSET FIGCAPTION FIGURE FOOTER FORM H1 H2 H3 H4 H5 H6 HEADER HR LI MAIN NAV OL P PRE SECTION SUMMARY TABLE TBODY TFOOT THEAD TR UL".split(
    " ",
  ),
);
/** Never text: code, styling, embedded documents and widgets. */
const SKIP = new Set(
  "SCRIPT STYLE NOSCRIPT TEMPLATE SVG IFRAME OBJECT EMBED CANVAS SELECT OPTION BUTTON INPUT TEXTAREA HEAD TITLE META LINK".split(
    " ",
  ),
);
/** Boilerplate dropped by the fallback when Readability finds no article. */
const BOILERPLATE =
  "script, style, noscript, template, svg, iframe, nav, header, footer, aside, form, button, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true]";

/** linkedom's document, which its types declare as the DOM's own Document. */
function parseDocument(html: string): Document {
  return parseHTML(html).document;
}

const collapse = (text: string): string => text.replace(/\s+/g, " ").trim();

/** The element's text as lines: one per block (paragraph, heading, list item, table row…). */
function blockLines(root: DomNode): string[] {
  const lines: string[] = [];
  let current = "";
  const flush = (): void => {
    const line = collapse(current);
    if (line) lines.push(line);
    current = "";
  };
  const walk = (node: DomNode): void => {
    if (node.nodeType === TEXT_NODE) {
      current += node.textContent ?? "";
      return;
    }
    if (node.nodeType !== ELEMENT_NODE && node.nodeType !== 9 && node.nodeType !== 11) return;
    const name = node.nodeName.toUpperCase();
    if (SKIP.has(name)) return;
    const block = BLOCKS.has(name);
    if (block) flush();
    if (name === "LI") current += "- ";
    const children = node.childNodes;
    for (let i = 0; i < children.length; i++) {
      walk(children[i]!);
      // Table cells of one row stay on one line, separated.
      if (name === "TR" && children[i]!.nodeName.toUpperCase().match(/^T[DH]$/)) current += " | ";
    }
    if (name === "TR") current = current.replace(/[\s|]+$/, "");
    if (block) flush();
  };
  walk(root);
  flush();
  return lines;
}

export interface PageText {
  title: string;
  /** Paragraph-like lines of the main text, in document order. */
  lines: string[];
  extractor: "readability" | "fallback";
}

/** The page's main text: Readability's article, or the body without boilerplate when it finds none. */
export function extractPageText(html: string): PageText {
  const doc = parseDocument(html);
  const title = collapse(doc.title ?? "");
  let article: { content?: string | null; title?: string | null } | null = null;
  try {
    // Readability changes the document it reads: give it its own copy.
    article = new Readability(parseDocument(html), { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  if (article?.content) {
    const lines = blockLines(
      parseDocument(`<!doctype html><html><head></head><body>${article.content}</body></html>`).body!,
    );
    if (lines.join(" ").length >= 40)
      return { title: title || collapse(article.title ?? ""), lines, extractor: "readability" };
  }
  for (const el of Array.from(doc.querySelectorAll(BOILERPLATE))) el.remove();
  const root = doc.querySelector("main") ?? doc.querySelector("article") ?? doc.body ?? doc.documentElement;
  return { title, lines: blockLines(root), extractor: "fallback" };
}

export interface TableRow {
  /** The row as text: "Header: value; …" when the table has a header row, else cells joined by " | ". */
  text: string;
  caption: string;
}

function absolute(href: string, base: string): string | null {
  try {
    const url = new URL(href, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** A cell's text, with the absolute URL of each link it holds (links are kept as text, never followed). */
function cellText(cell: DomElement, base: string): string {
  let text = collapse(blockLines(cell).join(" "));
  for (const a of Array.from(cell.querySelectorAll("a[href]"))) {
    const url = absolute(a.getAttribute("href") ?? "", base);
    if (url && !text.includes(url)) text += ` (${url})`;
  }
  return text;
}

/**
 * Every data row of every table: one entry per <tr> with <td> cells. Stops after `limit` rows
 * (the caller refuses the page then), so a huge table costs no more than the limit.
 */
export function extractTableRows(
  html: string,
  baseUrl: string,
  limit: number,
): { title: string; rows: TableRow[]; truncated: boolean } {
  const doc = parseDocument(html);
  const rows: TableRow[] = [];
  for (const table of Array.from(doc.querySelectorAll("table"))) {
    const caption = collapse(table.querySelector("caption")?.textContent ?? "");
    let headers: string[] = [];
    for (const tr of Array.from(table.querySelectorAll("tr"))) {
      // A nested table's rows are its own (visited as that table), not this one's.
      if (tr.closest("table") !== table) continue;
      const cells = Array.from(tr.childNodes).filter(
        (n): n is Element => n.nodeType === ELEMENT_NODE && /^T[DH]$/i.test(n.nodeName),
      );
      if (!cells.length) continue;
      if (cells.every((c) => c.nodeName.toUpperCase() === "TH")) {
        headers = cells.map((c) => collapse(c.textContent ?? ""));
        continue;
      }
      const values = cells.map((c) => cellText(c, baseUrl));
      if (values.every((v) => v === "")) continue;
      const text =
        headers.length === values.length
          ? values
              .map((v, i) => (headers[i] ? `${headers[i]}: ${v}` : v))
              .filter((v) => v.trim() !== "")
              .join("; ")
          : values.filter(Boolean).join(" | ");
      if (rows.length === limit) return { title: collapse(doc.title ?? ""), rows, truncated: true };
      rows.push({ text, caption });
    }
  }
  return { title: collapse(doc.title ?? ""), rows, truncated: false };
}

/** The absolute http(s) links of a page's anchors, without fragments, in document order, once each. */
export function extractLinks(html: string, baseUrl: string): string[] {
  const doc = parseDocument(html);
  const base = absolute(doc.querySelector("base[href]")?.getAttribute("href") ?? "", baseUrl) ?? baseUrl;
  const out = new Set<string>();
  for (const a of Array.from(doc.querySelectorAll("a[href]"))) {
    const url = absolute(a.getAttribute("href") ?? "", base);
    if (!url) continue;
    const u = new URL(url);
    u.hash = "";
    out.add(u.href);
  }
  return [...out];
}
