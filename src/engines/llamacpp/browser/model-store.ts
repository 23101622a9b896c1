// Downloaded GGUF models in the browser, in the device's blob store (src/blobs/): OPFS where it
// can be written (folder "edge-models", `<key>.gguf` + `<key>.json`), else IndexedDB (database
// "edge-models"), one entry per model URL; where nothing can store, the download is kept in memory
// for this load only (and the UI says so before it starts: modelStorage()).
//
// A download streams into the store while it is hashed (sha256, incremental: WebCrypto can only
// hash a whole buffer, which for a 1 GB model means 1 GB more memory), then is checked (GGUF
// header, the pinned hash) and only then becomes an entry. An error, a wrong hash, a full quota or
// an abort removes what was written: nothing partial is ever listed or loaded. Works in a worker
// and on the page (list and delete run on the page).
import { createSHA256 } from "hash-wasm";
import { EdgeError } from "../../../contract/errors.ts";
import { createMemoryBlobStore, persistentBlobStores, type BlobStore } from "../../../blobs/index.ts";
import { loadAbortedError } from "../../engine.ts";
import { readGgufSummary, type ByteSource, type GgufSummary } from "../gguf.ts";
import { fetchFailed, integrityError, pumpDownload } from "../download.ts";

export interface StoredModel {
  [field: string]: unknown;
  key: string;
  url: string;
  /** hex */
  sha256: string;
  size: number;
  /** The name it is shown under (catalog id, or the URL's file name). */
  name: string;
  stored_at: string;
}

export interface DownloadProgress {
  loaded: number;
  total: number;
}

/** Where a downloaded model is kept here: "opfs" or "idb" (stored for later visits, offline too),
 *  or "none" (downloaded again for every load). */
export type ModelStorage = "opfs" | "idb" | "none";

let stores: Promise<BlobStore<StoredModel>[]> | undefined;
function modelStores(): Promise<BlobStore<StoredModel>[]> {
  stores ??= persistentBlobStores<StoredModel>({ name: "edge-models", ext: ".gguf" });
  return stores;
}

export async function modelStorage(): Promise<ModelStorage> {
  const first = (await modelStores())[0];
  return first?.kind === "opfs" ? "opfs" : first ? "idb" : "none";
}

/** The entry key of a URL: the first 24 hex digits of its sha256. */
async function keyOf(url: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(url)));
  return Array.from(digest.subarray(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function blobBytes(blob: Blob): ByteSource {
  return {
    size: blob.size,
    read: async (offset, length) => new Uint8Array(await blob.slice(offset, offset + length).arrayBuffer()),
  };
}

/** Every complete entry, in every store this browser has, oldest first. */
export async function listStoredModels(): Promise<StoredModel[]> {
  const all = (await Promise.all((await modelStores()).map((s) => s.list()))).flat();
  return all.map((e) => e.meta).sort((a, b) => (a.stored_at < b.stored_at ? -1 : 1));
}

/** Remove an entry (and anything an interrupted download of it left), wherever it is. */
export async function deleteStoredModel(key: string): Promise<void> {
  for (const store of await modelStores()) await store.delete(key);
}

/** The stored file for a URL, when its entry is complete and matches the pin. */
export async function storedModel(
  url: string,
  sha256?: string,
): Promise<{ meta: StoredModel; file: Blob } | undefined> {
  const key = await keyOf(url);
  for (const store of await modelStores()) {
    const got = await store.get(key);
    const meta = got?.entry.meta;
    if (got && meta && meta.url === url && (!sha256 || meta.sha256 === sha256)) return { meta, file: got.blob };
  }
  return undefined;
}

/** The quota left, when the browser says (navigator.storage.estimate). */
async function spaceLeft(): Promise<number | undefined> {
  const estimate = await navigator.storage?.estimate?.().catch(() => undefined);
  return estimate?.quota !== undefined && estimate.usage !== undefined ? estimate.quota - estimate.usage : undefined;
}

/** Download a model into the store: checked before it becomes an entry; on any failure nothing
 *  stays. `stored` is false where nothing could store it (it lives in this worker only). */
export async function downloadModel(
  url: string,
  name: string,
  pin: string | undefined,
  onProgress: (p: DownloadProgress) => void,
  signal?: AbortSignal,
  /** Where it goes (default: the first store this browser has, else memory). */
  into?: BlobStore<StoredModel>,
): Promise<{ meta: StoredModel; file: Blob; summary: GgufSummary; stored: boolean }> {
  const store = into ?? (await modelStores())[0] ?? createMemoryBlobStore<StoredModel>();
  const key = await keyOf(url);
  let response: Response;
  try {
    response = await fetch(url, { signal: signal ?? null, cache: "no-store" });
  } catch (e) {
    if (signal?.aborted) throw loadAbortedError();
    // A browser says only "Failed to fetch" both for a server that is down and for one that does not
    // allow other sites to read the file (no CORS header): name both, and the way round either.
    throw fetchFailed(
      url,
      `${(e as Error).message}: the server is unreachable, or it does not allow this page to read the file (it must answer with an Access-Control-Allow-Origin header for this site). Download the file yourself and load it from this device instead (the playground's “GGUF from file…”, the widget's “Use a GGUF model file from this device”)`,
      { cors_or_network: true },
    );
  }
  if (!response.ok || !response.body)
    throw fetchFailed(url, `the server answered HTTP ${response.status}`, { status: response.status });
  const total = Number(response.headers.get("content-length")) || 0;
  const left = store.persistent ? await spaceLeft() : undefined;
  if (total && left !== undefined && left < total) {
    await response.body.cancel().catch(() => undefined);
    throw new EdgeError(
      "storage_failed",
      { needed: total, available: left },
      `The model needs ${(total / 1e6).toFixed(0)} MB but this site may store only ${(left / 1e6).toFixed(0)} MB more; delete cached models or free disk space.`,
    );
  }
  // Anything left by an earlier attempt (or a stale entry for another pin) goes first, everywhere.
  await deleteStoredModel(key);
  const writer = await store.begin(key);
  try {
    const hasher = await createSHA256();
    const sink = async (chunk: Uint8Array) => {
      hasher.update(chunk);
      await writer.write(chunk);
    };
    const size = await pumpDownload(url, response.body, total, sink, (loaded) => onProgress({ loaded, total }), signal);
    const sha = hasher.digest("hex");
    const summary = await readGgufSummary(blobBytes(await writer.staged()), name);
    if (pin && pin !== sha) throw integrityError(name, pin, sha);
    const meta: StoredModel = { key, url, sha256: sha, size, name, stored_at: new Date().toISOString() };
    return { meta, file: await writer.commit(meta), summary, stored: store.persistent };
  } catch (e) {
    await writer.abort();
    throw e;
  }
}

/** sha256 (hex) of a Blob, streamed. */
export async function hashBlob(
  blob: Blob,
  onProgress?: (p: DownloadProgress) => void,
  signal?: AbortSignal,
): Promise<string> {
  const hasher = await createSHA256();
  const reader = blob.stream().getReader();
  let loaded = 0;
  for (;;) {
    if (signal?.aborted) {
      await reader.cancel().catch(() => undefined);
      throw loadAbortedError();
    }
    const chunk = await reader.read();
    if (chunk.done) break;
    hasher.update(chunk.value);
    loaded += chunk.value.length;
    onProgress?.({ loaded, total: blob.size });
  }
  return hasher.digest("hex");
}
