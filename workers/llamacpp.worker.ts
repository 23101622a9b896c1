// The llama.cpp worker: a model's bytes, off the page — downloaded into the device's store while
// hashed, or a file from disk hashed — checked and handed to the page as a Blob, and wllama's own
// files (its wasm), driven through comlink (src/engines/llamacpp/browser/worker-session.ts). One
// worker per load attempt, ended once the model is loaded. wllama itself runs from the page
// (src/engines/llamacpp/browser/page-model.ts), so the worker wllama starts is never nested in this one.
import * as Comlink from "comlink";
import { installEdgeErrorTransfer } from "../src/engines/llamacpp/browser/comlink-errors.ts";
import type { LlamaWorkerApi } from "../src/engines/llamacpp/browser/protocol.ts";
import { createLlamaWorkerApi } from "../src/engines/llamacpp/browser/worker-api.ts";

installEdgeErrorTransfer();
const api = createLlamaWorkerApi();

/** The page's callbacks arrive as comlink proxies (one message port each): release them when done. */
function releasing<T>(work: Promise<T>, callback: unknown): Promise<T> {
  return work.finally(() =>
    (callback as { [Comlink.releaseProxy]?: () => void } | undefined)?.[Comlink.releaseProxy]?.(),
  );
}

const exposed: LlamaWorkerApi = {
  bytes: (source, onProgress) => releasing(api.bytes(source, onProgress), onProgress),
  file: (url, onBytes) => releasing(api.file(url, onBytes), onBytes),
  abort: () => api.abort(),
};
Comlink.expose(exposed);
