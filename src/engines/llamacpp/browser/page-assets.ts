// wllama's wasm (and its compat build's worker script and wasm), served from the app's own origin
// as Vite assets — kept separate files even in the widget's library build (`no-inline`), never a
// CDN — and resolved against this module: in the widget, the asset host, not the page.
import wasm from "@wllama/wllama/esm/wasm/wllama.wasm?url&no-inline";
// Browsers without JSPI or Memory64 (Safari) need wllama's compat build: fetched only there.
import compatWasm from "@wllama/wllama-compat/wasm/wllama.wasm?url&no-inline";
import compatWorker from "@wllama/wllama-compat/wasm/wllama.js?url&no-inline";
import type { WllamaAssets } from "./page-model.ts";

const here = (url: string) => new URL(url, import.meta.url).href;

export const WLLAMA_ASSETS: WllamaAssets = { wasm: here(wasm), compat: { worker: here(compatWorker), wasm: here(compatWasm) } };
