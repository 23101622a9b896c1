// The llama.cpp worker's side (runs inside workers/llamacpp.worker.ts): a model's bytes, off the
// page — the stored copy, a download into the store (streamed while hashed), or a file from disk
// (hashed) — checked (GGUF header, sha256 against the pin) and handed to the page, which loads them
// into wllama (page-model.ts); and wllama's own files. Those are fetched here, not by wllama's
// worker: a worker started from a URL is served by the app's service worker (so the files are
// cached for offline use) even on a first visit, whose page the service worker does not control
// yet — and wllama's worker, started by that page from a blob: URL, is then not served by it
// (measured in Chromium, Firefox and WebKit).
import { EdgeError } from "../../../contract/errors.ts";
import { loadAbortedError, type LoadProgress } from "../../engine.ts";
import { modelIdOf } from "../engine.ts";
import { readGgufSummary } from "../gguf.ts";
import { integrityError, pinHex, pumpDownload } from "../download.ts";
import { blobBytes, downloadModel, hashBlob, modelStorage, storedModel } from "./model-store.ts";
import type { LlamaWorkerApi, ModelBytes, WorkerModelSource } from "./protocol.ts";

const mb = (n: number) => (n / 1e6).toFixed(1);

/** A store step that reads or writes the whole file says it is still running every TICK_MS: it
 *  reports nothing of its own (after a download's last byte, WebKit's IndexedDB store was silent
 *  13 s checking and committing a 491 MB model here, growing with the file). For at most
 *  STORE_STEP_MAX_MS: a store that never answers then goes silent, and the load's stall watch ends
 *  it (stall-watch.ts). A step that blocks the worker's thread cannot say anything (WebKit reading a
 *  stored copy kept as bytes: docs/engines.md, "A load that stalls"). */
const TICK_MS = 5_000;
const STORE_STEP_MAX_MS = 5 * 60_000;

function ticker(report: () => void): { stop(): void } {
  const started = Date.now();
  const timer = setInterval(
    () => (Date.now() - started > STORE_STEP_MAX_MS ? clearInterval(timer) : report()),
    TICK_MS,
  );
  return { stop: () => clearInterval(timer) };
}

type Report = (p: LoadProgress) => void;

/** The stored copy of a URL's model, when there is one that matches the pin. */
async function storedBytes(
  url: string,
  pin: string | undefined,
  name: string,
  onProgress: Report,
): Promise<ModelBytes | undefined> {
  const opening = ticker(() =>
    onProgress({ progress: 0, text: `Opening the stored copy of ${name}…`, phase: "download" }),
  );
  const stored = await storedModel(url, pin).finally(opening.stop);
  if (!stored) return undefined;
  onProgress({
    progress: 0.7,
    text: `Using the stored copy of ${name} (${mb(stored.meta.size)} MB).`,
    phase: "download",
  });
  return { file: stored.file, sha: stored.meta.sha256, summary: await readGgufSummary(blobBytes(stored.file), name) };
}

/** A download into the store: its bytes fill 0–0.7 of the bar; once the last byte is in, the
 *  check and the store's commit say they are still running. */
async function downloadedBytes(
  url: string,
  pin: string | undefined,
  name: string,
  onProgress: Report,
  signal: AbortSignal,
): Promise<ModelBytes> {
  const keeps = (await modelStorage()) === "none" ? " (not stored: this browser cannot keep it here)" : "";
  let storing: { stop(): void } | undefined;
  const report = (p: { loaded: number; total: number }): void => {
    onProgress({
      progress: p.total ? 0.7 * (p.loaded / p.total) : 0,
      text: `Downloading ${name}: ${mb(p.loaded)} of ${p.total ? mb(p.total) : "?"} MB${keeps}`,
      phase: "download",
    });
    if (p.total && p.loaded >= p.total)
      storing ??= ticker(() =>
        onProgress({ progress: 0.7, text: `Checking ${name} and storing it…`, phase: "download" }),
      );
  };
  const got = await downloadModel(url, name, pin, report, signal).finally(() => storing?.stop());
  return { file: got.file, sha: got.meta.sha256, summary: got.summary };
}

/** The model's checked bytes: download or hash progress fills 0–0.7 of the bar. */
async function modelBytes(
  source: WorkerModelSource,
  name: string,
  onProgress: Report,
  signal: AbortSignal,
): Promise<ModelBytes> {
  const pin = pinHex(source.sha256);
  if (source.kind === "url")
    return (
      (await storedBytes(source.url, pin, name, onProgress)) ??
      downloadedBytes(source.url, pin, name, onProgress, signal)
    );
  const summary = await readGgufSummary(blobBytes(source.blob), name);
  const sha = await hashBlob(
    source.blob,
    (p) => onProgress({ progress: 0.7 * (p.loaded / p.total), text: `Checking ${name} (sha256)`, phase: "download" }),
    signal,
  );
  if (pin && pin !== sha) throw integrityError(name, pin, sha);
  return { file: source.blob, sha, summary };
}

function runtimeUnreachable(url: string, reason: string): EdgeError {
  const file = url.split(/[?#]/)[0]!.split("/").pop();
  return new EdgeError(
    "model_load_failed",
    { stage: "runtime", url, reason },
    `llama.cpp's runtime (${file}) could not be fetched: ${reason}. Check the connection and load the model again.`,
  );
}

/** One of wllama's files (its wasm, the compat build's script), as the server sent it, its bytes
 *  reported as they come (10–19 MB: a minute or more on a slow connection). */
async function runtimeFile(
  url: string,
  onBytes: (p: { loaded: number; total: number }) => void,
  signal: AbortSignal,
): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(url, { signal });
  } catch (e) {
    throw signal.aborted ? loadAbortedError() : runtimeUnreachable(url, (e as Error).message);
  }
  if (!response.ok || !response.body) throw runtimeUnreachable(url, `the server answered HTTP ${response.status}`);
  const total = Number(response.headers.get("content-length")) || 0;
  const parts: Uint8Array<ArrayBuffer>[] = [];
  try {
    await pumpDownload(
      url,
      response.body,
      total,
      (chunk) => void parts.push(chunk as Uint8Array<ArrayBuffer>),
      (loaded) => onBytes({ loaded, total }),
      signal,
    );
  } catch (e) {
    throw e instanceof EdgeError && e.code === "model_fetch_failed"
      ? runtimeUnreachable(url, String(e.details["reason"]))
      : e;
  }
  return new Blob(parts, { type: response.headers.get("content-type") ?? "" });
}

/** The worker serves one load attempt: abort() stops whatever it does. */
export function createLlamaWorkerApi(): LlamaWorkerApi {
  const controller = new AbortController();
  return {
    bytes: (source, onProgress) => modelBytes(source, modelIdOf(source), onProgress, controller.signal),
    file: (url, onBytes) => runtimeFile(url, onBytes, controller.signal),
    abort: () => controller.abort(),
  };
}
