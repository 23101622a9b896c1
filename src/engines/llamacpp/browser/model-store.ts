// Downloaded GGUF models in the browser: the origin-private file system (OPFS), folder
// "edge-models", one `<key>.gguf` + `<key>.json` (url, sha256, size, name) per model URL.
// Why OPFS, not the Cache API: model files are hundreds of MB, OPFS streams them to disk as they
// arrive and hands them back as a File that wllama reads without a second copy.
//
// A download streams into `<key>.part` while it is hashed (sha256, incremental: WebCrypto can only
// hash a whole buffer, which for a 1 GB model means 1 GB more memory), then is checked (GGUF
// header, the pinned hash) and only then becomes `<key>.gguf`, and only with its `.json` is it an
// entry. An error, a wrong hash or an abort removes the part file: nothing partial is ever listed
// or loaded. Works in a worker and on the page (list and delete run on the page).
import { createSHA256 } from "hash-wasm";
import { EdgeError } from "../../../contract/errors.ts";
import { loadAbortedError } from "../../engine.ts";
import { readGgufSummary, type ByteSource, type GgufSummary } from "../gguf.ts";
import { fetchFailed, integrityError, pumpDownload } from "../download.ts";

const DIR = "edge-models";

export interface StoredModel {
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

async function modelsDir(): Promise<FileSystemDirectoryHandle> {
  if (!navigator.storage?.getDirectory) {
    throw new EdgeError("storage_failed", { reason: "no_opfs" }, "This browser has no origin-private file system, so a model cannot be stored; load a GGUF file from disk instead.");
  }
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(DIR, { create: true });
}

/** The entry key of a URL: the first 24 hex digits of its sha256. */
export async function keyOf(url: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(url)));
  return Array.from(digest.subarray(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function blobBytes(blob: Blob): ByteSource {
  return { size: blob.size, read: async (offset, length) => new Uint8Array(await blob.slice(offset, offset + length).arrayBuffer()) };
}

async function remove(dir: FileSystemDirectoryHandle, name: string): Promise<void> {
  await dir.removeEntry(name).catch(() => undefined);
}

async function readMeta(dir: FileSystemDirectoryHandle, key: string): Promise<StoredModel | undefined> {
  try {
    const file = await (await dir.getFileHandle(`${key}.json`)).getFile();
    return JSON.parse(await file.text()) as StoredModel;
  } catch {
    return undefined;
  }
}

/** Every complete entry (a .gguf with its .json, sizes matching), oldest first. */
export async function listStoredModels(): Promise<StoredModel[]> {
  const dir = await modelsDir();
  const out: StoredModel[] = [];
  for await (const name of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) {
    if (!name.endsWith(".json")) continue;
    const meta = await readMeta(dir, name.slice(0, -5));
    const file = meta ? await dir.getFileHandle(`${meta.key}.gguf`).then((h) => h.getFile(), () => undefined) : undefined;
    if (meta && file?.size === meta.size) out.push(meta);
  }
  return out.sort((a, b) => (a.stored_at < b.stored_at ? -1 : 1));
}

/** Remove an entry (and any part file an interrupted download of it left). */
export async function deleteStoredModel(key: string): Promise<void> {
  const dir = await modelsDir();
  await remove(dir, `${key}.json`);
  await remove(dir, `${key}.gguf`);
  await remove(dir, `${key}.part`);
}

/** The stored file for a URL, when its entry is complete and matches the pin. */
export async function storedModel(url: string, sha256?: string): Promise<{ meta: StoredModel; file: File } | undefined> {
  const dir = await modelsDir();
  const meta = await readMeta(dir, await keyOf(url));
  if (!meta || meta.url !== url || (sha256 && meta.sha256 !== sha256)) return undefined;
  const file = await dir.getFileHandle(`${meta.key}.gguf`).then((h) => h.getFile(), () => undefined);
  return file && file.size === meta.size ? { meta, file } : undefined;
}

/** Stream `body` (`total` bytes when known) into `writable`, hashing; returns the hex digest and the byte count. */
async function streamToDisk(url: string, body: ReadableStream<Uint8Array>, total: number, writable: FileSystemWritableFileStream, onProgress: (p: DownloadProgress) => void, signal?: AbortSignal): Promise<{ sha: string; size: number }> {
  const hasher = await createSHA256();
  const sink = async (chunk: Uint8Array) => {
    hasher.update(chunk);
    await writable.write(chunk as Uint8Array<ArrayBuffer>);
  };
  const size = await pumpDownload(url, body, total, sink, (loaded) => onProgress({ loaded, total }), signal);
  return { sha: hasher.digest("hex"), size };
}

/** Download a model into the store: checked before it becomes an entry; on any failure nothing stays. */
export async function downloadModel(
  url: string,
  name: string,
  pin: string | undefined,
  onProgress: (p: DownloadProgress) => void,
  signal?: AbortSignal,
): Promise<{ meta: StoredModel; file: File; summary: GgufSummary }> {
  const dir = await modelsDir();
  const key = await keyOf(url);
  let response: Response;
  try {
    response = await fetch(url, { signal: signal ?? null, cache: "no-store" });
  } catch (e) {
    if (signal?.aborted) throw loadAbortedError();
    throw fetchFailed(url, (e as Error).message);
  }
  if (!response.ok || !response.body) throw fetchFailed(url, `the server answered HTTP ${response.status}`, { status: response.status });
  const total = Number(response.headers.get("content-length")) || 0;
  const estimate = await navigator.storage.estimate?.().catch(() => undefined);
  if (total && estimate?.quota !== undefined && estimate.usage !== undefined && estimate.quota - estimate.usage < total) {
    await response.body.cancel().catch(() => undefined);
    throw new EdgeError("storage_failed", { needed: total, available: estimate.quota - estimate.usage }, `The model needs ${(total / 1e6).toFixed(0)} MB but this site may store only ${((estimate.quota - estimate.usage) / 1e6).toFixed(0)} MB more; delete cached models or free disk space.`);
  }
  // Anything left by an earlier attempt (or a stale entry for another pin) goes first.
  await deleteStoredModel(key);
  const part = `${key}.part`;
  let placed = false;
  try {
    const handle = await dir.getFileHandle(part, { create: true });
    const writable = await handle.createWritable();
    let result: { sha: string; size: number };
    try {
      result = await streamToDisk(url, response.body, total, writable, onProgress, signal);
      await writable.close();
    } catch (e) {
      await writable.abort().catch(() => undefined);
      throw e;
    }
    const file = await handle.getFile();
    const summary = await readGgufSummary(blobBytes(file), name);
    if (pin && pin !== result.sha) throw integrityError(name, pin, result.sha);
    await (handle as FileSystemFileHandle & { move(name: string): Promise<void> }).move(`${key}.gguf`);
    placed = true;
    const meta: StoredModel = { key, url, sha256: result.sha, size: result.size, name, stored_at: new Date().toISOString() };
    const metaHandle = await dir.getFileHandle(`${key}.json`, { create: true });
    const w = await metaHandle.createWritable();
    await w.write(JSON.stringify(meta));
    await w.close();
    return { meta, file: await (await dir.getFileHandle(`${key}.gguf`)).getFile(), summary };
  } catch (e) {
    await remove(dir, part);
    if (placed) await deleteStoredModel(key);
    throw e;
  }
}

/** sha256 (hex) of a Blob, streamed. */
export async function hashBlob(blob: Blob, onProgress?: (p: DownloadProgress) => void, signal?: AbortSignal): Promise<string> {
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
