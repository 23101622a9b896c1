// Node entry of a runner: its own PROCESS, one per job, started by src/runner/node-process.ts
// with Node's permission model (reads limited to Pyodide's files; no writes, child processes,
// workers, addons, WASI or inspector), an empty environment, and its own stdio. The protocol
// travels as frames (frames.ts) on fd 3; fd 1 and 2 are pipes the host captures as the job's
// stderr. Plain TypeScript with no package imports: the host bundles this file with runner-core
// and frames into one script (a child under the permission model cannot run tsx, whose esbuild
// needs a child process of its own).
import { constants as fsConstants } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { Socket } from "node:net";
import os from "node:os";
import traceEvents from "node:trace_events";
import v8 from "node:v8";
import { pathToFileURL } from "node:url";
import type { PyodideAPI } from "pyodide";
import { encodeFrame, FrameReader, type FrameMessage } from "./frames.ts";
import type { HostToWorker } from "./protocol.ts";
import { startRunnerWorker, type RunnerLoadOptions } from "./runner-core.ts";

/** Largest frame the runner accepts from the host (a boot frame carries the ≈ 31 MB snapshot). */
const MAX_HOST_FRAME = 256 * 1024 * 1024;

/** edge_runner.preload() passes of a spare after its snapshot boot, which compile (Liftoff, lazily)
 *  the code a job runs. Measured (warm call p50 with --liftoff-only, 10 samples each, loaded
 *  machine): 0 passes 37 ms, 1 pass 18, 2 passes 23, 4 passes 24; each pass is CPU the spare
 *  spends while it waits, so 1. */
const WARM_UP_PASSES = 1;

/** Two members of `process` that @types/node leaves out (process.binding is deprecated). */
const internals = process as unknown as { binding(name: string): unknown; reallyExit(code: number): never };

confine();

const channel = new Socket({ fd: 3, readable: true, writable: true });
// Captured now: tool code can reach Node's prototypes, but not these references.
const write = channel.write.bind(channel);
// reallyExit, not exit: 'exit' listeners that tool code may have added do not run.
const exit = internals.reallyExit.bind(process);
const reader = new FrameReader(MAX_HOST_FRAME);
let deliver: ((msg: HostToWorker) => void) | undefined;

channel.on("data", (chunk: Buffer) => {
  let messages: FrameMessage[];
  try {
    messages = reader.push(chunk);
  } catch {
    return exit(70); // the host never sends a malformed frame; stop rather than guess
  }
  for (const msg of messages) deliver?.(msg as unknown as HostToWorker);
});
// The host closed the channel (it is gone, or done with this runner): nothing more to do.
channel.on("end", () => exit(0));
channel.on("error", () => exit(0));

startRunnerWorker(
  {
    postMessage: (msg) => {
      for (const chunk of encodeFrame(msg as unknown as FrameMessage)) write(chunk);
    },
    onMessage: (handler) => {
      deliver = handler;
    },
  },
  loadPyodideInProcess,
  // This process compiles Pyodide's wasm itself, lazily, and cannot share a warm copy with other
  // runners (threads could): a spare runs edge_runner.preload() again after its snapshot boot so
  // its job finds the code paths compiled (docs/runner.md, bench).
  { warmUpPasses: WARM_UP_PASSES },
);

async function loadPyodideInProcess(assets: { kind: string; indexURL?: string }, options: RunnerLoadOptions): Promise<PyodideAPI> {
  if (assets.kind !== "indexURL" || typeof assets.indexURL !== "string") throw new Error("the Node runner loads Pyodide from an indexURL");
  const { loadPyodide } = (await import(pathToFileURL(`${assets.indexURL}pyodide.mjs`).href)) as typeof import("pyodide");
  // Pyodide's NODEFS asks process.binding("constants") for the fs flags at start-up; under the
  // permission model process.binding is denied. Answer that one question for the duration of the
  // load (no tool code exists yet), then put the denying original back.
  const binding = internals.binding;
  internals.binding = (name: string) => (name === "constants" ? { fs: fsConstants } : binding.call(process, name));
  try {
    return await loadPyodide({ ...options, indexURL: assets.indexURL });
  } finally {
    internals.binding = binding;
  }
}

/**
 * What Node's permission model (Node 20–24) does not cover, closed before any tool code runs:
 * signals to other processes (process.kill of the CLI, or SIGUSR1, which opens a Node process's
 * inspector on 127.0.0.1:9229), process._debugProcess (the same through another door), renicing
 * other processes, trace_events (writes node_trace.*.log into the working folder, unchecked) and
 * v8.setFlagsFromString (e.g. --allow-natives-syntax). The replacements are not configurable, and
 * the originals stay unreachable: process.binding is denied by the permission model and Node's
 * internal bindings are not exposed.
 */
function confine(): void {
  const ownPid = process.pid;
  const proc = process as unknown as Record<string, (...args: unknown[]) => unknown>;
  const kill = proc.kill!.bind(process);
  const rawKill = proc._kill!.bind(process); // what process.kill calls, looked up at call time
  const denied = (what: string): Error => Object.assign(new Error(`${what} is not allowed in an Edge runner`), { code: "ERR_ACCESS_DENIED" });
  const lock = (target: object, key: string, value: unknown): void => {
    Object.defineProperty(target, key, { value, writable: false, configurable: false, enumerable: true });
  };
  // Only this process may be signalled (process.kill(process.pid) ends just this runner).
  const onlySelf = (fn: (...args: unknown[]) => unknown) => (pid: unknown, signal?: unknown) => {
    if (pid !== ownPid) throw denied("Signalling another process");
    return fn(pid, signal);
  };
  lock(process, "kill", onlySelf(kill));
  lock(process, "_kill", onlySelf(rawKill));
  for (const key of ["_debugProcess", "_debugEnd"]) lock(process, key, undefined);
  const setPriority = os.setPriority.bind(os);
  lock(os, "setPriority", (pid: number | undefined, priority?: number) => {
    if (priority === undefined) return setPriority(pid as number); // os.setPriority(priority): this process
    if (pid !== 0 && pid !== ownPid) throw denied("Changing another process's priority");
    return setPriority(pid, priority);
  });
  lock(traceEvents, "createTracing", () => {
    throw denied("trace_events");
  });
  lock(v8, "setFlagsFromString", () => {
    throw denied("v8.setFlagsFromString");
  });
  syncBuiltinESMExports(); // `import("node:os")` etc. see the same replacements
}
