// Wheels held in memory for the page's lifetime: the widget's store where the host page has no
// Cache Storage (not a secure context), and tests. Same shape as the other stores (store.ts).
import type { PackageStore } from "./store.ts";

export function createMemoryPackageStore(location = "this page's memory (until it is closed)"): PackageStore {
  const files = new Map<string, Uint8Array>();
  return {
    location,
    get: async (fileName) => files.get(fileName)?.slice(),
    async put(fileName, bytes) {
      files.set(fileName, bytes.slice());
    },
    remove: async (fileName) => files.delete(fileName),
    list: async () => [...files].map(([file_name, bytes]) => ({ file_name, bytes: bytes.byteLength })),
  };
}
