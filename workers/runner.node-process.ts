// Node entry of a runner: its own PROCESS, one per job, started by src/runner/node-process.ts
// with Node's permission model (reads limited to Pyodide's files; no writes, child processes,
// workers, addons, WASI or inspector), no JavaScript from strings, an empty environment, its own
// stdio and, where the platform allows, its own empty network namespace. The protocol travels as
// frames (frames.ts) on fd 3; fd 1 and 2 are pipes the host captures as the job's stderr. Plain
// TypeScript with no package imports: the host bundles this file with runner-core (and the
// runner-*.ts files it imports) and frames into one script (a child under the permission model
// cannot run tsx, whose esbuild needs a child process of its own).
//
// No net.Socket exists in this process: fd 3 is read with fs.read and written with fs.writeSync
// (captured before any tool code), and process.stdout/stderr are plain writers. One reply, then
// the process ends itself at once: nothing tool code scheduled (timers, promises, sockets) gets
// an event-loop turn after the tool returned.
import { createHash } from "node:crypto";
import fs, { constants as fsConstants } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";
import { Writable } from "node:stream";
import traceEvents from "node:trace_events";
import v8 from "node:v8";
import vm from "node:vm";
import { pathToFileURL } from "node:url";
import type { PyodideAPI } from "pyodide";
import { encodeFlatFrame, encodeFrame, FrameReader, type FrameMessage } from "./frames.ts";
import type { HostToWorker, SnapshotFileRef, WorkerToHost } from "./protocol.ts";
import { startRunnerWorker, type RunnerLoadOptions } from "./runner-core.ts";

/** What the runner accepts from the host (trusted): a boot frame carries the ≈ 31 MB snapshot. */
const HOST_FRAME_LIMITS = { json: 64 * 1024 * 1024, bytes: 256 * 1024 * 1024 };
const CHANNEL = 3;
const READ_CHUNK = 256 * 1024;

/** edge_runner.preload() passes of a spare after its snapshot boot, which compile (Liftoff, lazily)
 *  the code a job runs. Measured (warm call p50 with --liftoff-only, 10 samples each, loaded
 *  machine): 0 passes 37 ms, 1 pass 18, 2 passes 23, 4 passes 24; each pass is CPU the spare
 *  spends while it waits, so 1. */
const WARM_UP_PASSES = 1;

/** Members of `process` that @types/node leaves out (process.binding is deprecated). */
const internals = process as typeof process & { binding(name: string): unknown; reallyExit(code: number): never };

// Captured now, before anything else runs: tool code can reach Node's modules and prototypes, not these.
// reallyExit, not exit: 'exit' listeners that tool code may have added do not run.
const exit = internals.reallyExit.bind(process);
const writeSync = fs.writeSync;
const read = fs.read;
const closeSync = fs.closeSync;
const openSync = fs.openSync;

closeInherited(process.argv[1]);
const collectGarbage = garbageCollector(); // before confine(), which refuses v8.setFlagsFromString
confine();

const reader = new FrameReader(HOST_FRAME_LIMITS);
let deliver: ((msg: HostToWorker) => void) | undefined;
readChannel();

startRunnerWorker(
  { postMessage: send, onMessage: (handler) => void (deliver = handler) },
  loadPyodideInProcess,
  // This process compiles Pyodide's wasm itself, lazily, and cannot share a warm copy with other
  // runners (threads could): a spare runs edge_runner.preload() again after its snapshot boot so
  // its job finds the code paths compiled (docs/runner.md, bench). After its one reply (or
  // snapshot, or fatal error) the process ends.
  { warmUpPasses: WARM_UP_PASSES, finished: () => exit(0), settle: collectGarbage, snapshot: readSnapshotFile },
);

/**
 * V8's full garbage collection, for a spare that has booted and waits: the ≈ 31 MB snapshot it
 * booted from (and the frame that carried it) and Pyodide's ≈ 9.6 MB wasm file are garbage by
 * then, but an idle process allocates nothing, so no collection would ever return them (measured:
 * 171 → 122 MB per idle spare with the other changes of docs/runner.md). The function is taken
 * from a fresh context, so `gc` never becomes a global of the runner (tool code does not see
 * it); v8.setFlagsFromString is refused to everything that runs after this (confine).
 */
function garbageCollector(): () => void {
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as unknown;
    v8.setFlagsFromString("--no-expose-gc");
    if (typeof gc === "function") return () => void (gc as () => void)();
  } catch {
    // no collection: the spare keeps its boot garbage until V8 collects it on its own
  }
  return () => undefined;
}

/** Descriptors the host found this process would inherit (its own, without close-on-exec), closed
 *  before anything else: the permission model does not check reads or writes on descriptors. */
function closeInherited(list: string | undefined): void {
  for (const fd of (list ?? "").split(",")) {
    if (/^\d+$/.test(fd) && Number(fd) > CHANNEL) {
      try {
        closeSync(Number(fd));
      } catch {
        // already closed
      }
    }
  }
}

/** Frames from the host, read from fd 3 (a blocking socket, read on libuv's thread pool). */
function readChannel(): void {
  const chunk = new Uint8Array(READ_CHUNK);
  read(CHANNEL, chunk, 0, READ_CHUNK, null, (err, n) => {
    // The host closed the channel (it is gone, or done with this runner): nothing more to do.
    if (err || n === 0) return exit(0);
    let messages: FrameMessage[];
    try {
      messages = reader.push(chunk.subarray(0, n));
    } catch {
      return exit(70); // the host never sends a malformed frame; stop rather than guess
    }
    readChannel();
    // The host's own frames: it sends only HostToWorker messages (a malformed frame ended this process above).
    // eslint-disable-next-line no-restricted-syntax -- a decoded frame is JSON, typed by the protocol the host follows
    for (const msg of messages) deliver?.(msg as unknown as HostToWorker);
  });
}

const SNAPSHOT_CHUNK = 4 * 1024 * 1024;

/**
 * A boot's snapshot file (the disk cache's, or the host's private copy), read on libuv's threads
 * while Pyodide reads its own files and compiles its JavaScript (loadPyodide waits for
 * `_loadSnapshot` only when it sizes the wasm memory), and checked against the sha256 the host
 * gave, before any tool code exists. A file that cannot be read whole or does not match rejects:
 * the boot fails, and the pool discards the snapshot and makes a new one (src/runner/pool.ts).
 * The bytes are a plain, 8-byte aligned Uint8Array (Pyodide refuses Node Buffer views).
 */
function readSnapshotFile(ref: SnapshotFileRef): Promise<Uint8Array> {
  const bytes = readFileBytes(ref);
  bytes.catch(() => undefined); // it may fail before loadPyodide waits for it, which reports it
  return bytes;
}

function readFileBytes(ref: SnapshotFileRef): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    let fd: number;
    try {
      fd = openSync(ref.path, "r");
    } catch (err) {
      return reject(err);
    }
    const bytes = new Uint8Array(ref.size);
    const hash = ref.sha256 === undefined ? undefined : createHash("sha256");
    const fail = (err: Error): void => {
      closeSync(fd);
      reject(new Error(`the snapshot file ${ref.path} cannot be booted: ${err.message}`));
    };
    const next = (done: number): void => {
      if (done === ref.size) {
        closeSync(fd);
        if (hash && hash.digest("hex") !== ref.sha256)
          return reject(new Error(`the snapshot file ${ref.path} does not match the signed index`));
        return resolve(bytes);
      }
      read(fd, bytes, done, Math.min(SNAPSHOT_CHUNK, ref.size - done), done, (err, n) => {
        if (err) return fail(err);
        if (n === 0) return fail(new Error("it is shorter than its size"));
        hash?.update(bytes.subarray(done, done + n));
        next(done + n);
      });
    };
    next(0);
  });
}

/** One message to the host. Every message but the snapshot (sent before any tool code exists) is
 *  written with encodeFlatFrame and the writeSync captured above, whatever tool code did meanwhile. */
function send(msg: WorkerToHost): void {
  if (msg.type === "snapshot") {
    for (const chunk of encodeFrame(msg)) writeAll(chunk, chunk.byteLength);
    return;
  }
  const { bytes, length } = encodeFlatFrame(msg);
  writeAll(bytes, length);
}

function writeAll(bytes: Uint8Array, length: number): void {
  try {
    for (let done = 0; done < length; ) done += writeSync(CHANNEL, bytes, done, length - done);
  } catch {
    exit(0); // the host is gone
  }
}

async function loadPyodideInProcess(
  assets: { kind: string; indexURL?: string },
  options: RunnerLoadOptions,
): Promise<PyodideAPI> {
  if (assets.kind !== "indexURL" || typeof assets.indexURL !== "string")
    throw new Error("the Node runner loads Pyodide from an indexURL");
  const { loadPyodide } = (await import(
    pathToFileURL(`${assets.indexURL}pyodide.mjs`).href
  )) as typeof import("pyodide");
  // Pyodide's NODEFS asks process.binding("constants") for the fs flags at start-up; under the
  // permission model process.binding is denied. Answer that one question for the duration of the
  // load (no tool code exists yet); closeNetwork then removes process.binding altogether.
  const binding = internals.binding;
  internals.binding = (name: string) => (name === "constants" ? { fs: fsConstants } : binding.call(process, name));
  let py: PyodideAPI;
  try {
    py = await loadPyodide({ ...options, indexURL: assets.indexURL });
  } finally {
    internals.binding = binding;
  }
  closeNetwork(py);
  return py;
}

const denied = (what: string): Error =>
  Object.assign(new Error(`${what} is not allowed in an Edge runner`), { code: "ERR_ACCESS_DENIED" });

function lock(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: false, configurable: false, enumerable: true });
}

function refuse(target: object, key: string, what: string): void {
  lock(target, key, () => {
    throw denied(what);
  });
}

/**
 * What Node's permission model (Node 20–24) does not cover, closed before any tool code runs:
 * signals to other processes (process.kill of the CLI, or SIGUSR1, which opens a Node process's
 * inspector on 127.0.0.1:9229), process._debugProcess (the same through another door), renicing
 * other processes, trace_events (writes node_trace.*.log into the working folder, unchecked),
 * v8.setFlagsFromString (e.g. --allow-natives-syntax), and the path APIs that skip the permission
 * check (Node 20's JavaScript fs.realpathSync answers whether any path exists: all realpath forms
 * are refused). The replacements are not configurable, and the originals stay unreachable:
 * process.binding is gone (closeNetwork) and Node's internal bindings are not exposed.
 * process.stdout/stderr become plain writers on fd 1/2 (a pipe would make them net.Sockets, a
 * class that connects anywhere).
 */
function confine(): void {
  const ownPid = process.pid;
  // eslint-disable-next-line no-restricted-syntax -- process's methods, the internal _kill included, taken as plain functions to wrap
  const proc = process as unknown as Record<string, (...args: unknown[]) => unknown>;
  const kill = proc.kill!.bind(process);
  const rawKill = proc._kill!.bind(process); // what process.kill calls, looked up at call time
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
  refuse(traceEvents, "createTracing", "trace_events");
  refuse(v8, "setFlagsFromString", "v8.setFlagsFromString");
  for (const key of ["realpath", "realpathSync"] as const) {
    const replacement = () => {
      throw denied(`fs.${key}`);
    };
    lock(replacement, "native", replacement);
    lock(fs, key, replacement);
  }
  refuse(fs.promises, "realpath", "fs.promises.realpath");
  for (const [name, fd] of [
    ["stdout", 1],
    ["stderr", 2],
  ] as const) {
    const stream = new Writable({
      write(chunk: Uint8Array, _encoding, callback) {
        try {
          writeSync(fd, chunk);
          callback();
        } catch (err) {
          callback(err as Error);
        }
      },
    });
    lock(stream, "fd", fd);
    Object.defineProperty(process, name, { value: stream, writable: false, configurable: false, enumerable: true });
  }
  syncBuiltinESMExports(); // `import("node:os")` etc. see the same replacements
}

/** Node modules that reach the network, load other modules, or run JavaScript from strings. */
const NETWORK_MODULES = new Set([
  "net",
  "tls",
  "dgram",
  "http",
  "https",
  "http2",
  "dns",
  "dns/promises",
  "tty",
  "cluster",
  "module",
  "vm",
  "repl",
]);

/**
 * The network, as far as this JavaScript world offers it, removed before any tool code runs: NOT a
 * boundary (below Node 25 the permission model does not restrict the network, and any door missed
 * here is open). The boundary is the runner's own network namespace where the platform gives one
 * (src/runner/node-process.ts, docs/security.md). Removed: process.getBuiltinModule of the network
 * modules (and of module/vm/repl, which load or evaluate anything), fetch, WebSocket and
 * EventSource, process.binding, and Pyodide's socket layer on Node (useNodeSockFS imports node:net
 * itself). JavaScript from strings (eval, Function, pyodide.code.run_js, so dynamic import()) is
 * refused by the runner's --disallow-code-generation-from-strings.
 */
function closeNetwork(py: PyodideAPI): void {
  const getBuiltinModule = process.getBuiltinModule.bind(process);
  lock(process, "getBuiltinModule", (id: string) => {
    const name = String(id).replace(/^node:/, "");
    if (NETWORK_MODULES.has(name) || name.startsWith("_http") || name.startsWith("_tls"))
      throw denied(`The module ${name}`);
    return getBuiltinModule(id);
  });
  for (const key of ["fetch", "WebSocket", "EventSource"]) {
    if (key in globalThis) lock(globalThis, key, undefined);
  }
  refuse(process, "binding", "process.binding");
  refuse(process, "_linkedBinding", "process._linkedBinding");
  refuse(py, "useNodeSockFS", "Pyodide's Node sockets");
  refuse((py as typeof py & { _api: object })._api, "initializeNodeSockFS", "Pyodide's Node sockets");
  syncBuiltinESMExports();
}
