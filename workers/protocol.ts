// Wire types between a RunnerHost and one runner worker. Plain one-shot messages: a worker
// boots, says "ready", receives exactly one job, replies once, and is terminated by the host.
// Everything a worker sends is untrusted (it ran tool code): the host validates shape, job id
// and the HMAC before it believes anything.

/** Longest reply (edge_runner's JSON text, ASCII) a runner sends, and a host accepts. A result that
 *  large is far over any result limit; with the runner's bounded output it keeps a Node runner's
 *  frame under the 1 MiB JSON limit (frames.ts) even when every character is escaped twice. */
export const MAX_REPLY_CHARS = 384 * 1024;

/** Python sources written into the interpreter's file system before anything is imported,
 *  keyed by path relative to the runner's Python root (e.g. "edgestudio/tools.py"). */
export type PythonFiles = Record<string, string>;

export interface BootMessage {
  type: "boot";
  pythonFiles: PythonFiles;
  /** Environment-specific way to reach Pyodide's files (indexURL in Node; transferred bytes in the sandbox). */
  pyodide: PyodideAssets;
  /** A memory snapshot to start from (Pyodide + edgestudio + edge_runner preloaded). */
  snapshot?: Uint8Array;
  /** The Node transport's stand-in for `snapshot`: a file this runner may read — the signed disk
   *  cache's own file (with its `sha256`, which the runner checks), or a private copy the host wrote
   *  (src/runner/node-snapshot-file.ts). The runner's entry reads it (RunnerWorkerHooks.snapshot);
   *  a file it cannot read whole, or whose bytes do not match, fails the boot. */
  snapshotFile?: SnapshotFileRef;
  /** Ask the worker to boot plainly, preload the runner, and send back a snapshot instead of taking a job. */
  makeSnapshot?: boolean;
  /** Bound for output written to Pyodide's own stdout/stderr callbacks (fd-level prints that
   *  edge_runner's capture did not catch). Default 65 536 characters. */
  stderrLimit?: number;
  /** A spare: nobody waits for this boot, so the worker may spend it making its one job faster
   *  (the Node runner process warms its freshly compiled code; see RunnerWorkerHooks.warmUpPasses).
   *  Set only for factories that ask for it (RunnerWorkerFactory.warmsUp). */
  warmUp?: boolean;
}

export interface SnapshotFileRef {
  path: string;
  size: number;
  /** Hex sha256 the bytes must have (given for files that others could write: the disk cache). */
  sha256?: string;
}

export type PyodideAssets =
  /** `wasmModule`: Pyodide's wasm compiled once by the host and shared by every worker (V8
   *  shares the compiled code and its optimized tiers), instead of each worker compiling it. */
  | { kind: "indexURL"; indexURL: string; wasmModule?: WebAssembly.Module }
  | { kind: "bytes"; files: Record<string, Uint8Array>; lockFileContents?: string };

export interface DiscoverJobMessage {
  type: "discover";
  jobId: string;
  source: Uint8Array;
  expectedSha256: string;
  filename: string;
  /** The tools project: mounted read-only at /tools and checked against its frozen manifest
   *  before the tools file is imported. */
  project?: ProjectMount;
  /** Python packages, installed before anything is imported (in this order). */
  packages?: PackageWheel[];
}

export interface CallJobMessage {
  type: "call";
  jobId: string;
  source: Uint8Array;
  expectedSha256: string;
  filename: string;
  toolName: string;
  /** The validated arguments as JSON text (keyword arguments of the function). */
  argsJson: string;
  /** The tool's frozen schema_sha256: after the import the runner derives the tool's schema again
   *  and does not call it when the two differ (tool_schema_changed). */
  expectedSchemaSha256?: string;
  callId: string;
  /** Fresh random secret (hex) for this job only; the reply carries HMAC-SHA256(secret, callId + result_sha256). */
  secret: string;
  /** Only for a tool that declares permissions=["read_local"]: the files mounted read-only at
   *  /workspace before the tools file is imported. Without it the runner has no /workspace. */
  workspace?: WorkspaceMount;
  project?: ProjectMount;
  packages?: PackageWheel[];
}

/** One wheel of Pyodide's lock, sent IN the job (the runner has no network and reads no host file).
 *  The runner checks `bytes` against `sha256` and installs them with Pyodide's own installer
 *  (the one loadPackage uses) into `install_dir` before the tools file is imported. */
export interface PackageWheel {
  name: string;
  file_name: string;
  /** The lock's install_dir: "site" (site-packages) or "dynlib" (a shared library). */
  install_dir: string;
  /** "sha256:<hex>", the lock's hash. */
  sha256: string;
  bytes: Uint8Array;
  /** Where it was pinned: Pyodide's lock (absent) or a package index through the project's pylock.toml. */
  source?: "pyodide-lock" | "pypi";
}

/** The files of a tools project, sent IN the job (the runner reads no files of the host), and the
 *  manifest frozen for them. The runner mounts `files` read-only at `root` and, before importing
 *  anything, hashes what it mounted and compares it with `manifestJson`: any difference is
 *  tools_file_changed naming the file (src/toolset/project.ts, docs/tools-projects.md). */
export interface ProjectMount {
  /** Where the files appear in the runner (TOOLS_MOUNT, "/tools"). */
  root: string;
  /** Paths relative to `root`, "/"-separated, without "." or ".." parts; the tools file among them. */
  files: Record<string, Uint8Array>;
  /** The manifest frozen for this session. */
  manifest: ToolsManifest;
  /** The frozen tools_bundle_sha256 = sha256(JCS(manifest)). */
  expectedSha256: string;
}

/** What tools_bundle_sha256 is the hash of (its canonical JSON, RFC 8785). */
export interface ToolsManifest {
  bundle_version: string;
  /** The tools file's path in the project. */
  entry: string;
  /** Every mounted file's path → "sha256:<hex>" of its bytes. */
  files: Record<string, string>;
}

/** A snapshot of the person's workspace, sent IN the job (the runner reads no storage itself).
 *  Paths are relative to /workspace, "/"-separated, without "." or ".." parts. */
export interface WorkspaceMount {
  files: Record<string, Uint8Array>;
  /** Every folder, also empty ones (parents of files are created anyway). */
  dirs: string[];
}

/** To a booting spare a job now waits for: skip what is left of the warm-up (BootMessage.warmUp). */
export interface HurryMessage {
  type: "hurry";
}

export type HostToWorker = BootMessage | DiscoverJobMessage | CallJobMessage | HurryMessage;

export type WorkerToHost =
  | { type: "ready"; bootMs: number; fromSnapshot: boolean }
  | { type: "snapshot"; bytes: Uint8Array; bootMs: number }
  /** `reply` is the JSON text produced by edge_runner.discover/call; `hmac` is set for call jobs that produced a result;
   *  `stderr` is what reached Pyodide's stdout/stderr callbacks during the job (bounded). */
  | { type: "done"; jobId: string; reply: string; hmac?: string; stderr?: string }
  | { type: "fatal"; message: string };

/** What parseWorkerToHost makes of a message: the narrowed message, or why it is not one. */
export type WorkerToHostParse = { ok: true; message: WorkerToHost } | { ok: false; reason: string };

type FieldKind = "string" | "number" | "boolean" | "bytes";
/** Each message type's fields (besides `type`) and their kinds; `optional` ones may be absent. */
const WORKER_TO_HOST_FIELDS: Readonly<
  Record<WorkerToHost["type"], Readonly<Record<string, { kind: FieldKind; optional?: true }>>>
> = {
  ready: { bootMs: { kind: "number" }, fromSnapshot: { kind: "boolean" } },
  snapshot: { bytes: { kind: "bytes" }, bootMs: { kind: "number" } },
  done: {
    jobId: { kind: "string" },
    reply: { kind: "string" },
    hmac: { kind: "string", optional: true },
    stderr: { kind: "string", optional: true },
  },
  fatal: { message: { kind: "string" } },
};

function hasKind(value: unknown, kind: FieldKind): boolean {
  return kind === "bytes" ? value instanceof Uint8Array : typeof value === kind;
}

/**
 * Narrow what a worker sent (untrusted: it ran tool code) to WorkerToHost: a known `type`, each
 * field of its kind, no field the type does not have (an own `__proto__` from JSON.parse included).
 * Only the shape: whether a `done` answers this job, and its HMAC, are the verifier's (runner/verify.ts).
 */
export function parseWorkerToHost(value: unknown): WorkerToHostParse {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, reason: "the message is not an object" };
  const record = value as Record<string, unknown>;
  const type = record.type;
  if (typeof type !== "string" || !Object.hasOwn(WORKER_TO_HOST_FIELDS, type)) {
    return { ok: false, reason: `unknown message type ${JSON.stringify(String(type)).slice(0, 80)}` };
  }
  const fields = WORKER_TO_HOST_FIELDS[type as WorkerToHost["type"]];
  for (const key of Object.keys(record)) {
    if (key !== "type" && !Object.hasOwn(fields, key))
      return { ok: false, reason: `${type}: unexpected field ${JSON.stringify(key).slice(0, 80)}` };
  }
  for (const [key, { kind, optional }] of Object.entries(fields)) {
    const field = Object.hasOwn(record, key) ? record[key] : undefined;
    if (field === undefined && optional) continue;
    if (!hasKind(field, kind))
      return { ok: false, reason: `${type}: ${key} is not a ${kind === "bytes" ? "Uint8Array" : kind}` };
  }
  // Every field was checked against the shape of its type above.
  return { ok: true, message: record as WorkerToHost };
}
