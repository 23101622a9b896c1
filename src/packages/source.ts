// Where wheels are fetched from, one shape for every adapter: a URL of a folder that holds the
// lock's wheel files (Pyodide's own distribution on its CDN by default, a self-hosted copy, or the
// app's own origin for offline deployments). The Node adapter adds local folders (source-node.ts).
// Only `add` (add.ts) ever fetches; a freeze reads the device's store alone.
import { EdgeError } from "../contract/errors.ts";

export interface PackageSource {
  /** The folder or URL, for people and receipts of `add`. */
  readonly location: string;
  fetch(fileName: string): Promise<Uint8Array>;
  /** The wheel's size in bytes before fetching it (to ask first), when the source says. */
  size(fileName: string): Promise<number | undefined>;
}

/** Bound on one wheel's bytes (the largest wheels of Pyodide's lock are tens of MB). */
const MAX_WHEEL_BYTES = 512 * 1024 * 1024;

/** A wheel's bytes from a URL, bounded (the caller checks its hash); a failure is
 *  python_package_fetch_failed, ended by `fix`. */
export async function fetchWheel(
  url: string,
  fileName: string,
  fix: string,
  details: Record<string, unknown> = {},
): Promise<Uint8Array> {
  const fail = (why: string): EdgeError =>
    new EdgeError(
      "python_package_fetch_failed",
      { file: fileName, ...details, url },
      `${fileName} could not be fetched from ${url} (${why}); ${fix}`,
    );
  let res: Response;
  try {
    res = await fetch(url, { redirect: "follow" });
  } catch (err) {
    throw fail(err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err));
  }
  if (!res.ok) throw fail(`HTTP ${res.status}`);
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > MAX_WHEEL_BYTES) throw fail(`${declared} bytes, more than a wheel may have`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.byteLength > MAX_WHEEL_BYTES) throw fail(`${bytes.byteLength} bytes, more than a wheel may have`);
  return bytes;
}

/** Pyodide's own CDN distribution for a version ("https://cdn.jsdelivr.net/pyodide/v314.0.7/full/"). */
export function defaultPackageSource(version: string): string {
  return `https://cdn.jsdelivr.net/pyodide/v${version}/full/`;
}

/** A source at an http(s) URL (a folder: wheel file names resolve against it). `fix` ends a fetch
 *  failure's message: how this front door changes the source. */
export function urlPackageSource(spec: string, fix: string): PackageSource {
  const base = spec.endsWith("/") ? spec : `${spec}/`;
  const urlOf = (fileName: string): string => new URL(encodeURIComponent(fileName), base).href;
  return {
    location: base,
    fetch: (fileName) => fetchWheel(urlOf(fileName), fileName, fix, { source: base }),
    async size(fileName) {
      // Content-Length is a CORS-safelisted response header: a cross-origin HEAD can read it.
      const res = await fetch(urlOf(fileName), { method: "HEAD", redirect: "follow" }).catch(() => undefined);
      const n = Number(res?.ok ? (res.headers.get("content-length") ?? "") : "");
      return Number.isFinite(n) && n > 0 ? n : undefined;
    },
  };
}
