// The job logic of one runner worker, shared by every environment. No static Node or DOM import:
// the entry (runner.node-worker.ts, or the browser sandbox's worker) passes in a message port and
// a Pyodide loader. One worker boots, says "ready", runs exactly ONE job, replies once, and is
// terminated by the host.
//
// Everything that runs after tool code has run uses only references captured here at start-up:
// tool code can reach JS globals (`import js`, `pyodide_js`) and overwrite them, and it can
// replace attributes of the edge_runner module, so neither is looked up again. The reply's HMAC
// is computed here, in JavaScript (hmac-sha256.ts), never in the Python interpreter that runs tool
// code: there tool code can replace anything (hmac.HMAC, a function's code) and would learn the key.
import type { PyodideAPI } from "pyodide";
import { BoundedText } from "./bounded-text.ts";
import { hmacSha256Hex, sha256Hex } from "./hmac-sha256.ts";
import { MAX_REPLY_CHARS, type BootMessage, type CallJobMessage, type DiscoverJobMessage, type HostToWorker, type PackageWheel, type PyodideAssets, type ProjectMount, type PythonFiles, type SnapshotFileRef, type WorkerToHost, type WorkspaceMount } from "./protocol.ts";

/** The two things a worker needs from its environment's message channel. */
export interface RunnerPort {
  postMessage(msg: WorkerToHost, transfer?: ArrayBuffer[]): void;
  onMessage(handler: (msg: HostToWorker) => void): void;
}

/** Options the core asks the environment's loader to pass to `loadPyodide` (plus its own asset options). */
export interface RunnerLoadOptions {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: Record<string, string>;
  _makeSnapshot?: boolean;
  _loadSnapshot?: Uint8Array | Promise<Uint8Array>;
}

export type PyodideLoader = (assets: PyodideAssets, options: RunnerLoadOptions) => Promise<PyodideAPI>;

export interface RunnerWorkerHooks {
  /** Called once the worker has nothing more to do (after its reply or a fatal error). */
  finished?(): void;
  /** Passes of edge_runner.preload() a spare (boot message `warmUp`) runs after a snapshot boot,
   *  before it says "ready": for an entry that compiles Pyodide's wasm itself (a Node runner
   *  process), so the job's code paths are compiled, and the hottest optimized, before the job.
   *  A "hurry" message ends it early. Default 0. */
  warmUpPasses?: number;
  /** Called once a spare's warm-up is done and no job waits for it, before it says "ready": the
   *  entry may reclaim what the boot left behind (the Node runner runs a full GC, so the copy of
   *  the snapshot and Pyodide's wasm bytes go back to the system instead of staying in every idle
   *  spare). */
  settle?(): void;
  /** The bytes of a boot's `snapshotFile`, for an entry that may read files (a Node runner
   *  process): a promise, so Pyodide starts while they are read; it rejects when they cannot be
   *  booted, and the boot fails. */
  snapshot?(ref: SnapshotFileRef): Promise<Uint8Array>;
}

/** Where the runner's Python files live inside the interpreter's file system. */
export const PYTHON_ROOT = "/edge";

const DEFAULT_STDERR_LIMIT = 65_536;
/** Most output a runner keeps beside its reply, whatever the host asks (the reply must fit a frame). */
const MAX_STDERR_LIMIT = 32_768;

/** A python callable as seen from JS (a PyProxy): called with JS values, returns a JS value. */
type PyCallable = ((...args: unknown[]) => unknown) & { destroy?: () => void };

interface Runtime {
  discover: PyCallable;
  call: PyCallable;
  toBytes: PyCallable;
  /** Pyodide's own package installer (what loadPackage uses), captured at boot. */
  installer?: PackageInstaller;
}

/** Pyodide's installer: unpacks a wheel into a folder and loads its shared libraries. */
interface PackageInstaller {
  install(bytes: Uint8Array, fileName: string, installDir: string, metadata: Map<string, string>): Promise<void>;
  installDir(kind: string): string;
  /** Drops the import system's cached listing of a folder the wheels went into, so it sees the new
   *  files. Not importlib.invalidate_caches(): that also makes the standard library's zip importer
   *  read its whole directory again (≈ 0.3 s a job, measured). */
  forget(dir: string): void;
}

export function startRunnerWorker(port: RunnerPort, loadPyodide: PyodideLoader, hooks: RunnerWorkerHooks = {}): void {
  // Captured before any await and before any tool code exists.
  const post = port.postMessage.bind(port);
  const parseJson = JSON.parse;
  const hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty) as (o: object, key: string) => boolean;
  const now = performance.now.bind(performance);
  const finished = hooks.finished;
  const settle = hooks.settle;
  const warmUpPasses = Math.max(0, Math.floor(hooks.warmUpPasses ?? 0));
  const snapshotFile = hooks.snapshot;

  let phase: "idle" | "booting" | "ready" | "busy" | "finished" = "idle";
  let runtime: Runtime | undefined;
  /** Pyodide's file system, captured at boot (before any tool code exists in this worker). */
  let fs: MemFs | undefined;
  let queued: DiscoverJobMessage | CallJobMessage | undefined;
  let hurried = false;
  const sink = new BoundedText(DEFAULT_STDERR_LIMIT);

  const finish = (): void => {
    phase = "finished";
    queued = undefined;
    runtime = undefined;
    finished?.();
  };
  const fatal = (message: string): void => {
    if (phase === "finished") return;
    post({ type: "fatal", message });
    finish();
  };

  // The handler is installed synchronously, before the first await (a module worker that awaits
  // first loses the boot message).
  port.onMessage((msg) => {
    if (phase === "finished") return; // one job per worker: anything after the reply is ignored
    const type = msg && typeof msg === "object" ? (msg as { type?: unknown }).type : undefined;
    if (type === "boot") {
      if (phase !== "idle") return fatal("boot received twice");
      phase = "booting";
      void boot(msg as BootMessage);
    } else if (type === "hurry") {
      hurried = true; // a job waits for this spare; harmless once it is ready
    } else if (type === "discover" || type === "call") {
      const job = msg as DiscoverJobMessage | CallJobMessage;
      if (phase === "ready") void run(job);
      else if (phase === "booting" && !queued) queued = job;
      else fatal("a runner worker takes exactly one job");
    } else {
      fatal(`unexpected message type ${String(type)}`);
    }
  });

  async function boot(msg: BootMessage): Promise<void> {
    const started = now();
    if (typeof msg.stderrLimit === "number" && msg.stderrLimit >= 0) sink.limit = Math.min(msg.stderrLimit, MAX_STDERR_LIMIT);
    const makeSnapshot = msg.makeSnapshot === true;
    const snapshot = msg.snapshot instanceof Uint8Array ? msg.snapshot : msg.snapshotFile ? snapshotFile?.(msg.snapshotFile) : undefined;
    const fromSnapshot = !makeSnapshot && snapshot !== undefined;
    let py: PyodideAPI;
    let bootMs = 0;
    try {
      const options: RunnerLoadOptions = { stdout: sink.line, stderr: sink.line, env: { HOME: "/home/pyodide" } };
      if (makeSnapshot) options._makeSnapshot = true;
      if (fromSnapshot) options._loadSnapshot = snapshot;
      py = await loadPyodide(msg.pyodide, options);
      // Captured output goes to the bounded sink whatever Python does to sys.stdout later.
      py.setStdout({ batched: sink.line });
      py.setStderr({ batched: sink.line });
      writePythonFiles(py, msg.pythonFiles);
      py.runPython(`import sys\nif ${JSON.stringify(PYTHON_ROOT)} not in sys.path:\n    sys.path.insert(0, ${JSON.stringify(PYTHON_ROOT)})`);
      const mod = py.pyimport("edge_runner") as unknown as Record<string, PyCallable | undefined>;
      // From a snapshot, edge_runner and edgestudio come back already imported and preloaded.
      if (!fromSnapshot && typeof mod.preload === "function") callAndDrop(mod.preload);
      if (makeSnapshot) {
        (mod as unknown as { destroy?: () => void }).destroy?.();
        const bytes = py.makeMemorySnapshot();
        const buffer = bytes.buffer as ArrayBuffer;
        post({ type: "snapshot", bytes, bootMs: Math.round(now() - started) }, [buffer]);
        return finish();
      }
      const toBytes = py.runPython("lambda b: b.to_bytes()") as PyCallable;
      if (typeof mod.discover !== "function" || typeof mod.call !== "function") throw new Error("edge_runner lacks discover/call");
      runtime = { discover: mod.discover, call: mod.call, toBytes, installer: packageInstaller(py) };
      fs = py.FS as unknown as MemFs;
      releaseBootBytes(py, options, msg);
      bootMs = Math.round(now() - started); // what follows is warm-up, not boot
      // A spare may warm its code up while nobody needs it (hooks.warmUpPasses); a job or a
      // "hurry" that arrives meanwhile ends the warm-up at the next pass.
      if (fromSnapshot && msg.warmUp === true && typeof mod.preload === "function") {
        for (let i = 0; i < warmUpPasses && !hurried && !queued; i++) {
          callAndDrop(mod.preload);
          rehearseCall(runtime);
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
        if (!hurried && !queued) settle?.();
      }
    } catch (err) {
      return fatal(`boot failed: ${describe(err)}${sink.text ? `\n${sink.text}` : ""}`);
    }
    sink.clear(); // boot chatter is not the job's output
    phase = "ready";
    post({ type: "ready", bootMs, fromSnapshot });
    const job = queued;
    queued = undefined;
    if (job) void run(job);
  }

  async function run(job: DiscoverJobMessage | CallJobMessage): Promise<void> {
    const rt = runtime;
    if (!rt) return fatal("runner not booted");
    phase = "busy";
    const jobId = String(job.jobId);
    let source: unknown;
    try {
      // Python packages first (no tool code exists yet): checked against the lock's hash, then
      // installed by Pyodide's own installer into site-packages. A refusal is the job's reply.
      const refused = job.packages?.length ? await installPackages(rt, job.packages) : undefined;
      if (refused) {
        post({ type: "done", jobId, reply: job.type === "discover" ? failedDiscovery(refused) : failedCall(refused), stderr: sink.text });
        return finish();
      }
      source = rt.toBytes(job.source);
      let reply: unknown;
      let hmac: string | undefined;
      // The tools project, read-only, before anything is imported; edge_runner checks it first.
      // (undefined, not null: Pyodide passes JS null to Python as jsnull, undefined as None.)
      const project = job.project ? mountProject(fs!, job.project) : undefined;
      if (job.type === "discover") {
        reply = rt.discover(source, String(job.expectedSha256), String(job.filename), project);
        if (typeof reply === "string" && reply.length > MAX_REPLY_CHARS) reply = oversizedDiscovery(reply.length);
      } else {
        // The secret lives only in this closure: Python never sees it.
        const secret = String(job.secret);
        const callId = String(job.callId);
        // The person's files, read-only, before the tools file (and its top-level code) loads.
        if (job.workspace) mountWorkspace(fs!, job.workspace);
        reply = rt.call(source, String(job.expectedSha256), String(job.filename), String(job.toolName), String(job.argsJson), callId, project);
        if (typeof reply === "string" && reply.length > MAX_REPLY_CHARS) reply = oversizedResult(reply.length);
        else if (typeof reply === "string") {
          const parsed = safeParse(parseJson, reply);
          if (parsed && hasOwn(parsed, "ok") && parsed.ok === true && hasOwn(parsed, "result_sha256") && typeof parsed.result_sha256 === "string") {
            hmac = hmacSha256Hex(secret, callId + parsed.result_sha256);
          }
        }
      }
      if (typeof reply !== "string") return fatal("edge_runner returned a non-string reply");
      // One literal, no assignment after: a setter tool code put on Object.prototype never runs.
      const out: WorkerToHost = hmac === undefined ? { type: "done", jobId, reply, stderr: sink.text } : { type: "done", jobId, reply, hmac, stderr: sink.text };
      post(out);
      finish();
    } catch (err) {
      fatal(`job failed: ${describe(err)}`);
    } finally {
      (source as { destroy?: () => void } | undefined)?.destroy?.();
    }
  }
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
    const reply = rt.call(source, `sha256:${sha256Hex(bytes)}`, "<rehearsal>", "rehearse", '{"amount": 120.5, "tier": "b"}', "rehearsal");
    const parsed = typeof reply === "string" ? safeParse(JSON.parse, reply) : undefined;
    if (!parsed || parsed.ok !== true || typeof parsed.result_sha256 !== "string") throw new Error(`the rehearsal call failed: ${String(reply).slice(0, 500)}`);
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
  const internals = py as unknown as { _api?: { config?: { _loadSnapshot?: unknown } }; _module?: { instantiateWasm?: unknown } };
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

/** The part of Emscripten's FS API (and its MEMFS) the workspace mount uses. */
interface FsNode {
  mode: number;
  node_ops: Record<string, unknown>;
  contents?: Uint8Array | null;
  usedBytes?: number;
}
export interface MemFs {
  mkdir(path: string): void;
  mount(type: unknown, opts: object, mountpoint: string): void;
  chmod(path: string, mode: number): void;
  lookupPath(path: string): { node: FsNode };
  filesystems: { MEMFS: { createNode(parent: FsNode, name: string, mode: number, dev: number): FsNode } };
  ErrnoError: new (errno: number) => Error;
}

export const WORKSPACE_MOUNT = "/workspace";
const EPERM = 63; // WASI errno numbering, as Emscripten uses it
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

/**
 * The workspace snapshot at /workspace, read-only: its own MEMFS mount (so /workspace itself cannot
 * be renamed or removed: EBUSY), files 0444 and folders 0555 (open for writing, create, remove and
 * rename fail with EACCES → PermissionError), and chmod/utime refused (EPERM) so the modes cannot
 * be lifted through the file API. The copy dies with this one-job worker whatever happens to it.
 *
 * Nodes are made with MEMFS.createNode and handed the job's bytes (this worker owns its structured
 * clone): ≈ 100× faster than FS.writeFile per file, which keeps a 1 MB mount well under 10 ms.
 */
export function mountWorkspace(fs: MemFs, mount: WorkspaceMount): void {
  mountReadOnly(fs, WORKSPACE_MOUNT, mount);
}

/**
 * A tools project at its root ("/tools"), read-only in the same way as the workspace. Returns what
 * edge_runner needs to check it before importing anything: JSON text of the mount point, the frozen
 * manifest and its hash.
 */
export function mountProject(fs: MemFs, project: ProjectMount): string {
  const root = String(project.root);
  if (!/^\/[A-Za-z0-9_-]+$/.test(root) || root === WORKSPACE_MOUNT || root === PYTHON_ROOT) throw new Error(`bad project mount point ${JSON.stringify(root)}`);
  mountReadOnly(fs, root, { files: project.files, dirs: [] });
  return JSON.stringify({ root, manifest: project.manifest, expected_sha256: String(project.expectedSha256) });
}

function mountReadOnly(fs: MemFs, mountpoint: string, mount: WorkspaceMount): void {
  const memfs = fs.filesystems.MEMFS;
  fs.mkdir(mountpoint);
  fs.mount(memfs, {}, mountpoint);
  fs.chmod(mountpoint, 0o555);
  const root = fs.lookupPath(mountpoint).node;
  const dirs = new Map<string, FsNode>([["", root]]);
  const files = new Set<string>();
  const split = (rel: string): [string, string] => {
    if (typeof rel !== "string" || !rel || rel.startsWith("/") || rel.includes("\0") || rel.split("/").some((p) => p === "" || p === "." || p === "..")) {
      throw new Error(`bad path ${JSON.stringify(rel)} under ${mountpoint}`);
    }
    const i = rel.lastIndexOf("/");
    return [i < 0 ? "" : rel.slice(0, i), rel.slice(i + 1)];
  };
  const dirOf = (rel: string): FsNode => {
    const known = dirs.get(rel);
    if (known) return known;
    if (files.has(rel)) throw new Error(`path ${JSON.stringify(rel)} under ${mountpoint} is both a file and a folder`);
    const [parent, name] = split(rel);
    const node = memfs.createNode(dirOf(parent), name, S_IFDIR | 0o555, 0);
    dirs.set(rel, node);
    return node;
  };
  for (const dir of mount.dirs) dirOf(dir);
  const nodes: FsNode[] = [];
  for (const [rel, data] of Object.entries(mount.files)) {
    const [parent, name] = split(rel);
    if (dirs.has(rel) || files.has(rel)) throw new Error(`path ${JSON.stringify(rel)} under ${mountpoint} given twice`);
    const node = memfs.createNode(dirOf(parent), name, S_IFREG | 0o444, 0);
    node.contents = data instanceof Uint8Array ? data : new Uint8Array(0);
    node.usedBytes = node.contents.byteLength;
    files.add(rel);
    nodes.push(node);
  }
  const deny = (): never => {
    throw new fs.ErrnoError(EPERM);
  };
  const locked = new Map<Record<string, unknown>, Record<string, unknown>>();
  for (const node of [...dirs.values(), ...nodes]) {
    let ops = locked.get(node.node_ops);
    if (!ops) locked.set(node.node_ops, (ops = { ...node.node_ops, setattr: deny }));
    node.node_ops = ops;
  }
}

/** Pyodide's installer, as loadPackage uses it (API.install and package_loader.get_install_dir;
 *  private API of the pinned pyodide version, checked by src/cli/packages.test.ts). */
function packageInstaller(py: PyodideAPI): PackageInstaller | undefined {
  const api = (py as unknown as { _api?: { install?: unknown; package_loader?: { get_install_dir?: unknown } } })._api;
  const install = api?.install;
  const getDir = api?.package_loader?.get_install_dir;
  if (typeof install !== "function" || typeof getDir !== "function") return undefined;
  const forget = py.runPython("import sys\nlambda d: sys.path_importer_cache.pop(d, None) and None") as PyCallable;
  return {
    install: install as PackageInstaller["install"],
    installDir: (kind) => String((getDir as (k: string) => unknown)(kind)),
    forget: (dir) => void forget(dir),
  };
}

/** Check every wheel, then install them in order; the error that refuses the job, or undefined. */
async function installPackages(rt: Runtime, wheels: PackageWheel[]): Promise<{ code: string; message: string } | undefined> {
  for (const wheel of wheels) {
    const bytes = wheel.bytes;
    const found = bytes instanceof Uint8Array ? `sha256:${sha256Hex(bytes)}` : "";
    if (found !== String(wheel.sha256)) {
      return { code: "python_package_hash_mismatch", message: `The runner was given ${String(wheel.file_name)} with sha256 ${found || "(no bytes)"}, not the lock's ${String(wheel.sha256)}; it was not installed and nothing was imported. Run \`edge packages verify\`.` };
    }
  }
  if (!rt.installer) return { code: "python_package_install_failed", message: "This Pyodide has no package installer Edge knows (API.install); nothing was imported. Use the pyodide version Edge pins." };
  const dirs = new Set<string>();
  for (const wheel of wheels) {
    try {
      const dir = rt.installer.installDir(String(wheel.install_dir));
      dirs.add(dir);
      await rt.installer.install(wheel.bytes, String(wheel.file_name), dir, new Map([["INSTALLER", "edge"], ["PYODIDE_SOURCE", "pyodide"]]));
    } catch (err) {
      return { code: "python_package_install_failed", message: `${String(wheel.file_name)} could not be installed in the runner (${describe(err).slice(0, 500)}); nothing was imported. Check that it is a wheel of this Pyodide version's lock.` };
    }
  }
  for (const dir of dirs) rt.installer.forget(dir);
  return undefined;
}

function failedDiscovery(error: { code: string; message: string }): string {
  return stringify({ ok: false, tools_file_sha256: "", schema_generator_version: "", tools: [], warnings: [], stderr: "", errors: [error] });
}

function failedCall(error: { code: string; message: string }): string {
  return stringify({ ok: false, stderr: "", tools_file_sha256_verified: false, error });
}

function callAndDrop(fn: PyCallable): void {
  const out = fn();
  (out as { destroy?: () => void } | undefined)?.destroy?.();
}

// Used after tool code ran: captured when this module is evaluated.
const isArray = Array.isArray;
const stringify = JSON.stringify;

function safeParse(parse: typeof JSON.parse, text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = parse(text);
    return value && typeof value === "object" && !isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A reply too long to send, replaced by what it means (no tool result is that large). */
function oversizedResult(chars: number): string {
  const message = `The tool's reply is ${chars} characters of JSON, more than a runner sends (${MAX_REPLY_CHARS}); its result is far over the result limit. Return a bounded dict.`;
  return stringify({ ok: false, stderr: "", tools_file_sha256_verified: true, error: { code: "tool_result_oversized", message }, diagnostics: { reply_chars: chars } });
}

function oversizedDiscovery(chars: number): string {
  const message = `The tools' schemas are ${chars} characters of JSON, more than a runner sends (${MAX_REPLY_CHARS}); shorten the descriptions or split the file.`;
  return stringify({ ok: false, tools_file_sha256: "", schema_generator_version: "", tools: [], warnings: [], stderr: "", errors: [{ code: "runner_reply_oversized", message }] });
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
