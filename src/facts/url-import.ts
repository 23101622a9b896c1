// Facts from HTML pages (Edge Studio's `facts import-url` and `facts crawl-url`, and saved pages in
// the playground): pages become an edge.demo.facts.v1 file in memory — main text split into
// paragraph-bounded facts, or one fact per table row — each fact carrying source_url and the
// page's sha256 in its provenance; the file then goes through importFacts, so it is validated
// whole before anything is written, exactly like `facts import`. No DOM, no Node API.
import { EdgeError } from "../contract/errors.ts";
import { sha256Bytes, type Sha256 } from "../contract/hash.ts";
import { decodeHtml, fetchPage, httpUrl, type FetchedPage, type FetchPageOptions } from "./fetch-page.ts";
import { FACTS_LIMITS, FACTS_SCHEMA_VERSION, checkStoreName, type Fact } from "./format.ts";
import { extractLinks, extractPageText, extractTableRows } from "./html.ts";
import { importFacts, type ImportResult } from "./import.ts";
import type { FactsStore } from "./store.ts";

export type SplitMode = "page" | "html-table-rows";

export const URL_IMPORT_LIMITS = {
  /** Facts one URL import (or crawl) may produce. */
  facts: 5_000,
  /** A page's text is cut into facts of at most this many characters, at paragraph boundaries. */
  chunkChars: 4_000,
  prefixChars: 128,
} as const;

/** Hard ceilings on top of the bounds a crawl is given (as Edge Studio has). */
export const CRAWL_CEILINGS = {
  maxDepth: 5,
  maxUrls: 100,
  maxBytes: 8 * 1024 * 1024,
  maxBytesTotal: 64 * 1024 * 1024,
  timeoutMs: 300_000,
} as const;

export interface FactOptions {
  split?: SplitMode;
  topic?: string;
  tags?: string[];
  factIdPrefix?: string;
}

/** A page to turn into facts: fetched, or read from a saved file. */
export interface HtmlPage {
  /** Its URL (links are made absolute against it); a saved file without one: `file:NAME`. */
  url: string;
  html: string;
  page_sha256: Sha256;
  fetched_at: string;
}

export interface PageReport {
  url: string;
  final_url: string;
  status: number | null;
  bytes: number;
  page_sha256: Sha256;
  facts: number;
  extractor: string;
}

export interface UrlImportReport extends ImportResult {
  split: SplitMode;
  pages: PageReport[];
  /** Crawled links that were not imported (not HTML, an HTTP error), with their code. */
  skipped: Array<{ url: string; code: string; status?: number }>;
  network_used: boolean;
  /** Edge does not read robots.txt; a crawl says so (as Edge Studio's receipts do). */
  robots_txt_consulted: false;
}

/** Lowercase words joined by dashes: a readable, stable piece of a fact id. */
export function slug(text: string, max = 64): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, max)
    .replace(/-+$/, "");
}

/**
 * A page's own fact-id prefix, from its URL alone: the same page gets the same ids whether it came
 * from import-url or a crawl (a crawl's start page included), so importing it again updates it in
 * place. A slug cut at 80 characters ends with a hash of the whole URL, so two long URLs that
 * share a beginning do not overwrite each other's facts.
 */
export function pagePrefix(url: string): string {
  let text = url;
  try {
    const u = new URL(url);
    text = `${u.hostname}${u.pathname}${u.search}`;
  } catch {
    // a saved page's `file:NAME`: its name is the slug
  }
  const full = slug(text, Number.MAX_SAFE_INTEGER);
  if (full.length <= 80) return full || "page";
  return `${slug(text, 71)}-${fnv1a(url)}`;
}

/** 32-bit FNV-1a as 8 hex digits: tells two ids apart, nothing more (not a security hash). */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

function checkPrefix(prefix: string): string {
  if (prefix.trim() === "" || prefix.length > URL_IMPORT_LIMITS.prefixChars || /[\u0000-\u001f\u007f]/.test(prefix)) {
    throw new EdgeError(
      "invalid_option",
      { fact_id_prefix: prefix },
      `--fact-id-prefix must be 1–${URL_IMPORT_LIMITS.prefixChars} printable characters. Pass a prefix of that form.`,
    );
  }
  return prefix;
}

/** Paragraph lines packed into chunks of at most `max` characters (a longer line is cut at a space). */
export function chunkLines(lines: readonly string[], max: number): string[] {
  const chunks: string[] = [];
  let current = "";
  const push = (piece: string): void => {
    if (current && current.length + 1 + piece.length > max) {
      chunks.push(current);
      current = "";
    }
    current = current ? `${current}\n${piece}` : piece;
  };
  for (const line of lines) {
    let rest = line;
    while (rest.length > max) {
      const cut = rest.lastIndexOf(" ", max) > max / 2 ? rest.lastIndexOf(" ", max) : max;
      push(rest.slice(0, cut).trim());
      rest = rest.slice(cut).trim();
    }
    if (rest) push(rest);
  }
  if (current) chunks.push(current);
  return chunks;
}

const clip = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text);

/** One page's facts. `key` distinguishes the pages of a crawl under one --fact-id-prefix. */
export function factsFromPage(page: HtmlPage, options: FactOptions, key = ""): { facts: Fact[]; extractor: string } {
  const split = options.split ?? "page";
  const base =
    options.factIdPrefix !== undefined
      ? `${checkPrefix(options.factIdPrefix)}${key ? `-${key}` : ""}`
      : key || pagePrefix(page.url);
  const tags = [...new Set((options.tags ?? []).map((t) => t.trim()).filter(Boolean))];
  const provenance = { source_url: page.url, page_sha256: page.page_sha256, fetched_at: page.fetched_at, split };
  const make = (id: string, topic: string, text: string, label: string): Fact => ({
    fact_id: id,
    topic: clip(options.topic ?? (topic || page.url), FACTS_LIMITS.topicChars),
    text,
    tags,
    source_label: clip(label || page.url, FACTS_LIMITS.sourceLabelChars),
    provenance,
  });
  if (split === "html-table-rows") {
    const { title, rows, truncated } = extractTableRows(page.html, page.url, URL_IMPORT_LIMITS.facts);
    if (truncated) throw tooManyFacts(`${page.url} has more than ${URL_IMPORT_LIMITS.facts} table rows`);
    return {
      facts: rows.map((r, i) =>
        make(`${base}-row-${i + 1}`, r.caption || title, clip(r.text, FACTS_LIMITS.textChars), title),
      ),
      extractor: "html-table-rows",
    };
  }
  const text = extractPageText(page.html);
  const chunks = chunkLines(text.lines, URL_IMPORT_LIMITS.chunkChars);
  if (chunks.length > URL_IMPORT_LIMITS.facts) throw tooManyFacts(`${page.url} splits into ${chunks.length} facts`);
  return {
    facts: chunks.map((c, i) => make(`${base}-${i + 1}`, text.title, c, text.title)),
    extractor: text.extractor,
  };
}

function tooManyFacts(what: string): EdgeError {
  return new EdgeError(
    "url_import_too_many_facts",
    { limit: URL_IMPORT_LIMITS.facts },
    `${what}; one URL import takes at most ${URL_IMPORT_LIMITS.facts} facts. Nothing was imported.`,
  );
}

/** Validate the whole set as one facts file, then import it in one transaction. */
async function importAll(facts: FactsStore, store: string, all: Fact[], pages: PageReport[]): Promise<ImportResult> {
  if (all.length === 0) throw new EdgeError("html_no_facts", { pages: pages.map((p) => p.final_url) });
  if (all.length > URL_IMPORT_LIMITS.facts) throw tooManyFacts(`These pages give ${all.length} facts`);
  // A page is one set of facts per store: its earlier facts are replaced, not kept beside the new.
  return importFacts(facts, JSON.stringify({ schema_version: FACTS_SCHEMA_VERSION, store, facts: all }), {
    store,
    replacePages: true,
  });
}

function pageReport(
  page: FetchedPage | null,
  html: HtmlPage,
  count: number,
  extractor: string,
  bytes: number,
): PageReport {
  return {
    url: page?.requested_url ?? html.url,
    final_url: html.url,
    status: page?.status ?? null,
    bytes,
    page_sha256: html.page_sha256,
    facts: count,
    extractor,
  };
}

function htmlOf(page: FetchedPage): HtmlPage {
  return {
    url: page.url,
    html: decodeHtml(page.bytes, page.content_type),
    page_sha256: page.page_sha256,
    fetched_at: page.fetched_at,
  };
}

export interface ImportUrlOptions extends FactOptions, Pick<FetchPageOptions, "redirects" | "browser" | "fetch"> {
  store: string;
  maxBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

function deadline(timeoutMs: number, signal?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([timeout, signal]) : timeout;
}

/** `facts import-url`: one page, fetched once; its links are never followed. */
export async function importUrl(facts: FactsStore, url: string, options: ImportUrlOptions): Promise<UrlImportReport> {
  const store = checkStoreName(options.store);
  const split = options.split ?? "page";
  const page = await fetchPage(url, { ...options, signal: deadline(options.timeoutMs, options.signal) });
  const html = htmlOf(page);
  const made = factsFromPage(html, options);
  const pages = [pageReport(page, html, made.facts.length, made.extractor, page.bytes.byteLength)];
  const result = await importAll(facts, store, made.facts, pages);
  return { ...result, split, pages, skipped: [], network_used: true, robots_txt_consulted: false };
}

/** A saved HTML page (the playground's file import): no network at all. */
export async function importHtml(
  facts: FactsStore,
  bytes: Uint8Array,
  options: FactOptions & { store: string; url: string },
): Promise<UrlImportReport> {
  const store = checkStoreName(options.store);
  const html: HtmlPage = {
    url: options.url,
    html: decodeHtml(bytes),
    page_sha256: await sha256Bytes(bytes),
    fetched_at: new Date().toISOString(),
  };
  const made = factsFromPage(html, options);
  const pages = [pageReport(null, html, made.facts.length, made.extractor, bytes.byteLength)];
  const result = await importAll(facts, store, made.facts, pages);
  return {
    ...result,
    split: options.split ?? "page",
    pages,
    skipped: [],
    network_used: false,
    robots_txt_consulted: false,
  };
}

export interface CrawlBounds {
  /** Links followed from the start page (0: the start page only). */
  maxDepth: number;
  /** URLs fetched in all (skipped ones count). */
  maxUrls: number;
  /** Per page. */
  maxBytes: number;
  maxBytesTotal: number;
  /** For the whole crawl. */
  timeoutMs: number;
}

export interface CrawlOptions
  extends FactOptions,
    Pick<FetchPageOptions, "redirects" | "browser" | "fetch">,
    Partial<CrawlBounds> {
  store: string;
  signal?: AbortSignal;
}

const BOUND_NAMES: Record<keyof CrawlBounds, string> = {
  maxDepth: "max depth",
  maxUrls: "max URLs",
  maxBytes: "max bytes per page",
  maxBytesTotal: "max bytes in total",
  timeoutMs: "timeout",
};

/** Every bound given, a non-negative integer (depth) or positive one, within its ceiling. */
export function checkCrawlBounds(options: Partial<CrawlBounds>): CrawlBounds {
  const missing = (Object.keys(BOUND_NAMES) as (keyof CrawlBounds)[]).filter((k) => options[k] === undefined);
  if (missing.length) {
    throw EdgeError.withTableFix(
      "crawl_bounds_required",
      { missing },
      `A crawl needs every bound given explicitly; missing: ${missing.map((k) => BOUND_NAMES[k]).join(", ")}.`,
    );
  }
  for (const k of Object.keys(BOUND_NAMES) as (keyof CrawlBounds)[]) {
    const v = options[k]!;
    const min = k === "maxDepth" ? 0 : 1;
    if (!Number.isInteger(v) || v < min || v > CRAWL_CEILINGS[k]) {
      throw new EdgeError(
        "invalid_option",
        { bound: k, value: v, ceiling: CRAWL_CEILINGS[k] },
        `The crawl's ${BOUND_NAMES[k]} must be an integer from ${min} to ${CRAWL_CEILINGS[k]}; got ${v}. Pass a value in that range.`,
      );
    }
  }
  return options as CrawlBounds;
}

/** Codes that skip one linked page; anything else (a bound, a redirect off origin) fails the crawl. */
const SKIPPABLE = new Set(["url_not_html", "url_fetch_failed"]);

/**
 * `facts crawl-url`: breadth-first over same-origin links of static HTML, within every bound.
 * Nothing is written unless the whole crawl completes within its bounds.
 */
export async function crawlUrl(facts: FactsStore, url: string, options: CrawlOptions): Promise<UrlImportReport> {
  const store = checkStoreName(options.store);
  const bounds = checkCrawlBounds(options);
  const start = httpUrl(url);
  start.hash = "";
  const origin = start.origin;
  const signal = deadline(bounds.timeoutMs, options.signal);
  const queue: Array<{ url: string; depth: number }> = [{ url: start.href, depth: 0 }];
  const seen = new Set([start.href]);
  const keys = new Set<string>();
  const all: Fact[] = [];
  const pages: PageReport[] = [];
  const skipped: UrlImportReport["skipped"] = [];
  let fetched = 0;
  let total = 0;
  while (queue.length && fetched < bounds.maxUrls) {
    const item = queue.shift()!;
    fetched++;
    let page: FetchedPage;
    try {
      page = await fetchPage(item.url, { ...options, maxBytes: bounds.maxBytes, signal, sameOrigin: origin });
    } catch (err) {
      if (item.depth > 0 && err instanceof EdgeError && SKIPPABLE.has(err.code)) {
        skipped.push({
          url: item.url,
          code: err.code,
          ...(typeof err.details["status"] === "number" ? { status: err.details["status"] } : {}),
        });
        continue;
      }
      throw err;
    }
    total += page.bytes.byteLength;
    if (total > bounds.maxBytesTotal) {
      throw new EdgeError(
        "url_too_large",
        { max_bytes_total: bounds.maxBytesTotal },
        `The crawl read more than ${bounds.maxBytesTotal} bytes in total (--max-bytes-total); nothing was imported. Raise --max-bytes-total (up to its ceiling) or crawl fewer pages.`,
      );
    }
    const html = htmlOf(page);
    // Each page's ids come from its own URL (as import-url's), or from the path under a given prefix.
    const { pathname, search } = new URL(page.url);
    let key = options.factIdPrefix !== undefined ? slug(pathname + search, 48) || "index" : pagePrefix(page.url);
    if (keys.has(key)) key = `${key}-${fetched}`;
    keys.add(key);
    const made = factsFromPage(html, options, key);
    all.push(...made.facts);
    if (all.length > URL_IMPORT_LIMITS.facts) throw tooManyFacts(`The crawl reached ${all.length} facts`);
    pages.push(pageReport(page, html, made.facts.length, made.extractor, page.bytes.byteLength));
    if (item.depth >= bounds.maxDepth) continue;
    for (const link of extractLinks(html.html, page.url)) {
      if (seen.has(link) || new URL(link).origin !== origin) continue;
      seen.add(link);
      queue.push({ url: link, depth: item.depth + 1 });
    }
  }
  const result = await importAll(facts, store, all, pages);
  return { ...result, split: options.split ?? "page", pages, skipped, network_used: true, robots_txt_consulted: false };
}
