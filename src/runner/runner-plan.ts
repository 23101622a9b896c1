// How this process starts a Node runner process (node-process.ts starts and talks to it; the
// runner keeper, keeper.ts, starts its runners the same way): the node arguments up to the script
// (the permission model and the reads it allows, no JavaScript from strings, V8's compilers and
// heap for a process that lives one job), the runner's script (workers/runner.node-process.ts and
// what it imports, one plain ES module) and the launch prefix (runner-launch.ts).
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EdgeError } from "../contract/errors.ts";
import { processSnapshotFiles, type SnapshotFiles } from "./node-snapshot-file.ts";
import { runnerLaunch, type RunnerLaunch } from "./runner-launch.ts";

const ENTRY = fileURLToPath(new URL("../../workers/runner.node-process.ts", import.meta.url));
/** The files of the pyodide package a runner reads (checked by the permission model). */
const PYODIDE_FILES = [
  "pyodide.mjs",
  "pyodide.asm.mjs",
  "pyodide.asm.wasm",
  "python_stdlib.zip",
  "pyodide-lock.json",
] as const;

/** `--permission` (Node 22+) or `--experimental-permission` (Node 20–21); undefined without either. */
function permissionFlag(): string | undefined {
  const flags = process.allowedNodeEnvironmentFlags;
  if (flags.has("--permission")) return "--permission";
  if (flags.has("--experimental-permission")) return "--experimental-permission";
  return undefined;
}

/** V8's WebAssembly compilers for a runner: Liftoff (the baseline compiler) only. A runner lives
 *  for one job, so TurboFan's optimized code never pays for itself: with V8's default dynamic
 *  tier-up a warm call took 72–138 ms (its background TurboFan jobs compete with the call on two
 *  cores), Liftoff only 16–23 ms; a 1 s CPU-bound tool also ran faster (≈ 0.95 s vs 1.4–2.3 s).
 *  Measured on Node 20.20 / V8 11.3 (docs/runner.md). */
const WASM_COMPILERS = ["--liftoff-only"];

/** V8's heap for a process that lives for one job: sized for memory, not throughput
 *  (`--optimize-for-size`: ≈ 6 MB less per idle spare, no slower call measured), and one V8
 *  background thread instead of four (≈ 3 MB less; the wasm is compiled lazily, on the main
 *  thread, and two cores are shared by every runner anyway). docs/runner.md has the numbers. */
const V8_MEMORY = ["--optimize-for-size", "--v8-pool-size=1"];

/** The permission model's flag, or runner_boot_failed on a Node that has none. */
function requiredPermissionFlag(): string {
  const flag = permissionFlag();
  if (flag) return flag;
  throw new EdgeError(
    "runner_boot_failed",
    { reason: "no_permission_model", node: process.versions.node },
    `Node ${process.versions.node} has no permission model, which Edge's runners need; install Node 20.20+, 22.22+ or 24.13+ (package.json's engines), then run this again.`,
  );
}

/** The node arguments of a runner process, up to the script: the permission model, the reads (and
 *  the private snapshot folder, node-snapshot-file.ts), no code from strings (eval, Function, so no import()
 *  of a data: URL), V8. */
function runnerNodeArgs(flag: string, indexDir: string, snapshotReads: string[]): string[] {
  const reads = [...PYODIDE_FILES.map((f) => join(indexDir, f)), ...snapshotReads].map((f) => `--allow-fs-read=${f}`);
  return [
    flag,
    ...reads,
    "--disallow-code-generation-from-strings",
    ...WASM_COMPILERS,
    ...V8_MEMORY,
    "--no-warnings",
    "--input-type=module",
  ];
}

/** The runner's script, already bundled, when this module runs inside the built CLI
 *  (scripts/build-cli.mjs defines it); undefined when it runs from the sources. */
declare const __EDGE_RUNNER_SCRIPT__: string | undefined;

let script: Promise<string> | undefined;

/** The runner entry and what it imports, bundled into one plain ES module (once per process). */
function runnerScript(): Promise<string> {
  script ??= typeof __EDGE_RUNNER_SCRIPT__ === "string" ? Promise.resolve(__EDGE_RUNNER_SCRIPT__) : bundleRunnerEntry();
  script.catch(() => {
    script = undefined; // a failed bundle is retried by the next spawn
  });
  return script;
}

let scriptSha: Promise<string> | undefined;

/** sha256 (hex) of the runner script: a keeper's runners must run the one this process would. */
export function runnerScriptSha256(): Promise<string> {
  scriptSha ??= runnerScript().then((text) => createHash("sha256").update(text).digest("hex"));
  scriptSha.catch(() => {
    scriptSha = undefined;
  });
  return scriptSha;
}

/** From the sources (tests, tsx): esbuild, loaded only then. The built CLI's options match. */
async function bundleRunnerEntry(): Promise<string> {
  const { build } = await import("esbuild");
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: `node${process.versions.node.split(".")[0]}`,
    logLevel: "silent",
    legalComments: "none",
  });
  const text = out.outputFiles[0]?.text;
  if (!text) throw new Error("bundling the runner entry produced no output");
  return text;
}

/** How this process starts runner processes: their node arguments (up to the script), the script
 *  and launch (resolved once), and their working folder. Shared by the CLI's own runners and the
 *  runner keeper's (keeper.ts), so both start exactly the same process. Worked out when a runner
 *  is first started here: a command whose runners all come from the keeper makes no snapshot
 *  folder and probes no launch prefix (runner-launch.ts starts two small processes to find it). */
export interface RunnerSpawnPlan {
  readonly args: string[];
  readonly ready: Promise<[string, RunnerLaunch]>;
  readonly cwd: string;
  readonly snapshotFiles: SnapshotFiles | undefined;
}

export function runnerSpawnPlan(indexURL: string): RunnerSpawnPlan {
  const cwd = fileURLToPath(new URL(indexURL, "file:///"));
  const flag = requiredPermissionFlag(); // a Node without it is refused at once, not at the first spawn
  let snapshotFiles: SnapshotFiles | undefined | null = null;
  let args: string[] | undefined;
  let ready: Promise<[string, RunnerLaunch]> | undefined;
  return {
    cwd,
    get snapshotFiles() {
      if (snapshotFiles === null) snapshotFiles = processSnapshotFiles();
      return snapshotFiles;
    },
    get args() {
      // Only this process's private snapshot folder: never a file of $EDGE_DATA_DIR, whose writers
      // could plant a link there that the permission model would follow (node-snapshot-file.ts).
      args ??= [...runnerNodeArgs(flag, cwd, this.snapshotFiles ? [this.snapshotFiles.readable] : []), "-e"];
      return args;
    },
    get ready() {
      if (!ready) {
        ready = Promise.all([runnerScript(), runnerLaunch()]);
        ready.catch(() => undefined); // reported by the spawn that needs it
      }
      return ready;
    },
  };
}
