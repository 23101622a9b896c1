// Issue 15, Node half: tool code never controls the `edge` CLI. The red team's payloads
// (test/fixtures/hostile-tools.ts) run through the real CLI, as its own process, with a sentinel
// in its environment: each would have reached the CLI when runners were threads of it.
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SCHEMA_GENERATOR_VERSION } from "../contract/types.ts";
import { createNodeRunnerHost, snapshotIndexFile } from "../runner/node.ts";
import { HOSTILE_TOOLS, SELF_CONFIRM_TOOLS } from "../../test/fixtures/hostile-tools.ts";
import { cli, edgeProcess, writeTestFile } from "./cli-test-helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-containment-"));
const DATA = join(tmp, "data");
const CACHE = join(DATA, "cache");
process.env.EDGE_DATA_DIR = DATA; // for the in-process `cli` calls below
const HOSTILE = writeTestFile(tmp, "hostile_tools.py", HOSTILE_TOOLS);
const SELF_CONFIRM = writeTestFile(tmp, "self_confirm_tools.py", SELF_CONFIRM_TOOLS);
const SENTINEL = `sentinel-${randomBytes(12).toString("hex")}`;
const ENV = { ...process.env, EDGE_DATA_DIR: DATA, EDGE_TEST_SENTINEL: SENTINEL };

function script(name: string, calls: unknown[]): string {
  return writeTestFile(tmp, name, calls.map((c) => JSON.stringify(c)));
}

describe("tool code in the runner cannot reach the CLI", () => {
  it("environment, files, child processes, workers, inspector, signals and the snapshot cache are all refused", async () => {
    const scratch = join(tmp, "written-by-tool.txt");
    const args = JSON.stringify({ scratch, cache: CACHE });
    const r = await edgeProcess(["tools", "call", HOSTILE, "probe", "--args", args, "--json"], ENV);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // Exactly one JSON document on the CLI's stdout, the real one: the forged line the tool
    // wrote to its fd 1 is the runner's output, captured as the call's stderr.
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: true, tool_name: "probe", runner_secret_verified: true });
    expect(out.result.stdout).toMatch(/^allowed/);
    expect(out.stderr).toContain('{"ok": true, "forged": true}');
    // Not one variable of the CLI's environment, by any route.
    expect(r.stdout).not.toContain(SENTINEL);
    expect(out.result.env_keys).toEqual([]);
    const refused = [
      "environ_node", "environ_mount", "environ_python", "child_process", "worker", "write_file", "inspector_connect",
      "inspector_main_thread", "inspector_open", "signal_cli", "debug_cli", "renice_cli", "trace_events", "v8_flags",
      "read_cache", "poison_cache",
    ];
    for (const probe of refused) expect(out.result[probe], probe).toMatch(/^refused/);
    // Refused by Node's permission model itself (its message), not by anything tool code could undo.
    for (const probe of ["environ_node", "child_process", "worker", "write_file", "inspector_connect", "inspector_open"]) {
      expect(out.result[probe], probe).toContain("Access to this API has been restricted");
    }
    // Mounting a host folder into Python: the permission model hides every path outside the reads.
    for (const probe of ["environ_mount", "read_cache", "poison_cache"]) expect(out.result[probe], probe).toContain("does not exist");
    expect(existsSync(scratch)).toBe(false);
    expect(readdirSync(CACHE).filter((f) => f.includes("poison"))).toEqual([]);
  });

  it("a runner that kills itself ends only itself: the CLI prints its JSON and the receipt (runner_crashed)", async () => {
    const s = script("suicide.json", [{ tool_name: "suicide", arguments: {} }]);
    const r = await edgeProcess(["chat", "--tools", HOSTILE, "--tool", "suicide", "--engine", "scripted", "--script", s, "--prompt", "go", "--json"], ENV);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: false, outcome: "failed_closed", error: { code: "runner_crashed" } });
    expect(out.receipt.calls[0]).toMatchObject({ tool_name: "suicide", status: "failed_closed", code: "runner_crashed" });
    const stored = await cli("receipts", "show", out.run_id, "--json");
    expect(stored.code).toBe(0);
  });

  it("a commit tool cannot confirm its own pending action through the inspector", async () => {
    const s = script("submit.json", [{ tool_name: "submit", arguments: { order: "O-1" } }]);
    const r = await edgeProcess(["chat", "--tools", SELF_CONFIRM, "--engine", "scripted", "--script", s, "--prompt", "Submit O-1.", "--json"], ENV);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ outcome: "pending_confirmation", error: { code: "tool_confirmation_required" } });
    const listed = await cli("tools", "pending", "list", "--json");
    expect(listed.json.pending.find((p: { id: string }) => p.id === out.pending_action.id)).toMatchObject({ status: "pending" });
    const attempts = await cli("tools", "call", SELF_CONFIRM, "attempts", "--json");
    expect(attempts.json.result.connectToMainThread).toMatch(/^refused/);
    expect(attempts.json.result.connect).toMatch(/^refused/);
    expect(attempts.json.result.sigusr1).toMatch(/^refused/);
  });

  it("a tampered snapshot in the cache is detected and rebuilt, so it cannot change a later run", async () => {
    // A snapshot that boots fine but carries a forged edge_runner (another schema generator).
    const forgedRoot = join(tmp, "forged-runner");
    cpSync(new URL("../../runner-pyodide/", import.meta.url), forgedRoot, { recursive: true });
    const runnerPy = join(forgedRoot, "edge_runner.py");
    writeFileSync(runnerPy, readFileSync(runnerPy, "utf8").replace(SCHEMA_GENERATOR_VERSION, "edge.tools.schema.forged"));
    const forgedCache = join(tmp, "forged-cache");
    const maker = createNodeRunnerHost({ pythonRoot: forgedRoot, cacheDir: forgedCache, spares: 0 });
    await maker.warm();
    await maker.close();
    const forged = readFileSync(join(forgedCache, readdirSync(forgedCache).find((f) => f.endsWith(".snapshot"))!));

    // Written over the cached snapshot (the first test made it), with the old-style metadata beside it.
    const cached = readdirSync(CACHE).find((f) => f.endsWith(".snapshot"))!;
    const forgedSha = createHash("sha256").update(forged).digest("hex");
    writeFileSync(join(CACHE, cached), forged);
    writeFileSync(join(CACHE, cached.replace(/\.snapshot$/, ".json")), JSON.stringify({ sha256: forgedSha, size: forged.byteLength }));

    const r = await edgeProcess(["tools", "inspect", HOSTILE, "--json"], ENV);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, schema_generator_version: SCHEMA_GENERATOR_VERSION });
    // Rebuilt: the cache holds one snapshot again, the one the index (outside the folder) names.
    const index = JSON.parse(readFileSync(snapshotIndexFile(CACHE), "utf8"));
    expect(readdirSync(CACHE)).toEqual([index.file]);
    expect(createHash("sha256").update(readFileSync(join(CACHE, index.file))).digest("hex")).toBe(index.sha256);
    expect(index.sha256).not.toBe(forgedSha);
  }, 120_000);
});
