// Wheels in the browser: Cache Storage, one entry per wheel file name under the app's own origin
// (a synthetic URL no server answers; the service worker never serves it). Pyodide's own wheels and
// the wheels a project's pylock.toml pins from a package index are kept apart (two key prefixes):
// an index may serve a file under the name of one of Pyodide's with other bytes. Cache Storage is part
// of the origin's storage, so persist() covers it like the rest, and a cache.put is
// all-or-nothing: a reader never sees half a wheel. The bytes are checked against the lock's
// sha256 by whoever reads them (verify.ts), every time.
import { toStorageError } from "../platform/storage-error.ts";
import type { PackageStore, StoredWheel } from "./store.ts";

const PACKAGE_CACHE = "edge-python-packages";
/** Pyodide's own wheels (its lock, or a self-hosted lock of the same ABI). */
const PYODIDE_WHEELS = "/__edge/python-packages/";
/** Wheels a project's pylock.toml pins from a package index (source "pypi"). */
export const INDEX_WHEELS = "/__edge/python-index-wheels/";

function urlFor(prefix: string, fileName: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(fileName))
    throw toStorageError(new Error(`not a wheel file name: ${JSON.stringify(fileName)}`), "name a wheel");
  return new URL(prefix + encodeURIComponent(fileName), location.origin).href;
}

async function open(op: string): Promise<Cache> {
  try {
    return await caches.open(PACKAGE_CACHE);
  } catch (err) {
    throw toStorageError(err, op);
  }
}

/** `prefix`: which wheels (PYODIDE_WHEELS, the default, or INDEX_WHEELS). */
export function createCachePackageStore(prefix: string = PYODIDE_WHEELS): PackageStore {
  return {
    location: "this browser's storage for the app",
    async get(fileName) {
      const url = urlFor(prefix, fileName);
      const res = await (await open("read a wheel")).match(url);
      return res ? new Uint8Array(await res.arrayBuffer()) : undefined;
    },
    async put(fileName, bytes) {
      const url = urlFor(prefix, fileName);
      const cache = await open("store a wheel");
      try {
        await cache.put(
          url,
          new Response(bytes.slice(), {
            headers: { "Content-Type": "application/octet-stream", "Content-Length": String(bytes.byteLength) },
          }),
        );
      } catch (err) {
        throw toStorageError(err, "store a wheel", { file: fileName });
      }
    },
    async remove(fileName) {
      return (await open("remove a wheel")).delete(urlFor(prefix, fileName));
    },
    async list() {
      const cache = await open("list wheels");
      const out: StoredWheel[] = [];
      for (const req of await cache.keys()) {
        const path = new URL(req.url).pathname;
        if (!path.startsWith(prefix)) continue;
        const res = await cache.match(req);
        const size = Number(res?.headers.get("Content-Length") ?? "");
        out.push({
          file_name: decodeURIComponent(path.slice(prefix.length)),
          bytes: Number.isFinite(size) && size > 0 ? size : ((await res?.arrayBuffer())?.byteLength ?? 0),
        });
      }
      return out;
    },
  };
}

/** A package lock as last read from `url`, kept beside the wheels so they stay usable offline
 *  (a lock the page names is not in the app's precache). */
export const lockCache = {
  key: (url: string): string =>
    new URL(`/__edge/python-package-locks/${encodeURIComponent(url)}`, location.origin).href,
  async get(url: string): Promise<string | undefined> {
    const res = await (await open("read a package lock")).match(lockCache.key(url));
    return res ? res.text() : undefined;
  },
  async put(url: string, text: string): Promise<void> {
    await (await open("keep a package lock")).put(
      lockCache.key(url),
      new Response(text, { headers: { "Content-Type": "application/json" } }),
    );
  },
};
