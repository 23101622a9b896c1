// One bounded HTTP(S) GET of an HTML page, for facts from URLs. Every bound is enforced here: the
// scheme (http/https only), a byte limit read as a stream (a page over it is cut off, never read
// whole), the caller's deadline (an AbortSignal), and — for a crawl — the origin of every redirect
// hop, checked before the hop is requested. Uses the platform's fetch (Node 20 and browsers), no DOM.
import { EdgeError } from "../contract/errors.ts";
import { concatBytes, sha256Bytes, type Sha256 } from "../contract/hash.ts";

export interface FetchPageOptions {
  maxBytes: number;
  /** The deadline (AbortSignal.timeout) and/or a cancel. */
  signal: AbortSignal;
  /** A crawl: every redirect hop must stay on this origin. */
  sameOrigin?: string;
  /**
   * "manual" (Node): redirects are followed here, each hop checked before it is requested.
   * "follow" (browsers, which hide redirect targets from pages): the browser follows them and the
   * final URL is checked afterwards.
   */
  redirects?: "manual" | "follow";
  /** In a browser a failed fetch is usually a missing CORS permission: say so. */
  browser?: boolean;
  fetch?: typeof fetch;
}

export interface FetchedPage {
  requested_url: string;
  /** After redirects. */
  url: string;
  status: number;
  content_type: string;
  bytes: Uint8Array;
  page_sha256: Sha256;
  /** Every hop after the first, in order. */
  redirects: string[];
  fetched_at: string;
}

const MAX_REDIRECTS = 5;
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/** An absolute http(s) URL, or invalid_url. */
export function httpUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new EdgeError(
      "invalid_url",
      { url: value },
      `"${value}" is not an absolute URL; give an http:// or https:// URL.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw EdgeError.withTableFix(
      "invalid_url",
      { url: value, scheme: url.protocol },
      `"${value}" uses ${url.protocol}; only http:// and https:// URLs are imported.`,
    );
  }
  return url;
}

function timeoutOrAbort(signal: AbortSignal, url: string): EdgeError {
  const reason = signal.reason as { name?: string } | undefined;
  if (reason?.name === "TimeoutError")
    return EdgeError.withTableFix(
      "url_fetch_timeout",
      { url },
      `Fetching ${url} did not finish within the time limit; nothing was imported.`,
    );
  return new EdgeError("aborted", { url });
}

async function request(url: URL, options: FetchPageOptions): Promise<Response> {
  const doFetch = options.fetch ?? globalThis.fetch;
  try {
    return await doFetch(url.href, {
      redirect: options.redirects ?? "manual",
      signal: options.signal,
      headers: { accept: "text/html,application/xhtml+xml" },
    });
  } catch (err) {
    if (options.signal.aborted) throw timeoutOrAbort(options.signal, url.href);
    if (options.browser) {
      throw new EdgeError(
        "url_blocked_by_cors",
        { url: url.href },
        `The browser could not read ${url.href}: the site does not allow other sites to read it (CORS), or it is unreachable. Save the page as HTML and import the saved file instead.`,
      );
    }
    throw EdgeError.withTableFix(
      "url_fetch_failed",
      { url: url.href, reason: String((err as Error).cause ?? err) },
      `${url.href} could not be fetched: ${String((err as Error).cause ?? (err as Error).message)}.`,
    );
  }
}

function checkOrigin(url: URL, options: FetchPageOptions, from: string): void {
  if (options.sameOrigin && url.origin !== options.sameOrigin) {
    throw new EdgeError(
      "url_redirect_off_origin",
      { url: from, location: url.href, origin: options.sameOrigin },
      `${from} redirects to ${url.href}, outside ${options.sameOrigin}; a crawl stays on its start origin, so nothing was imported.`,
    );
  }
}

/** Read at most maxBytes of the body; a larger body is cancelled and refused. */
async function readBounded(res: Response, url: string, options: FetchPageOptions): Promise<Uint8Array> {
  const tooLarge = (seen: string): EdgeError =>
    EdgeError.withTableFix(
      "url_too_large",
      { url, max_bytes: options.maxBytes },
      `${url} is larger than ${options.maxBytes} bytes (${seen}); nothing was imported.`,
    );
  const declared = Number(res.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(`Content-Length ${declared}`);
  }
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > options.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(`over ${options.maxBytes} bytes read`);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof EdgeError) throw err;
    if (options.signal.aborted) throw timeoutOrAbort(options.signal, url);
    throw EdgeError.withTableFix(
      "url_fetch_failed",
      { url, reason: String(err) },
      `Reading ${url} failed: ${String(err)}.`,
    );
  }
  return concatBytes(chunks);
}

export async function fetchPage(value: string, options: FetchPageOptions): Promise<FetchedPage> {
  const first = httpUrl(value);
  if (options.signal.aborted) throw timeoutOrAbort(options.signal, first.href);
  const hops: string[] = [];
  let url = first;
  let res = await request(url, options);
  // Manual mode: 3xx answers are followed here, each target checked before it is requested.
  while (res.status >= 300 && res.status < 400 && res.headers.has("location")) {
    await res.body?.cancel().catch(() => undefined);
    if (hops.length >= MAX_REDIRECTS)
      throw EdgeError.withTableFix(
        "url_fetch_failed",
        { url: first.href, redirects: hops },
        `${first.href} redirects more than ${MAX_REDIRECTS} times; nothing was imported.`,
      );
    const next = httpUrl(new URL(res.headers.get("location")!, url).href);
    checkOrigin(next, options, url.href);
    hops.push(next.href);
    url = next;
    res = await request(url, options);
  }
  // Follow mode: the platform followed; check where it ended.
  if (res.url && res.url !== url.href) {
    const final = httpUrl(res.url);
    checkOrigin(final, options, url.href);
    hops.push(final.href);
    url = final;
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw EdgeError.withTableFix(
      "url_fetch_failed",
      { url: url.href, status: res.status },
      `${url.href} answered HTTP ${res.status}; nothing was imported.`,
    );
  }
  const contentType = (res.headers.get("content-type") ?? "").toLowerCase();
  const mime = contentType.split(";")[0]!.trim();
  if (!HTML_TYPES.has(mime)) {
    await res.body?.cancel().catch(() => undefined);
    throw EdgeError.withTableFix(
      "url_not_html",
      { url: url.href, content_type: contentType || null },
      `${url.href} is ${contentType || "of no declared type"}, not an HTML page; only HTML is imported.`,
    );
  }
  const bytes = await readBounded(res, url.href, options);
  return {
    requested_url: first.href,
    url: url.href,
    status: res.status,
    content_type: contentType,
    bytes,
    page_sha256: await sha256Bytes(bytes),
    redirects: hops,
    fetched_at: new Date().toISOString(),
  };
}

/** The page's text in its declared charset (UTF-8 when none or unknown). */
export function decodeHtml(bytes: Uint8Array, contentType = ""): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}
