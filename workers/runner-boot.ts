// The boot of a runner worker: Pyodide loaded (fresh, or from a memory snapshot), the runner's
// Python files written under PYTHON_ROOT and edge_runner imported, its entry points captured once
// (tool code can later replace the module's attributes, so they are never looked up again); or,
// for the snapshot maker, the snapshot taken and posted. A spare may then warm the job's code path
// up (preload passes and one rehearsal call) until a job or a "hurry" arrives.
import type { PyodideAPI } from "pyodide";
import type { BoundedText } from "./bounded-text.ts";
import { hmacSha256Hex, sha256Hex } from "./hmac-sha256.ts";
import type { BootMessage, PyodideAssets, PythonFiles, WorkerToHost } from "./protocol.ts";
import { PYTHON_ROOT, type MemFs } from "./runner-mounts.ts";
import { packageInstaller, type PackageInstaller } from "./runner-packages.ts";
import { safeParse } from "./runner-replies.ts";

/** Options the boot asks the environment's loader to pass to `loadPyodide` (plus its own asset options). */
export interface RunnerLoadOptions {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: Record<string, string>;
  _makeSnapshot?: boolean;
  _loadSnapshot?: Uint8Array | Promise<Uint8Array>;
}

export type PyodideLoader = (assets: PyodideAssets, options: RunnerLoadOptions) => Promise<PyodideAPI>;

/** A python callable as seen from JS (a PyProxy): called with JS values, returns a JS value. */
export type PyCallable = ((...args: unknown[]) => unknown) & { destroy?: () => void };

/** What a booted worker keeps of its interpreter: edge_runner's entry points, captured at boot. */
export interface Runtime {
  discover: PyCallable;
  call: PyCallable;
  toBytes: PyCallable;
  /** Pyodide's own package installer (what loadPackage uses), captured at boot. */
  installer?: PackageInstaller;
}

/** What the boot needs from the worker (runner-core.ts), all captured before any tool code exists. */
export interface BootContext {
  post(msg: WorkerToHost, transfer?: ArrayBuffer[]): void;
  now(): number;
  /** Where Pyodide's output goes, whatever Python does to sys.stdout later. */
  sink: BoundedText;
  /** edge_runner.preload() passes of a spare's warm-up (RunnerWorkerHooks.warmUpPasses). */
  warmUpPasses: number;
  settle?: () => void;
  /** Whether a job or a "hurry" waits: it ends a spare's warm-up at the next pass. */
  waiting(): boolean;
  /** The runtime and Pyodide's file system, as soon as they exist (before a spare's warm-up). */
  booted(runtime: Runtime, fs: MemFs): void;
}

/** How a boot ended: the worker is ready (after `bootMs`), or it made and posted a snapshot. */
export type BootOutcome = { kind: "ready"; bootMs: number; fromSnapshot: boolean } | { kind: "snapshot" };

/** Boot Pyodide for one job (or for a snapshot). Throws when the boot fails. */
export async function bootPyodide(
  msg: BootMessage,
  snapshot: Uint8Array | Promise<Uint8Array> | undefined,
  loadPyodide: PyodideLoader,
  started: number,
  ctx: BootContext,
): Promise<BootOutcome> {
  const { sink, now, settle } = ctx;
  const makeSnapshot = msg.makeSnapshot === true;
  const fromSnapshot = !makeSnapshot && snapshot !== undefined;
  const options: RunnerLoadOptions = { stdout: sink.line, stderr: sink.line, env: { HOME: "/home/pyodide" } };
  if (makeSnapshot) options._makeSnapshot = true;
  if (fromSnapshot) options._loadSnapshot = snapshot;
  const py = await loadPyodide(msg.pyodide, options);
  // Captured output goes to the bounded sink whatever Python does to sys.stdout later.
  py.setStdout({ batched: sink.line });
  py.setStderr({ batched: sink.line });
  writePythonFiles(py, msg.pythonFiles);
  py.runPython(
    `import sys\nif ${JSON.stringify(PYTHON_ROOT)} not in sys.path:\n    sys.path.insert(0, ${JSON.stringify(PYTHON_ROOT)})`,
  );
  const mod = py.pyimport("edge_runner") as Record<string, PyCallable | undefined>;
  // From a snapshot, edge_runner and edgestudio come back already imported and preloaded.
  if (!fromSnapshot && typeof mod.preload === "function") callAndDrop(mod.preload);
  if (makeSnapshot) {
    (mod as { destroy?: () => void }).destroy?.();
    const bytes = py.makeMemorySnapshot();
    const buffer = bytes.buffer as ArrayBuffer;
    ctx.post({ type: "snapshot", bytes, bootMs: Math.round(now() - started) }, [buffer]);
    return { kind: "snapshot" };
  }
  const toBytes = py.runPython("lambda b: b.to_bytes()") as PyCallable;
  if (typeof mod.discover !== "function" || typeof mod.call !== "function")
    throw new Error("edge_runner lacks discover/call");
  const runtime: Runtime = { discover: mod.discover, call: mod.call, toBytes, installer: packageInstaller(py) };
  ctx.booted(runtime, py.FS as MemFs);
  releaseBootBytes(py, options, msg);
  const bootMs = Math.round(now() - started); // what follows is warm-up, not boot
  // A spare may warm its code up while nobody needs it (hooks.warmUpPasses); a job or a
  // "hurry" that arrives meanwhile ends the warm-up at the next pass.
  if (fromSnapshot && msg.warmUp === true && typeof mod.preload === "function") {
    for (let i = 0; i < ctx.warmUpPasses && !ctx.waiting(); i++) {
      callAndDrop(mod.preload);
      rehearseCall(runtime);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    if (!ctx.waiting()) settle?.();
  }
  return { kind: "ready", bootMs, fromSnapshot };
}

/** A small tools file a spare calls once through the job's own path (below). */
const REHEARSAL_TOOLS = `from typing import Literal
from edgestudio.tools import edge_tool

@edge_tool(intent_tags=["warm-up"])
def rehearse(amount: float, tier: Literal["a", "b"] = "a", note: str | None = None) -> dict:
    """Warm the runner's call path."""
    fee = round(amount * 0.019 + 0.30, 2)
    return {"amount": amount, "tier": tier, "fee": fee, "total": round(amount + fee, 2), "ok": True, "note": note}
`;

/**
 * One call of a rehearsal tool through exactly what a job runs in JavaScript: bytes to Python,
 * edge_runner.call through its proxy, the reply's JSON and its HMAC. edge_runner.preload() warms
 * the Python side only; in a runner process that compiled Pyodide's wasm and this script for
 * itself, the first conversion and proxy call otherwise cost the job ≈ 4 ms and the first HMAC
 * ≈ 1 ms (docs/runner.md). No tool code exists yet; edge_runner.call leaves no state behind.
 */
function rehearseCall(rt: Runtime): void {
  const bytes = new TextEncoder().encode(REHEARSAL_TOOLS);
  const source = rt.toBytes(bytes) as { destroy?: () => void };
  try {
    const reply = rt.call(
      source,
      `sha256:${sha256Hex(bytes)}`,
      "<rehearsal>",
      "rehearse",
      '{"amount": 120.5, "tier": "b"}',
      "rehearsal",
    );
    const parsed = typeof reply === "string" ? safeParse(JSON.parse, reply) : undefined;
    if (parsed?.ok !== true || typeof parsed.result_sha256 !== "string")
      throw new Error(`the rehearsal call failed: ${String(reply).slice(0, 500)}`);
    hmacSha256Hex("00".repeat(32), `rehearsal${parsed.result_sha256}`);
  } finally {
    source.destroy?.();
  }
}

/** What only the boot needed, unreferenced: the snapshot's bytes (ours, and Pyodide's copy of its
 *  options) and Pyodide's wasm instantiation hook, whose closure holds the ≈ 9.6 MB wasm file. */
function releaseBootBytes(py: PyodideAPI, options: RunnerLoadOptions, msg: BootMessage): void {
  delete options._loadSnapshot;
  delete msg.snapshot;
  const internals = py as { _api?: { config?: { _loadSnapshot?: unknown } }; _module?: { instantiateWasm?: unknown } };
  if (internals._api?.config) internals._api.config._loadSnapshot = undefined;
  if (internals._module) internals._module.instantiateWasm = undefined;
}

function writePythonFiles(py: PyodideAPI, files: PythonFiles): void {
  for (const [rel, text] of Object.entries(files)) {
    if (rel.startsWith("/") || rel.split("/").includes("..")) throw new Error(`bad python file path ${rel}`);
    const path = `${PYTHON_ROOT}/${rel}`;
    py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    py.FS.writeFile(path, text, { encoding: "utf8" });
  }
}

function callAndDrop(fn: PyCallable): void {
  const out = fn();
  (out as { destroy?: () => void } | undefined)?.destroy?.();
}
