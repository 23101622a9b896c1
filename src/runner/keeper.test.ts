// The runner keeper (keeper.ts, keeper-client.ts) through the real CLI, as a person runs it: the
// first one-shot command starts a keeper, the next ones take its runners, and what they print is
// exactly what a command with its own runners prints. Each kept runner is fresh (one job, then
// killed), sandboxed like any runner, and given only to a command that presents the keeper's token.
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HOSTILE_TOOLS } from "../../test/fixtures/hostile-tools.ts";
import { BIN, edgeCliWithEnv, EXAMPLES, startNode, writeTestFile } from "../../test/cli.ts";
import { isAlive, waitFor } from "../../test/processes.ts";
import { askKeeper, keeperStatus } from "./keeper-client.ts";
import { keeperPathsOf, type KeeperPaths, type KeeperStatus } from "./keeper-wire.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-keeper-"));
const RUNTIME = join(tmp, "runtime");
mkdirSync(RUNTIME, { mode: 0o700 });
const TOOLS_DIR = join(tmp, "tools");
mkdirSync(TOOLS_DIR);
const COUNTER = writeTestFile(
  TOOLS_DIR,
  "counter.py",
  `from edgestudio.tools import edge_tool

CALLS = {"n": 0}


@edge_tool
def count() -> int:
    """Counts the calls this interpreter has seen."""
    CALLS["n"] += 1
    print("counted", CALLS["n"])
    return CALLS["n"]
`,
);
const HOSTILE = writeTestFile(TOOLS_DIR, "hostile_tools.py", HOSTILE_TOOLS);
const NAPPER = writeTestFile(
  TOOLS_DIR,
  "napper.py",
  `import time

from edgestudio.tools import edge_tool


@edge_tool
def nap() -> int:
    """Sleeps for a minute."""
    time.sleep(60)
    return 1
`,
);
const ENV = {
  ...process.env,
  EDGE_DATA_DIR: join(tmp, "data"),
  XDG_RUNTIME_DIR: RUNTIME,
  EDGE_RUNNER_KEEPER: "1",
  EDGE_RUNNER_KEEPER_IDLE_MS: "300000",
};
const FEE = ["tools", "call", join(EXAMPLES, "tools.py"), "fee_quote", "--args", '{"amount": 250}', "--json"];
const started = new Set<number>();

/** The keeper's files in this test's runtime folder (there is one: one data folder, one package). */
function paths(): KeeperPaths | undefined {
  const dir = join(RUNTIME, "edge-web");
  const sock = readdirSync(dir).find((f) => f.endsWith(".sock"));
  if (!sock) return undefined;
  return keeperPathsOf(join(dir, sock));
}

/** The keeper's status once both of its runners are booted. */
async function readyKeeper(): Promise<KeeperStatus> {
  return waitFor(
    "the keeper's two runners",
    async () => {
      const p = paths();
      const status = p ? await keeperStatus(p) : undefined;
      if (status) started.add(status.pid);
      return status && status.sparesReady === 2 ? status : undefined;
    },
    120_000,
    200,
  );
}

/** What a call prints, without what differs between any two calls (ids, times, receipts). */
function comparable(json: Record<string, unknown>): Record<string, unknown> {
  const { call_id: _c, duration_ms: _d, receipt_id: _r, receipt_sha256: _s, ...rest } = json;
  return rest;
}

afterAll(async () => {
  for (const pid of started) if (isAlive(pid)) process.kill(pid, "SIGTERM");
  await waitFor("the keepers to end", () => ([...started].some(isAlive) ? undefined : true), 30_000);
  rmSync(tmp, { recursive: true, force: true });
});

describe("the runner keeper", () => {
  it("is started by a one-shot command; the next commands take its runners and print the same", async () => {
    // The first command in a new data folder makes the snapshot: it has nothing fast to keep yet.
    const first = await edgeCliWithEnv(ENV, ...FEE);
    expect(first.code).toBe(0);
    const local = await edgeCliWithEnv({ ...ENV, EDGE_RUNNER_KEEPER: "0" }, ...FEE);
    expect(local.code).toBe(0);
    expect(paths()).toBeUndefined(); // EDGE_RUNNER_KEEPER=0 starts none
    const second = await edgeCliWithEnv(ENV, ...FEE); // starts the keeper when it closes
    expect(second.code).toBe(0);
    const before = await readyKeeper();
    const kept = await edgeCliWithEnv(ENV, ...FEE);
    expect(kept.code).toBe(0);
    expect(kept.err).toBe("");
    expect(comparable(kept.json)).toEqual(comparable(local.json));
    expect(kept.json).toMatchObject({ ok: true, result: { fee: 0.75 }, runner_secret_verified: true });
    const after = await readyKeeper();
    expect(after.pid).toBe(before.pid);
    // The call's runner only: the discovery of these bytes was kept by the commands before
    // (src/runner/discovery-cache.ts).
    expect(after.served - before.served).toBe(1);
  }, 300_000);

  it("gives each job a fresh runner: module state never carries over, and a tool's output is its call's", async () => {
    for (let i = 0; i < 2; i++) {
      await readyKeeper();
      const r = await edgeCliWithEnv(ENV, "tools", "call", COUNTER, "count", "--json");
      expect(r.code).toBe(0);
      expect(r.json).toMatchObject({ ok: true, result: { result: 1 } }); // a scalar return is wrapped
      expect(r.json.stderr).toContain("counted 1");
    }
  }, 300_000);

  it("its runners are sandboxed like any runner: the red team's probe is refused the same way", async () => {
    const before = await readyKeeper();
    const r = await edgeCliWithEnv(
      ENV,
      "tools",
      "call",
      HOSTILE,
      "probe",
      "--args",
      JSON.stringify({ scratch: join(tmp, "written.txt"), cache: join(tmp, "data", "cache") }),
      "--json",
    );
    expect(r.code).toBe(0);
    expect(r.json.result.env_keys).toEqual([]);
    for (const probe of [
      "environ_node",
      "child_process",
      "worker",
      "write_file",
      "inspector_connect",
      "signal_cli",
      "read_cache",
    ])
      expect(r.json.result[probe], probe).toMatch(/^refused/);
    expect((await readyKeeper()).served).toBeGreaterThan(before.served);
    // A runner that kills itself: the same failure as with a runner of the command's own.
    const crash = await edgeCliWithEnv(ENV, "tools", "call", HOSTILE, "suicide", "--json");
    expect(crash.code).toBe(1);
    expect(crash.json).toMatchObject({ ok: false, error: { code: "runner_crashed" } });
  }, 300_000);

  it("refuses a runner to anyone without its token, and ends when its socket file is removed", async () => {
    const { pid } = await readyKeeper();
    const p = paths()!;
    const answer = await askKeeper(p.socket, { token: "0".repeat(64), key: "x" });
    expect(answer).toEqual({ ok: false, reason: "token" });
    expect((await readyKeeper()).served).toBeGreaterThan(0); // still serving
    rmSync(p.socket);
    await waitFor("the keeper to end", () => (isAlive(pid) ? undefined : true), 30_000);
  }, 300_000);
});

describe("a command stopped while it runs on a kept runner", () => {
  it("Ctrl-C ends the command and its runner; the keeper stays and boots a replacement", async () => {
    await edgeCliWithEnv(ENV, ...FEE); // the keeper before ended with its socket: this starts the next one
    const before = await readyKeeper();
    const { child, done } = startNode([BIN, "tools", "call", NAPPER, "nap"], ENV);
    await waitFor(
      "the command to take a runner",
      async () => ((await keeperStatus(paths()!))?.served ?? 0) > before.served || undefined,
      60_000,
    );
    child.kill("SIGINT");
    const ended = await done;
    expect(ended.code ?? ended.signal).not.toBe(0);
    const after = await readyKeeper(); // two runners again: the napping one was killed, not kept
    expect(after.pid).toBe(before.pid);
    const r = await edgeCliWithEnv(ENV, ...FEE);
    expect(r.json).toMatchObject({ ok: true, result: { fee: 0.75 } });
  }, 300_000);
});
