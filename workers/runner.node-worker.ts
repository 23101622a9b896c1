// Node entry of a runner worker (worker_threads). Loads Pyodide from node_modules and hands the
// job logic to runner-core. Started by src/runner/node.ts with tsx registered in execArgv.
//
// Node is NOT a sandbox: tool code in this worker can reach Node APIs through Pyodide's JS bridge
// (see docs/runner.md). What the worker does guarantee is the one-job lifecycle, the bounded
// output, and that the reply path cannot be redirected by tool code.
import { parentPort } from "node:worker_threads";
import { loadPyodide } from "pyodide";
import { startRunnerWorker } from "./runner-core.ts";
import type { HostToWorker, WorkerToHost } from "./protocol.ts";

const port = parentPort;
if (!port) throw new Error("runner.node-worker.ts must run in a worker thread");

// Captured at start-up: later lookups could hit something tool code replaced.
const send = port.postMessage.bind(port) as (msg: WorkerToHost, transfer?: ArrayBuffer[]) => void;
const listen = port.on.bind(port);

// A dedicated browser worker has a global `postMessage` that tool code can call (`import js;
// js.postMessage(...)`). Mirror it so the host's defences against forged replies are exercised
// the same way in Node; it grants nothing a Node tool could not already do.
(globalThis as { postMessage?: unknown }).postMessage = (msg: unknown) => port.postMessage(msg);

startRunnerWorker(
  {
    postMessage: (msg, transfer) => send(msg, transfer),
    onMessage: (handler) => void listen("message", (msg: HostToWorker) => handler(msg)),
  },
  async (assets, options) => {
    if (assets.kind !== "indexURL") throw new Error("the Node runner loads Pyodide from an indexURL");
    const module = assets.wasmModule;
    if (!(module instanceof WebAssembly.Module)) return loadPyodide({ ...options, indexURL: assets.indexURL });
    // Pyodide instantiates its wasm from the file's bytes; hand it the host's compiled module
    // instead, for the duration of the load only (no tool code exists yet).
    const real = WebAssembly.instantiate;
    WebAssembly.instantiate = (async (_bytes: unknown, imports?: WebAssembly.Imports) => ({
      instance: await real(module, imports),
      module,
    })) as typeof WebAssembly.instantiate;
    try {
      return await loadPyodide({ ...options, indexURL: assets.indexURL });
    } finally {
      WebAssembly.instantiate = real;
    }
  },
);
