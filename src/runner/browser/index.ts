// createBrowserRunnerHost: the generic pool host (one fresh worker per job, spares, snapshot,
// timeouts, HMAC checks) over workers that live in an opaque-origin sandbox frame with no
// network and no access to the app's storage. See docs/security.md.
import type { PythonFiles } from "../../../workers/protocol.ts";
import { canonicalJson, sha256Text } from "../../contract/hash.ts";
import { createRunnerHost, type PoolRunnerHost, type RunnerHostOptions } from "../pool.ts";
import type { SnapshotStore } from "../pool-snapshot.ts";
import { cacheSnapshotStore, SNAPSHOT_FORMAT } from "./snapshot-cache.ts";
import { sandboxWorkerFactory } from "./factory.ts";
import { PYTHON_FILES } from "./python-files.ts";
import { RunnerSandbox, type SandboxOptions, type SandboxTimings } from "./sandbox.ts";

export interface BrowserRunnerHostOptions extends Partial<RunnerHostOptions>, SandboxOptions {}

export interface BrowserRunnerHost extends PoolRunnerHost {
  readonly sandbox: RunnerSandbox;
  readonly timings: SandboxTimings;
}

/** Keeps the snapshot for the page's lifetime (the frame keeps its own copy for booting). */
function memorySnapshotStore(): SnapshotStore {
  let held: Uint8Array | undefined;
  return {
    get: async () => held,
    put: async (bytes) => {
      held = bytes;
    },
    discard: async () => {
      held = undefined;
    },
  };
}

/** Cache Storage when the page has it (the snapshot then survives reloads and works offline),
 *  else memory for the page's lifetime. */
async function defaultSnapshotStore(fingerprint: string, pythonFiles: PythonFiles): Promise<SnapshotStore> {
  if (typeof caches === "undefined") return memorySnapshotStore();
  const key = await sha256Text(canonicalJson({ format: SNAPSHOT_FORMAT, runtime: fingerprint, pythonFiles }));
  return cacheSnapshotStore(key.slice("sha256:".length));
}

/** Fetch Pyodide, start the sandbox frame, and return a RunnerHost whose workers run in it. */
export async function createBrowserRunnerHost(options: BrowserRunnerHostOptions = {}): Promise<BrowserRunnerHost> {
  const sandbox = await RunnerSandbox.create(options);
  const pythonFiles = options.pythonFiles ?? PYTHON_FILES;
  const snapshot =
    options.snapshot !== undefined
      ? options.snapshot
      : typeof pythonFiles === "function"
        ? memorySnapshotStore()
        : await defaultSnapshotStore(sandbox.runtimeFingerprint, pythonFiles);
  const pool = createRunnerHost(sandboxWorkerFactory(sandbox), { ...options, pythonFiles, snapshot });
  return {
    ...pool,
    sandbox,
    timings: sandbox.timings,
    async close() {
      await pool.close();
      sandbox.dispose();
    },
  };
}
