// Modules provided by plugins in vite.config.ts, and one Pyodide entry without its own types.

/** The runner worker (workers/runner.worker.ts and its imports) bundled as one classic script. */
declare module "virtual:edge-runner-worker" {
  const code: string;
  export default code;
}

/** Pyodide's Emscripten module factory (bundled into the runner worker; the package ships no
 *  types for this entry). Passed to loadPyodide as `createPyodideModule`. */
declare module "pyodide/pyodide.asm.mjs" {
  import type { PyodideConfig } from "pyodide";
  const createPyodideModule: NonNullable<PyodideConfig["createPyodideModule"]>;
  export default createPyodideModule;
}
