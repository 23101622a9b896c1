// wllama's wasm and worker script (and its compat build's), served from the app's own origin as
// Vite assets — kept separate files even in the widget's library build (`no-inline`), never a
// CDN — and resolved against this module: in the widget, the asset host, not the page. The default
// build's script is the Emscripten glue wllama embeds in its bundle, as the file its package ships
// (thread-prelude.test.ts checks they are the same): Edge hands wllama the script with its thread
// prelude first (page-model.ts).
import wasm from "@wllama/wllama/esm/wasm/wllama.wasm?url&no-inline";
import worker from "@wllama/wllama/src/wasm/wllama.js?url&no-inline";
// Browsers without JSPI or Memory64 (Safari) need wllama's compat build: fetched only there.
import compatWasm from "@wllama/wllama-compat/wasm/wllama.wasm?url&no-inline";
import compatWorker from "@wllama/wllama-compat/wasm/wllama.js?url&no-inline";
import type { WllamaAssets } from "./page-model.ts";

const here = (url: string) => new URL(url, import.meta.url).href;

export const WLLAMA_ASSETS: WllamaAssets = {
  wasm: here(wasm),
  worker: here(worker),
  compat: { worker: here(compatWorker), wasm: here(compatWasm) },
};
