// Where `edge packages add` fetches wheels from: a folder (a self-hosted copy of Pyodide's
// distribution, or wheels you built), a file:// URL, or an http(s):// URL of such a folder. The
// default is the Pyodide distribution of the installed pyodide version on the jsDelivr CDN (the URL
// Pyodide itself loads packages from). Nothing else ever fetches: a freeze reads the store only.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { EdgeError } from "../contract/errors.ts";

export interface PackageSource {
  /** The folder or URL, for people and receipts of `add`. */
  readonly location: string;
  fetch(fileName: string): Promise<Uint8Array>;
}

/** Bound on one wheel's bytes (the largest wheels of Pyodide's lock are tens of MB). */
const MAX_WHEEL_BYTES = 512 * 1024 * 1024;

/** Pyodide's own CDN distribution for a version ("https://cdn.jsdelivr.net/pyodide/v314.0.7/full/"). */
export function defaultPackageSource(version: string): string {
  return `https://cdn.jsdelivr.net/pyodide/v${version}/full/`;
}

/** The source a command uses: --package-source, else $EDGE_PACKAGE_SOURCE, else Pyodide's CDN. */
export function packageSourceFor(option: string | undefined, version: string, env: NodeJS.ProcessEnv = process.env): PackageSource {
  return packageSource(option || env.EDGE_PACKAGE_SOURCE || defaultPackageSource(version));
}

export function packageSource(spec: string): PackageSource {
  if (/^https?:\/\//i.test(spec)) return urlSource(spec.endsWith("/") ? spec : `${spec}/`);
  const dir = /^file:/i.test(spec) ? fileURLToPath(spec) : path.resolve(spec);
  return {
    location: dir,
    async fetch(fileName) {
      const file = path.join(dir, fileName);
      try {
        return new Uint8Array(await readFile(file));
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        throw new EdgeError("python_package_fetch_failed", { file: fileName, source: dir }, `${fileName} could not be read from the package folder ${dir} (${String(code ?? err)}); copy the wheel there, or name another source with --package-source.`);
      }
    },
  };
}

function urlSource(base: string): PackageSource {
  return {
    location: base,
    async fetch(fileName) {
      const url = new URL(encodeURIComponent(fileName), base).href;
      const fail = (why: string): EdgeError =>
        new EdgeError("python_package_fetch_failed", { file: fileName, source: base, url }, `${fileName} could not be fetched from ${url} (${why}); check the connection and --package-source / EDGE_PACKAGE_SOURCE, or use a folder that holds the wheel.`);
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
    },
  };
}
