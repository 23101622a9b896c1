// Model files in Node: a local GGUF is checked where it is; a URL is downloaded into the model
// cache ($EDGE_DATA_DIR/models) atomically — into a temp file beside the cache entry, hashed while
// it streams, checked (GGUF header, the pinned sha256), and only then renamed into place. An
// error, a wrong hash or an abort leaves no partial entry. A cached file is re-hashed before each
// use, so the sha256 in receipts is always the file that was loaded.
import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { EdgeError } from "../../../contract/errors.ts";
import { loadAbortedError, type LoadProgress } from "../../engine.ts";
import type { ModelSource, PreparedModel } from "../backend.ts";
import { readGgufSummary, type ByteSource } from "../gguf.ts";
import { fetchFailed, integrityError, pinHex, pumpDownload } from "../download.ts";
import { modelIdOf } from "../engine.ts";

export interface PreparedFile extends PreparedModel {
  path: string;
}

type Progress = ((p: LoadProgress) => void) | undefined;

async function fileBytes(file: string): Promise<ByteSource & { close(): Promise<void> }> {
  const handle = await open(file, "r");
  const { size } = await handle.stat();
  return {
    size,
    async read(offset, length) {
      const buf = Buffer.alloc(Math.min(length, size - offset));
      const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
      return new Uint8Array(buf.buffer, buf.byteOffset, bytesRead);
    },
    close: () => handle.close(),
  };
}

/** Check the GGUF header of a file (model_not_gguf / model_truncated). */
async function checkHeader(file: string, name: string): Promise<PreparedModel["summary"]> {
  const bytes = await fileBytes(file);
  try {
    return await readGgufSummary(bytes, name);
  } finally {
    await bytes.close();
  }
}

/** sha256 of a file, streamed, reporting progress between `from` and `to` of the bar. */
async function hashFile(
  file: string,
  size: number,
  onProgress: Progress,
  signal: AbortSignal | undefined,
  range: [number, number],
): Promise<string> {
  const hash = createHash("sha256");
  let done = 0;
  let lastReport = 0;
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (signal?.aborted) {
      stream.destroy();
      throw loadAbortedError();
    }
    hash.update(chunk);
    done += chunk.length;
    if (onProgress && (done - lastReport > 16 << 20 || done === size)) {
      lastReport = done;
      const f = size ? done / size : 1;
      onProgress({
        progress: range[0] + (range[1] - range[0]) * f,
        text: `Checking the model file (sha256) ${Math.round(f * 100)}%`,
        phase: "download",
      });
    }
  }
  return hash.digest("hex");
}

/** A local GGUF file: header check, then its sha256 (and the pin, when one is given). */
export async function prepareLocalFile(
  source: Extract<ModelSource, { kind: "file" }>,
  onProgress: Progress,
  signal?: AbortSignal,
): Promise<PreparedFile> {
  const id = modelIdOf(source);
  let size: number;
  try {
    size = (await stat(source.path)).size;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      throw new EdgeError(
        "unknown_model",
        { model: source.path },
        `No model file at ${source.path}; pass an existing GGUF file, an http(s) URL, or a catalog model name.`,
      );
    throw new EdgeError(
      "model_load_failed",
      { path: source.path, original: String(e) },
      `The model file ${source.path} could not be read: ${(e as Error).message}. Check the path and its permissions.`,
    );
  }
  const summary = await checkHeader(source.path, id);
  const sha = await hashFile(source.path, size, onProgress, signal, [0, 0.5]);
  const pinned = pinHex(source.sha256);
  if (pinned && pinned !== sha) throw integrityError(id, pinned, sha);
  return { id, path: source.path, sha256: `sha256:${sha}`, size, summary };
}

interface CacheMeta {
  url: string;
  sha256: string;
  size: number;
  downloaded_at: string;
}

/** The cache entry for a URL: `<key>.gguf` plus `<key>.json` (url, sha256, size). */
function cacheEntry(cacheDir: string, url: string): { file: string; meta: string } {
  const key = createHash("sha256").update(url).digest("hex").slice(0, 24);
  return { file: path.join(cacheDir, `${key}.gguf`), meta: path.join(cacheDir, `${key}.json`) };
}

async function readMeta(file: string): Promise<CacheMeta | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as CacheMeta;
  } catch {
    return undefined;
  }
}

async function removeEntry(entry: { file: string; meta: string }): Promise<void> {
  await unlink(entry.meta).catch(() => undefined);
  await unlink(entry.file).catch(() => undefined);
}

/** Stream the URL into `tmp`, hashing as it goes; returns the hex sha256 and the byte count. */
async function download(
  url: string,
  tmp: string,
  onProgress: Progress,
  signal?: AbortSignal,
): Promise<{ sha: string; size: number }> {
  let response: Response;
  try {
    response = await fetch(url, signal ? { signal } : {});
  } catch (e) {
    if (signal?.aborted) throw loadAbortedError();
    throw fetchFailed(url, (e as Error).message);
  }
  if (!response.ok || !response.body)
    throw fetchFailed(url, `the server answered HTTP ${response.status}`, { status: response.status });
  const total = Number(response.headers.get("content-length")) || 0;
  const hash = createHash("sha256");
  const out = await open(tmp, "wx", 0o600);
  let lastReport = -1;
  let size: number;
  try {
    size = await pumpDownload(
      url,
      response.body,
      total,
      async (chunk) => {
        hash.update(chunk);
        await out.write(chunk);
      },
      (loaded) => {
        const f = total ? Math.min(1, loaded / total) : 0;
        if (!onProgress || Math.floor(f * 100) === lastReport) return;
        lastReport = Math.floor(f * 100);
        onProgress({
          progress: 0.5 * f,
          text: `Downloading the model: ${(loaded / 1e6).toFixed(1)} of ${total ? (total / 1e6).toFixed(1) : "?"} MB`,
          phase: "download",
        });
      },
      signal,
    );
    await out.sync();
  } finally {
    await out.close();
  }
  return { sha: hash.digest("hex"), size };
}

/** A URL: from the cache when present and intact, else downloaded into it. */
export async function prepareUrl(
  source: Extract<ModelSource, { kind: "url" }>,
  cacheDir: string,
  onProgress: Progress,
  signal?: AbortSignal,
): Promise<PreparedFile> {
  const id = modelIdOf(source);
  const pinned = pinHex(source.sha256);
  const entry = cacheEntry(cacheDir, source.url);
  const meta = await readMeta(entry.meta);
  if (meta?.url === source.url && (!pinned || meta.sha256 === pinned)) {
    const size = await stat(entry.file).then(
      (s) => s.size,
      () => -1,
    );
    if (size === meta.size) {
      const sha = await hashFile(entry.file, size, onProgress, signal, [0, 0.5]);
      if (sha === meta.sha256)
        return { id, path: entry.file, sha256: `sha256:${sha}`, size, summary: await checkHeader(entry.file, id) };
    }
  }
  // Not cached, damaged, or cached for another pin: replace it.
  await removeEntry(entry);
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const tmp = `${entry.file}.${process.pid}.${randomBytes(6).toString("hex")}.part`;
  const metaTmp = `${entry.meta}.${process.pid}.tmp`;
  let placed = false;
  try {
    const { sha, size } = await download(source.url, tmp, onProgress, signal);
    const summary = await checkHeader(tmp, id);
    if (pinned && pinned !== sha) throw integrityError(id, pinned, sha);
    const record: CacheMeta = { url: source.url, sha256: sha, size, downloaded_at: new Date().toISOString() };
    await writeFile(metaTmp, JSON.stringify(record, null, 2), { mode: 0o600 });
    // The .gguf is only an entry once its .json is there: place the file, then the record.
    await rename(tmp, entry.file);
    placed = true;
    await rename(metaTmp, entry.meta);
    return { id, path: entry.file, sha256: `sha256:${sha}`, size, summary };
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    await unlink(metaTmp).catch(() => undefined);
    if (placed) await unlink(entry.file).catch(() => undefined);
    throw e;
  }
}
