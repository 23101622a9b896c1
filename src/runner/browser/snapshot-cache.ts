// The runner's memory snapshot in Cache Storage, keyed by what it depends on (Pyodide's lock
// file, the worker bundle, the runner's Python files), so a new page load boots its first worker
// from it instead of making it again, online or offline. A changed dependency is a new key; older
// entries are deleted when a new snapshot is stored.
import type { SnapshotStore } from "../pool-snapshot.ts";

export const SNAPSHOT_FORMAT = "edge-runner-snapshot.v1";
const CACHE_NAME = "edge-runner-snapshots";

function urlFor(key: string): string {
  return new URL(`/__edge/runner-snapshot/${key}`, location.origin).href;
}

export function cacheSnapshotStore(key: string): SnapshotStore {
  const url = urlFor(key);
  return {
    async get() {
      const res = await (await caches.open(CACHE_NAME)).match(url);
      if (!res) return undefined;
      return new Uint8Array(await res.arrayBuffer());
    },
    async put(bytes) {
      const cache = await caches.open(CACHE_NAME);
      await cache.put(url, new Response(bytes.slice(), { headers: { "Content-Type": "application/octet-stream" } }));
      for (const req of await cache.keys()) if (req.url !== url) await cache.delete(req);
    },
    async discard() {
      await (await caches.open(CACHE_NAME)).delete(url);
    },
  };
}
