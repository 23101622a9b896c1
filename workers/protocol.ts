// Wire types between a RunnerHost and one runner worker. Plain one-shot messages: a worker
// boots, says "ready", receives exactly one job, replies once, and is terminated by the host.
// Everything a worker sends is untrusted (it ran tool code): the host validates shape, job id
// and the HMAC before it believes anything.

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
  /** Ask the worker to boot plainly, preload the runner, and send back a snapshot instead of taking a job. */
  makeSnapshot?: boolean;
  /** Bound for output written to Pyodide's own stdout/stderr callbacks (fd-level prints that
   *  edge_runner's capture did not catch). Default 65 536 characters. */
  stderrLimit?: number;
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
  callId: string;
  /** Fresh random secret (hex) for this job only; the reply carries HMAC-SHA256(secret, callId + result_sha256). */
  secret: string;
  /** Only for a tool that declares permissions=["read_local"]: the files mounted read-only at
   *  /workspace before the tools file is imported. Without it the runner has no /workspace. */
  workspace?: WorkspaceMount;
}

/** A snapshot of the person's workspace, sent IN the job (the runner reads no storage itself).
 *  Paths are relative to /workspace, "/"-separated, without "." or ".." parts. */
export interface WorkspaceMount {
  files: Record<string, Uint8Array>;
  /** Every folder, also empty ones (parents of files are created anyway). */
  dirs: string[];
}

export type HostToWorker = BootMessage | DiscoverJobMessage | CallJobMessage;

export type WorkerToHost =
  | { type: "ready"; bootMs: number; fromSnapshot: boolean }
  | { type: "snapshot"; bytes: Uint8Array; bootMs: number }
  /** `reply` is the JSON text produced by edge_runner.discover/call; `hmac` is set for call jobs that produced a result;
   *  `stderr` is what reached Pyodide's stdout/stderr callbacks during the job (bounded). */
  | { type: "done"; jobId: string; reply: string; hmac?: string; stderr?: string }
  | { type: "fatal"; message: string };
