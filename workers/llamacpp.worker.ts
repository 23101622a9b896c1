// The llama.cpp worker: one model in wllama (llama.cpp in WebAssembly), driven by the page through
// comlink (src/engines/llamacpp/browser/backend.ts). One worker per loaded model: the page ends it
// when the model is unloaded or its load failed, so nothing of a failed load survives.
// wllama's wasm is served from the app's own origin (a Vite asset, kept a separate file even in the
// widget's library build: `no-inline`), never a CDN.
import * as Comlink from "comlink";
import wasm from "@wllama/wllama/esm/wasm/wllama.wasm?url&no-inline";
// Browsers without JSPI or Memory64 (Safari) need wllama's compat build: fetched only there.
import compatWasm from "@wllama/wllama-compat/wasm/wllama.wasm?url&no-inline";
import compatWorker from "@wllama/wllama-compat/wasm/wllama.js?url&no-inline";
import { installEdgeErrorTransfer } from "../src/engines/llamacpp/browser/comlink-errors.ts";
import type { LlamaWorkerApi } from "../src/engines/llamacpp/browser/protocol.ts";
import { createLlamaWorkerApi } from "../src/engines/llamacpp/browser/worker-api.ts";

installEdgeErrorTransfer();
// Resolved against this module (not the worker's location: in the widget it starts from a blob: URL).
const here = (url: string) => new URL(url, import.meta.url).href;
const api = createLlamaWorkerApi({ wasm: here(wasm), compat: { worker: here(compatWorker), wasm: here(compatWasm) } });

/** The page's callbacks arrive as comlink proxies (one message port each): release them when done. */
function releasing<T>(work: Promise<T>, callback: unknown): Promise<T> {
  return work.finally(() => (callback as { [Comlink.releaseProxy]?: () => void })[Comlink.releaseProxy]?.());
}

/** Text pieces go to the page at most every 16 ms (the first at once), then the end mark: each
 *  message wakes the page, and on a busy machine a wake-up per token slowed decoding measurably. */
function textSender(port: MessagePort): { send(delta: string): void; end(): void } {
  let pending = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  let first = true;
  const flush = () => {
    timer = undefined;
    if (pending) port.postMessage(pending);
    pending = "";
  };
  return {
    send(delta) {
      pending += delta;
      if (first) {
        first = false;
        flush();
      } else timer ??= setTimeout(flush, 16);
    },
    end() {
      if (timer) clearTimeout(timer);
      flush();
      port.postMessage(null);
      port.close();
    },
  };
}

const exposed: LlamaWorkerApi = {
  load: (source, options, onProgress) => releasing(api.load(source, options, onProgress), onProgress),
  generate: (request, port) => {
    const text = textSender(port);
    return api.generate(request, text.send).finally(text.end);
  },
  warmPrefix: (messages) => api.warmPrefix(messages),
  abort: () => api.abort(),
  unload: () => api.unload(),
};
Comlink.expose(exposed);
