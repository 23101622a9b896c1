// The seam between the core and the Python runners. The core depends on this interface only;
// the Node adapter (child processes under Node's permission model) and the browser adapter (Web
// Workers inside an opaque-origin sandbox frame) implement it, and tests run the real Node adapter.
import type { ErrorJson } from "../contract/errors.ts";
import type { Sha256 } from "../contract/hash.ts";
import type { Discovery, JsonObject } from "../contract/types.ts";
import type { PackageWheel, ProjectMount, WorkspaceMount } from "../../workers/protocol.ts";
import type { PackageProvider } from "../packages/provider.ts";
import type { ProjectLimits, ProjectSnapshot } from "../contract/project.ts";

/** Where a tools file's bytes come from. `read()` is called again for every job, so an edit
 *  made during a session is seen (and refused with tools_file_changed). */
export interface ToolSource {
  /** A display name / path, e.g. "tools.py" or "/home/me/tools.py". */
  readonly name: string;
  read(): Promise<Uint8Array>;
  /** A tools project: the tools file with the files beside it (its folder, or a root the person
   *  named), read again for every job like read(). Without it the project is the tools file alone. */
  readProject?(limits: ProjectLimits): Promise<ProjectSnapshot>;
  /** Python packages for the project's imports (the lock and the wheels on this device). Without
   *  it no package is resolved or sent: only the standard library is importable. */
  readonly packages?: PackageProvider;
}

export interface DiscoverJob {
  bytes: Uint8Array;
  /** The hash the runner must find before it imports anything. */
  expectedSha256: Sha256;
  filename: string;
  timeoutMs?: number;
  /** The tools project, mounted read-only at /tools (src/toolset/project.ts). */
  project?: ProjectMount;
  /** Wheels installed before the tools file is imported (src/packages/freeze.ts). */
  packages?: PackageWheel[];
}

export interface CallJob {
  bytes: Uint8Array;
  /** The session's frozen tools_file_sha256. */
  expectedSha256: Sha256;
  filename: string;
  toolName: string;
  /** Arguments already validated against the tool's parameters schema. */
  args: JsonObject;
  /** The tool's frozen schema_sha256, which the runner checks after the import (tool_schema_changed).
   *  Every call of a frozen toolset passes it (src/toolset/call.ts). */
  expectedSchemaSha256?: Sha256;
  /** The tool's declared output_schema (checked with ajv on the real result), or null. */
  outputSchema: JsonObject | null;
  callId?: string;
  /** Hard limit; the worker is terminated when it passes (default 10 000 ms). */
  timeoutMs?: number;
  /** Mounted read-only at /workspace (read_local tools only; see src/toolset/workspace.ts). */
  workspace?: WorkspaceMount;
  /** The tools project, mounted read-only at /tools and checked against the frozen manifest. */
  project?: ProjectMount;
  packages?: PackageWheel[];
}

export interface CallOutcome {
  ok: boolean;
  callId: string;
  /** The normalized result (scalars wrapped as {"result": v}), only when ok. */
  result?: JsonObject;
  result_sha256?: Sha256;
  /** The runner verified the bytes against the frozen hash before importing. */
  tools_file_sha256_verified: boolean;
  /** The reply's HMAC matched this job's secret. */
  runner_secret_verified: boolean;
  /** print()/stderr of the tool, bounded; never shown to the model. */
  stderr: string;
  duration_ms: number;
  error?: ErrorJson;
  /** Python traceback and other details for people, never for the model. */
  diagnostics?: Record<string, unknown>;
}

/** Discovery as the runner reported it (after the host's shape checks), plus what people need
 *  when it fails. Runner-level failures (timeout, crash, boot) come back as ok:false with one
 *  error carrying that code. */
export interface DiscoverOutcome extends Discovery {
  /** print()/stderr of the file's top-level code, bounded. */
  stderr: string;
  duration_ms: number;
  diagnostics?: Record<string, unknown>;
}

export interface RunnerHost {
  discover(job: DiscoverJob, signal?: AbortSignal): Promise<DiscoverOutcome>;
  call(job: CallJob, signal?: AbortSignal): Promise<CallOutcome>;
  close(): Promise<void>;
}
