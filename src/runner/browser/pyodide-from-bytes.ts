// Worker side (runs inside the sandboxed runner worker, never in the page): boot Pyodide with no
// network at all, from bytes the sandbox frame handed over.
//
// The worker lives in an opaque-origin frame whose CSP has `connect-src 'none'` and no blob: or
// data: in `script-src`: it can load no script and fetch nothing. So Pyodide's JavaScript
// (pyodide.mjs and pyodide.asm.mjs) is bundled into the worker script itself (the
// `edgeRunnerWorkerBundle` plugin in vite.config.ts), and for the duration of loadPyodide() only:
//   * `fetch` answers the placeholder URL of python_stdlib.zip from bytes;
//   * `WebAssembly.instantiateStreaming` instantiates the module the frame compiled once, so no
//     job pays for compiling 9.6 MB of wasm again (wasm compiled from bytes gets no code cache).
// Both are put back before loadPyodide() returns, i.e. before any runner or tool code runs. They
// are conveniences, not a boundary: the boundary is the frame's origin and CSP.
import { loadPyodide } from "pyodide";
import createPyodideModule from "pyodide/pyodide.asm.mjs";
import type { PyodideAssets } from "../../../workers/protocol.ts";

/** Pyodide's placeholder origin. `.invalid` can never resolve (RFC 2606), and the CSP blocks it
 *  anyway. vite.config.ts substitutes the same origin for `import.meta.url` in Pyodide's modules. */
const PLACEHOLDER_INDEX_URL = "https://pyodide.invalid/";

/** The Pyodide files a boot message must carry as bytes (the wasm comes compiled). */
const REQUIRED_PYODIDE_FILES = ["python_stdlib.zip"] as const;

const CONTENT_TYPES: Record<string, string> = {
  "python_stdlib.zip": "application/zip",
  "pyodide.asm.wasm": "application/wasm",
};

/** The subset of Pyodide's loadPyodide options the runner passes through. */
export interface BootOptions {
  /** Pyodide takes the bytes or a promise of them (a browser runner always has the bytes). */
  _loadSnapshot?: Uint8Array | Promise<Uint8Array>;
  _makeSnapshot?: boolean;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  [option: string]: unknown;
}

/**
 * Load Pyodide from transferred bytes. `wasmModule` is the frame's compiled pyodide.asm.wasm;
 * without it the wasm bytes must be in `assets.files` and are compiled here.
 */
export async function loadPyodideFromBytes(
  assets: PyodideAssets,
  wasmModule: WebAssembly.Module | undefined,
  options: BootOptions = {},
): Promise<unknown> {
  if (assets.kind !== "bytes") throw new Error(`sandboxed runner needs Pyodide as bytes, got ${assets.kind}`);
  const files = assets.files;
  if (typeof assets.lockFileContents !== "string") throw new Error("Pyodide lock file missing from boot message");
  for (const name of REQUIRED_PYODIDE_FILES) {
    if (!(files[name] instanceof Uint8Array)) throw new Error(`Pyodide file missing from boot message: ${name}`);
  }
  const wasmBytes = files["pyodide.asm.wasm"];
  const module =
    wasmModule ?? (wasmBytes ? await WebAssembly.compile(wasmBytes as Uint8Array<ArrayBuffer>) : undefined);
  if (!module) throw new Error("Pyodide wasm missing: neither a compiled module nor pyodide.asm.wasm bytes were given");

  const scope: { fetch: typeof fetch } = globalThis;
  const realFetch = scope.fetch;
  const realInstantiateStreaming = WebAssembly.instantiateStreaming;
  try {
    scope.fetch = async (input: RequestInfo | URL): Promise<Response> => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      const name = url.startsWith(PLACEHOLDER_INDEX_URL) ? url.slice(PLACEHOLDER_INDEX_URL.length) : "";
      if (name === "pyodide.asm.wasm") {
        // Never compiled from here: instantiateStreaming below uses the precompiled module.
        return new Response(new Uint8Array(0), { headers: { "Content-Type": "application/wasm" } });
      }
      const body = files[name];
      if (!body) throw new TypeError(`offline runner: no bundled file for ${url}`);
      return new Response(body as Uint8Array<ArrayBuffer>, {
        headers: { "Content-Type": CONTENT_TYPES[name] ?? "application/octet-stream" },
      });
    };
    WebAssembly.instantiateStreaming = (async (_source: unknown, imports?: WebAssembly.Imports) => ({
      module,
      instance: await WebAssembly.instantiate(module, imports),
    })) as typeof WebAssembly.instantiateStreaming;

    return await loadPyodide({
      indexURL: PLACEHOLDER_INDEX_URL,
      lockFileContents: assets.lockFileContents,
      packageBaseUrl: PLACEHOLDER_INDEX_URL,
      createPyodideModule,
      checkAPIVersion: true,
      ...options,
    });
  } finally {
    scope.fetch = realFetch;
    WebAssembly.instantiateStreaming = realInstantiateStreaming;
  }
}
