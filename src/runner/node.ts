// The Node adapter: runners as child processes under Node's permission model (node-process.ts),
// the runner's Python files read from this package, and the memory-snapshot cache on disk
// (node-snapshot.ts). Tool code never runs inside the process that uses this host: see
// docs/security.md for what a runner process can and cannot do.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { canonicalJson } from "../contract/hash.ts";
import type { PythonFiles } from "../../workers/protocol.ts";
import { keptRunnerFactory, startKeeper, type KeeperEndpoint } from "./keeper-client.ts";
import { keeperDir, keeperEnabled, keeperPaths, type KeeperPaths } from "./keeper-wire.ts";
import { nodeProcessFactory, type LaunchListener } from "./node-process.ts";
import { runnerScriptSha256 } from "./runner-plan.ts";
import { diskSnapshotStore, snapshotFilesPattern } from "./node-snapshot.ts";
import { withDiscoveryCache, type DiscoveryCacheOptions } from "./discovery-cache.ts";
import { nodeDiscoveryStore } from "./node-discovery-cache.ts";
import { createRunnerHost, type PoolRunnerHost, type RunnerHostOptions } from "./pool.ts";
import type { SnapshotStore } from "./pool-snapshot.ts";

export { fileSource, readToolsFile } from "./node-file-source.ts";
export { projectFileSource } from "./node-project-source.ts";
export { diskSnapshotStore, snapshotIndexFile, snapshotKeyFile } from "./node-snapshot.ts";
export { launchNotice } from "./runner-launch.ts";

const require = createRequire(import.meta.url);
const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Bumped when the snapshot's contents change meaning (what is preloaded, boot steps). */
const SNAPSHOT_FORMAT = "edge-runner-snapshot.v1";

export interface NodeRunnerHostOptions extends Partial<Omit<RunnerHostOptions, "snapshot">> {
  /** true (default): disk cache; false: always boot plainly; or a store of your own. */
  snapshot?: boolean | SnapshotStore;
  /** Directory of the snapshot cache (default $EDGE_DATA_DIR/cache, else node_modules/.cache/edge-web);
   *  its integrity index is kept beside it (snapshotIndexFile), signed with a key kept outside it
   *  (snapshotKeyFile). */
  cacheDir?: string;
  /** The runner's Python root (default: runner-pyodide/ of this package). */
  pythonRoot?: string;
  /** Take job runners from the runner keeper (keeper-client.ts), and start one at close when none
   *  answered: for one-shot commands. Only with the disk snapshot cache, and only where
   *  keeperEnabled() and keeperDir() allow it. */
  keeper?: boolean;
  /** Keep discoveries in the cache directory for later commands (discovery-cache.ts): "use" answers
   *  a discovery from a kept one when its key matches, "refresh" always discovers and keeps it. */
  discoveries?: DiscoveryCacheOptions["mode"];
  /** With `discoveries`: called when a discovery runs in a runner (a miss, or "refresh"). */
  onDiscover?: () => void;
  /** Called with how each runner was started (its own, or the keeper's): a command announces a
   *  weaker boundary with it (runner-launch.ts, launchNotice). */
  onLaunch?: LaunchListener;
}

function pyodideIndexURL(): string {
  return `${dirname(require.resolve("pyodide/package.json"))}${sep}`;
}

function pyodideVersion(): string {
  return (require("pyodide/package.json") as { version: string }).version;
}

/** The edge_runner and edgestudio packages, keyed by path relative to the Python root. */
export async function readRunnerPythonFiles(root = join(PACKAGE_ROOT, "runner-pyodide")): Promise<PythonFiles> {
  const out: PythonFiles = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== "__pycache__" && entry.name !== "tests") await walk(path);
      else if (entry.isFile() && entry.name.endsWith(".py"))
        out[relative(root, path).split(sep).join("/")] = await readFile(path, "utf8");
    }
  };
  await walk(join(root, "edge_runner"));
  await walk(join(root, "edgestudio"));
  return out;
}

/** Default cache directory for runner snapshots. */
function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const dataDir = env.EDGE_DATA_DIR;
  return dataDir ? join(dataDir, "cache") : join(PACKAGE_ROOT, "node_modules", ".cache", "edge-web");
}

/** The cache key: Pyodide version + the runner's Python files + the snapshot format, so an upgrade
 *  or an edited file of edge_runner can never boot from a stale snapshot. */
export function snapshotKey(pythonFiles: PythonFiles, version = pyodideVersion()): string {
  return createHash("sha256")
    .update(
      canonicalJson({
        format: SNAPSHOT_FORMAT,
        pyodide: version,
        node: process.versions.node.split(".")[0] ?? "",
        files: pythonFiles,
      }),
    )
    .digest("hex");
}

/** A RunnerHost on runner processes with the disk snapshot cache. */
export function createNodeRunnerHost(options: NodeRunnerHostOptions = {}): PoolRunnerHost {
  const filesPromise = readRunnerPythonFiles(options.pythonRoot);
  filesPromise.catch(() => undefined);
  // Computed once, when first needed: the snapshot store and the discovery cache both key on it.
  let runnerKey: Promise<string> | undefined;
  const keyOfRunner = (): Promise<string> => (runnerKey ??= filesPromise.then((files) => snapshotKey(files)));
  let snapshot: SnapshotStore | null = null;
  let cacheFiles: string | undefined;
  const dir = options.cacheDir ?? defaultCacheDir();
  if (options.snapshot !== false) {
    const custom = typeof options.snapshot === "object" ? options.snapshot : undefined;
    if (!custom) cacheFiles = snapshotFilesPattern(dir);
    snapshot = custom ?? lazyStore(async () => diskSnapshotStore(dir, await keyOfRunner()));
  }
  const {
    snapshot: _ignored,
    cacheDir: _dir,
    pythonRoot: _root,
    keeper,
    discoveries,
    onDiscover,
    onLaunch,
    ...rest
  } = options;
  const indexURL = pyodideIndexURL();
  const endpoint = keeper && cacheFiles ? keeperEndpoint(cacheFiles, onLaunch) : undefined;
  const factory = endpoint
    ? keptRunnerFactory(indexURL, cacheFiles, endpoint)
    : nodeProcessFactory(indexURL, cacheFiles, undefined, onLaunch);
  const pooled = createRunnerHost(factory, { ...rest, pythonFiles: () => filesPromise, snapshot });
  const runner = async (): Promise<string> => `${await keyOfRunner()}:${await runnerScriptSha256()}`;
  const host = discoveries
    ? withDiscoveryCache(pooled, {
        store: nodeDiscoveryStore(dir),
        runner,
        mode: discoveries,
        ...(onDiscover ? { onDiscover } : {}),
      })
    : pooled;
  if (!endpoint) return host;
  return {
    ...host,
    async close() {
      await host.close();
      startKeeper(endpoint);
    },
  };
}

/** Where this host's keeper is (one per package, node and snapshot cache), if keepers may be used. */
function keeperEndpoint(cacheFiles: string, onLaunch: LaunchListener | undefined): KeeperEndpoint | undefined {
  const paths = keeperPathsFor(cacheFiles);
  return paths ? { paths, missing: false, ...(onLaunch ? { onLaunch } : {}) } : undefined;
}

function keeperPathsFor(cacheFiles: string, env: NodeJS.ProcessEnv = process.env): KeeperPaths | undefined {
  const dir = keeperEnabled(env) ? keeperDir(env) : undefined;
  return dir ? keeperPaths(dir, { packageRoot: PACKAGE_ROOT, cacheFiles }) : undefined;
}

function lazyStore(make: () => Promise<SnapshotStore>): SnapshotStore {
  let store: Promise<SnapshotStore> | undefined;
  const get = (): Promise<SnapshotStore> => (store ??= make());
  return {
    get: async () => (await get()).get(),
    reference: async () => (await get()).reference?.(),
    put: async (bytes) => (await get()).put(bytes),
    discard: async () => (await get()).discard?.(),
  };
}
