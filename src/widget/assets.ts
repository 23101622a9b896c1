// Where the widget's own files live. The widget runs on a page of ANOTHER origin than its assets
// (a docs site includes <script type="module" src="https://assets.example/edge-chat.js">), so
// nothing may be resolved against the page: Pyodide's files and the llm worker are found next to
// this module (import.meta.url) and fetched with CORS. In the playground's own build and the dev
// server (MODE !== "widget") the app serves Pyodide under its base URL as usual.
import llmWorkerUrl from "../../workers/llm.worker.ts?worker&url";
import llamaWorkerUrl from "../../workers/llamacpp.worker.ts?worker&url";

/** True in the widget's library build (vite.widget.config.ts sets mode "widget"). */
const WIDGET_BUILD = import.meta.env.MODE === "widget";

/** Where Pyodide's files are fetched from: `<asset base>pyodide/` in the widget build. */
export function pyodideBaseUrl(): string {
  // Pyodide's files are copied next to the widget at build time (not bundled): resolved at runtime.
  if (WIDGET_BUILD) return new URL(/* @vite-ignore */ "./pyodide/", import.meta.url).href;
  const base = (import.meta.env.BASE_URL as string | undefined) ?? "/";
  return new URL(`${base}pyodide/`, location.href).href;
}

/** The llm worker's script URL, absolute. */
export function llmWorkerScriptUrl(): string {
  return new URL(llmWorkerUrl, import.meta.url).href;
}

/** The llama.cpp worker's script URL, absolute. */
export function llamaWorkerScriptUrl(): string {
  return new URL(llamaWorkerUrl, import.meta.url).href;
}

/**
 * Start a model worker (web-llm's or llama.cpp's). `new Worker(url)` needs a same-origin URL, and the widget's script
 * is usually cross-origin, so the worker starts from a same-origin blob: module that imports the
 * real worker module from the asset host (a module import may cross origins with CORS). The
 * worker module installs its message handler during its own evaluation, which completes before
 * the blob module runs, so no message is lost.
 */
export function createCrossOriginModuleWorker(scriptUrl: string, name: string): Worker {
  const url = new URL(scriptUrl, location.href);
  if (url.origin === location.origin) return new Worker(url, { type: "module", name });
  const blob = new Blob([`import ${JSON.stringify(url.href)};\n`], { type: "text/javascript" });
  const blobUrl = URL.createObjectURL(blob);
  try {
    return new Worker(blobUrl, { type: "module", name });
  } finally {
    // The worker has its own reference to the script once constructed; revoke after a tick.
    setTimeout(() => URL.revokeObjectURL(blobUrl), 30_000);
  }
}
