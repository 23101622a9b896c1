// The cost of mounting a 1 MB workspace for a read_local tool (budget < 10 ms), measured three
// ways in one run:   node --import tsx bench/workspace.bench.ts [--json]
//  * host: the snapshot of the VFS (64 files × 16 KiB) plus workspace_sha256, in this process;
//  * runner: mountWorkspace() — writing the files into Pyodide's MEMFS and locking them read-only —
//    in a real Pyodide interpreter (the same function the runner worker calls);
//  * end to end: the same one-line tool called through the Node runner host with read_local and
//    the workspace vs without read_local (no mount): the baseline measured in the same run, p50 of
//    interleaved pairs; the ratio and the difference are reported.
import { loadPyodide } from "pyodide";
import { openVfs } from "../src/builtins/vfs/core.ts";
import { vfsWorkspaceSource } from "../src/builtins/workspace/source.ts";
import { createNodeRunnerHost } from "../src/runner/node.ts";
import { callTool } from "../src/toolset/call.ts";
import { freezeToolset } from "../src/toolset/freeze.ts";
import { memorySource } from "../src/toolset/inspect.ts";
import { DEFAULT_WORKSPACE_MOUNT_LIMITS, workspaceSha256 } from "../src/toolset/workspace.ts";
import { mountWorkspace, type MemFs } from "../workers/runner-mounts.ts";
import { percentile } from "./loop-core.ts";

const JSON_ONLY = process.argv.includes("--json");
const log = (...a: unknown[]): void => {
  if (!JSON_ONLY) console.error(...a);
};
const FILES = 64;
const FILE_BYTES = 16 * 1024;
const ROUNDS = 21;
const TOOLS = `from edgestudio.tools import edge_tool

@edge_tool(permissions=["read_local"])
def with_mount() -> dict:
    return {"ok": True}

@edge_tool
def without_mount() -> dict:
    return {"ok": True}
`;

const vfs = await openVfs();
await vfs.writeBatch(
  Array.from({ length: FILES }, (_, i) => ({
    path: `/workspace/dir${i % 4}/f${i}.bin`,
    data: Uint8Array.from({ length: FILE_BYTES }, (_, j) => (i * 31 + j) & 0xff),
  })),
);
const source = vfsWorkspaceSource(vfs);
const totalBytes = FILES * FILE_BYTES;

// Host: snapshot + hash.
const host: number[] = [];
for (let i = 0; i < ROUNDS + 3; i++) {
  const t = performance.now();
  await workspaceSha256(await source.snapshot(DEFAULT_WORKSPACE_MOUNT_LIMITS));
  if (i >= 3) host.push(performance.now() - t);
}

// Runner: the mount itself inside Pyodide (fresh mount point each round).
log("loading Pyodide for the in-interpreter mount…");
const py = await loadPyodide();
const fs = py.FS as MemFs & { unmount(p: string): void; rmdir(p: string): void };
const snapshot = await source.snapshot(DEFAULT_WORKSPACE_MOUNT_LIMITS);
const runner: number[] = [];
for (let i = 0; i < ROUNDS + 3; i++) {
  const t = performance.now();
  mountWorkspace(fs, snapshot);
  const ms = performance.now() - t;
  if (i >= 3) runner.push(ms);
  fs.unmount("/workspace");
  fs.rmdir("/workspace");
}

// End to end through the runner host.
log("end to end through the Node runner host…");
const runnerHost = createNodeRunnerHost({ spares: 1 });
const toolset = await freezeToolset(memorySource("tools.py", TOOLS), runnerHost);
const withMount: number[] = [];
const withoutMount: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  for (const [name, out] of [
    ["with_mount", withMount],
    ["without_mount", withoutMount],
  ] as const) {
    await runnerHost.warm();
    const t = performance.now();
    const r = await callTool(toolset, runnerHost, name, {}, { workspace: source });
    out.push(performance.now() - t);
    if (!r.ok) throw new Error(`${name} failed: ${JSON.stringify(r.error)}`);
  }
}
await runnerHost.close();

const p50 = (xs: number[]): number => Math.round(percentile(xs, 50) * 100) / 100;
const mountMs = p50(host) + p50(runner);
const result = {
  bench: "workspace-mount",
  workspace: { files: FILES, bytes: totalBytes },
  host_snapshot_and_hash_ms_p50: p50(host),
  runner_mount_ms_p50: p50(runner),
  mount_ms_p50: Math.round(mountMs * 100) / 100,
  budget_ms: 10,
  within_budget: mountMs < 10,
  end_to_end: {
    baseline_call_without_mount_ms_p50: p50(withoutMount),
    call_with_mount_ms_p50: p50(withMount),
    difference_ms: Math.round((p50(withMount) - p50(withoutMount)) * 100) / 100,
    ratio_vs_baseline: Math.round((p50(withMount) / p50(withoutMount)) * 1000) / 1000,
    rounds: ROUNDS,
  },
};
console.log(JSON.stringify(result, null, JSON_ONLY ? 0 : 2));
