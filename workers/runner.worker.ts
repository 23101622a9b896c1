// Browser entry of a runner worker. It is bundled (with runner-core, the Pyodide-from-bytes
// loader and Pyodide's own JavaScript) into ONE classic script by the `edge-runner-worker-bundle`
// Vite plugin, and started by the sandbox frame from a blob: URL, one worker per job. It must stay
// classic-worker-compatible: no top-level await, no imports left after bundling. The worker can
// load no other script: its CSP (inherited from the frame) has no blob: or data: in script-src.
//
// Message order set by the frame: first {type: "edge-sandbox-wasm", module} (the frame's
// compiled pyodide.asm.wasm), then the host's boot message (Pyodide's files filled in by the
// frame), then one job. Everything is handled by one listener installed synchronously here.
import type { PyodideAPI } from "pyodide";
import { loadPyodideFromBytes } from "../src/runner/browser/pyodide-from-bytes.ts";
import { lockTrustedTypes } from "../src/runner/browser/trusted-types.ts";
import type { HostToWorker, WorkerToHost } from "./protocol.ts";
import { startRunnerWorker } from "./runner-core.ts";

interface WorkerScope {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
  close(): void;
}

const scope: WorkerScope = self;

// At start-up, long before any tool code exists: no script URLs from strings in this worker
// (src/runner/browser/trusted-types.ts).
lockTrustedTypes();

// Captured at start-up: later lookups could hit something tool code replaced.
const send = scope.postMessage.bind(scope) as (msg: WorkerToHost, transfer?: Transferable[]) => void;
const listen = scope.addEventListener.bind(scope);

let wasmModule: WebAssembly.Module | undefined;
let resolveWasm: (m: WebAssembly.Module | undefined) => void = () => {};
const wasmReady = new Promise<WebAssembly.Module | undefined>((resolve) => (resolveWasm = resolve));
let handler: ((msg: HostToWorker) => void) | undefined;
let sawFirst = false;

listen("message", (event: MessageEvent) => {
  const data: unknown = event.data;
  if (!sawFirst) {
    sawFirst = true;
    const first = data as { type?: unknown; module?: unknown } | null;
    if (first && first.type === "edge-sandbox-wasm") {
      wasmModule = first.module instanceof WebAssembly.Module ? first.module : undefined;
      resolveWasm(wasmModule);
      return;
    }
    resolveWasm(undefined);
  }
  handler?.(data as HostToWorker);
});

startRunnerWorker(
  {
    postMessage: (msg, transfer) => send(msg, transfer),
    onMessage: (h) => {
      handler = h;
    },
  },
  async (assets, options) => {
    const py = (await loadPyodideFromBytes(assets, await wasmReady, { ...options })) as PyodideAPI;
    releaseSnapshot(options._loadSnapshot);
    return py;
  },
);

/** The memory snapshot (≈ 31 MB) is copied into the interpreter's heap while it boots and never
 *  read again. Left to the garbage collector, an idle spare (which allocates nothing) keeps it
 *  for as long as it waits; detaching its buffer frees it now. */
function releaseSnapshot(snapshot: Uint8Array | Promise<Uint8Array> | undefined): void {
  if (!(snapshot instanceof Uint8Array)) return;
  const buffer = snapshot.buffer as (ArrayBuffer & { transfer?: (length: number) => ArrayBuffer }) | undefined;
  buffer?.transfer?.(0);
}
