// Containment, Node half: tool code never controls the `edge` CLI. The red team's payloads
// (test/fixtures/hostile-tools.ts) run through the real CLI, as its own process, with a sentinel
// in its environment: each would have reached the CLI when runners were threads of it.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_GENERATOR_VERSION } from "../contract/types.ts";
import { createNodeRunnerHost, readRunnerPythonFiles, snapshotIndexFile, snapshotKey } from "../runner/node.ts";
import { runnerLaunch } from "../runner/runner-launch.ts";
import { HOSTILE_TOOLS, ROUND_TWO_TOOLS, SELF_CONFIRM_TOOLS } from "../../test/fixtures/hostile-tools.ts";
import { childrenOf, commandLine, isAlive, waitFor } from "../../test/processes.ts";
import { cli, edgeProcess, startEdge, startNode, writeTestFile } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-containment-"));
const DATA = join(tmp, "data");
const CACHE = join(DATA, "cache");
process.env.EDGE_DATA_DIR = DATA; // for the in-process `cli` calls below
// The tools files' folder is their tools project, mounted for them (docs/tools-projects.md): it
// holds only them, so the secrets, sockets and forged snapshots this file makes in `tmp` stay
// outside what tool code is given.
const TOOLS_DIR = join(tmp, "tools");
mkdirSync(TOOLS_DIR);
const HOSTILE = writeTestFile(TOOLS_DIR, "hostile_tools.py", HOSTILE_TOOLS);
const SELF_CONFIRM = writeTestFile(TOOLS_DIR, "self_confirm_tools.py", SELF_CONFIRM_TOOLS);
const ROUND_TWO = writeTestFile(TOOLS_DIR, "round_two_tools.py", ROUND_TWO_TOOLS);
const HOST_CALL = new URL("../../test/fixtures/host-call.ts", import.meta.url).pathname;
const SENTINEL = `sentinel-${randomBytes(12).toString("hex")}`;
const ENV = { ...process.env, EDGE_DATA_DIR: DATA, EDGE_TEST_SENTINEL: SENTINEL };

function script(name: string, calls: unknown[]): string {
  return writeTestFile(
    tmp,
    name,
    calls.map((c) => JSON.stringify(c)),
  );
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
      "environ_node",
      "environ_mount",
      "environ_python",
      "child_process",
      "worker",
      "write_file",
      "inspector_connect",
      "inspector_main_thread",
      "inspector_open",
      "signal_cli",
      "debug_cli",
      "renice_cli",
      "trace_events",
      "v8_flags",
      "read_cache",
      "poison_cache",
    ];
    for (const probe of refused) expect(out.result[probe], probe).toMatch(/^refused/);
    // Refused by Node's permission model itself (its message), not by anything tool code could undo.
    for (const probe of [
      "environ_node",
      "child_process",
      "worker",
      "write_file",
      "inspector_connect",
      "inspector_open",
    ]) {
      expect(out.result[probe], probe).toContain("Access to this API has been restricted");
    }
    // Mounting a host folder into Python: the permission model hides every path outside the reads.
    for (const probe of ["environ_mount", "read_cache", "poison_cache"])
      expect(out.result[probe], probe).toContain("does not exist");
    expect(existsSync(scratch)).toBe(false);
    expect(readdirSync(CACHE).filter((f) => f.includes("poison"))).toEqual([]);
  }, 120_000); // the first run in a fresh data folder makes the snapshot

  it("a runner that kills itself ends only itself: the CLI prints its JSON and the receipt (runner_crashed)", async () => {
    const s = script("suicide.json", [{ tool_name: "suicide", arguments: {} }]);
    const r = await edgeProcess(
      [
        "chat",
        "--tools",
        HOSTILE,
        "--tool",
        "suicide",
        "--engine",
        "scripted",
        "--script",
        s,
        "--prompt",
        "go",
        "--json",
      ],
      ENV,
    );
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: false, outcome: "failed_closed", error: { code: "runner_crashed" } });
    expect(out.receipt.calls[0]).toMatchObject({
      tool_name: "suicide",
      status: "failed_closed",
      code: "runner_crashed",
    });
    const stored = await cli("receipts", "show", out.run_id, "--json");
    expect(stored.code).toBe(0);
  });

  it("a commit tool cannot confirm its own pending action through the inspector", async () => {
    const s = script("submit.json", [{ tool_name: "submit", arguments: { order: "O-1" } }]);
    const r = await edgeProcess(
      ["chat", "--tools", SELF_CONFIRM, "--engine", "scripted", "--script", s, "--prompt", "Submit O-1.", "--json"],
      ENV,
    );
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ outcome: "pending_confirmation", error: { code: "tool_confirmation_required" } });
    const listed = await cli("tools", "pending", "list", "--json");
    expect(listed.json.pending.find((p: { id: string }) => p.id === out.pending_action.id)).toMatchObject({
      status: "pending",
    });
    const attempts = await cli("tools", "call", SELF_CONFIRM, "attempts", "--json");
    expect(attempts.json.result.connectToMainThread).toMatch(/^refused/);
    expect(attempts.json.result.connect).toMatch(/^refused/);
    expect(attempts.json.result.sigusr1).toMatch(/^refused/);
  });

  it("a tampered snapshot in the cache is detected and rebuilt, so it cannot change a later run", async () => {
    // A snapshot that boots fine but carries a forged edge_runner (another schema generator).
    const forgedRoot = join(tmp, "forged-runner");
    cpSync(new URL("../../runner-pyodide/", import.meta.url), forgedRoot, { recursive: true });
    const runnerPy = join(forgedRoot, "edge_runner", "schema.py");
    writeFileSync(
      runnerPy,
      readFileSync(runnerPy, "utf8").replace(SCHEMA_GENERATOR_VERSION, "edge.tools.schema.forged"),
    );
    const forgedCache = join(tmp, "forged-cache");
    const maker = createNodeRunnerHost({ pythonRoot: forgedRoot, cacheDir: forgedCache, spares: 0 });
    await maker.warm();
    await maker.close();
    const forged = readFileSync(join(forgedCache, readdirSync(forgedCache).find((f) => f.endsWith(".snapshot"))!));

    // Written over the cached snapshot (the first test made it), with the old-style metadata beside it.
    const cached = readdirSync(CACHE).find((f) => f.endsWith(".snapshot"))!;
    const forgedSha = createHash("sha256").update(forged).digest("hex");
    writeFileSync(join(CACHE, cached), forged);
    writeFileSync(
      join(CACHE, cached.replace(/\.snapshot$/, ".json")),
      JSON.stringify({ sha256: forgedSha, size: forged.byteLength }),
    );

    const r = await edgeProcess(["tools", "inspect", HOSTILE, "--json"], ENV);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, schema_generator_version: SCHEMA_GENERATOR_VERSION });
    // Rebuilt: the cache holds one snapshot again, the one the index (outside the folder) names.
    const index = JSON.parse(readFileSync(snapshotIndexFile(CACHE), "utf8"));
    expect(readdirSync(CACHE)).toEqual([index.file]);
    expect(
      createHash("sha256")
        .update(readFileSync(join(CACHE, index.file)))
        .digest("hex"),
    ).toBe(index.sha256);
    expect(index.sha256).not.toBe(forgedSha);
  }, 120_000);
});

// The second red-team pass. Each test is one hole, through the real CLI.
describe("round two: what the permission model leaves open around a runner process", () => {
  const TCP_SECRET = "LOCAL-SERVICE-SECRET-42";
  const UNIX_SECRET = `UNIX-SOCKET-SECRET-${randomBytes(6).toString("hex")}`;
  const FD_SECRET = `FD-SECRET-${randomBytes(6).toString("hex")}`;
  const sockDir = join(tmp, "private");
  const sock = join(sockDir, "service.sock");
  const secretFile = join(tmp, "secret.txt");
  const servers: Server[] = [];
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    writeFileSync(secretFile, `${FD_SECRET}\n`, { mode: 0o600 });
    mkdirSync(sockDir, { mode: 0o700 });
    const serve = (secret: string, listen: (s: Server) => void): Promise<Server> =>
      new Promise((resolve) => {
        const server = createServer((socket) => {
          connections++;
          socket.on("error", () => undefined); // a runner killed mid-read resets the connection
          socket.end(`${secret}\n`);
        });
        listen(server);
        server.once("listening", () => resolve(server));
      });
    const tcp = await serve(TCP_SECRET, (s) => s.listen(0, "127.0.0.1"));
    port = (tcp.address() as { port: number }).port;
    const unix = await serve(UNIX_SECRET, (s) => s.listen(sock));
    chmodSync(sock, 0o600);
    chmodSync(sockDir, 0o300); // the folder cannot be listed; the socket is reached by its path
    servers.push(tcp, unix);
  });
  afterAll(() => {
    for (const s of servers) s.close();
  });

  const call = (tool: string, args: unknown, extra: string[] = [], fds?: Record<number, number>) =>
    edgeProcess(["tools", "call", ROUND_TWO, tool, "--args", JSON.stringify(args), "--json", ...extra], ENV, fds);

  it("descriptors the CLI inherited (97<secret 99>>out) are closed before a runner starts, also by the library's host", async () => {
    const outFile = join(tmp, "out.txt");
    writeFileSync(outFile, "kept\n");
    const fds = { 97: openSync(secretFile, "r"), 99: openSync(outFile, "a") };
    try {
      const cli = startEdge(["tools", "call", ROUND_TWO, "descriptors", "--json"], ENV, fds);
      // The CLI itself let go of them (bin/edge.cjs) before it started any runner.
      await waitFor(
        "the CLI's first runner",
        () => childrenOf(cli.child.pid!).find((pid) => /permission/.test(commandLine(pid))),
        60_000,
      );
      expect(readdirSync(`/proc/${cli.child.pid}/fd`)).not.toContain("97");
      const viaCli = await cli.done;
      const viaHost = await startNode(["--import", "tsx", HOST_CALL, ROUND_TWO, "descriptors"], ENV, fds).done;
      for (const r of [viaCli, viaHost]) {
        expect(r.stdout).not.toContain(FD_SECRET);
        const out = JSON.parse(r.stdout);
        expect(out).toMatchObject({ ok: true, runner_secret_verified: true });
        for (const probe of ["read_97", "write_99", "truncate_99"])
          expect(out.result[probe], probe).toMatch(/^refused: .*EBADF/);
      }
      expect(readFileSync(outFile, "utf8")).toBe("kept\n");
    } finally {
      for (const fd of Object.values(fds)) closeSync(fd);
    }
  });

  it("the network: every door from the runner's JavaScript world is closed; on Linux the runner has no network", async () => {
    const launch = await runnerLaunch();
    const r = await call("network", { port, sock });
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: true, runner_secret_verified: true });
    const { interfaces, ...doors } = out.result;
    for (const [door, outcome] of Object.entries(doors)) expect(outcome, door).toMatch(/^refused/);
    if (launch.network === "namespace") expect(interfaces).toEqual([]);
    expect(connections).toBe(0);
  });

  it("the network namespace holds even for code that has `net` in hand (plain Node in a runner's launch)", async () => {
    const launch = await runnerLaunch();
    if (launch.network !== "namespace")
      return void console.warn(`skipped: runners get no network namespace here (${launch.reason})`);
    const probe = `const net = require("node:net"); const s = net.connect(${port}, "127.0.0.1");
      s.on("connect", () => { console.log("connected"); s.destroy(); }); s.on("error", (e) => console.log(e.code));
      require("node:dgram").createSocket("udp4").send("x", ${port}, "127.0.0.1", (e) => { console.log(e ? e.code : "sent"); process.exit(0); });`;
    const [command, ...args] = [...launch.prefix, process.execPath, "-e", probe];
    const r = spawnSync(command!, args, { encoding: "utf8", timeout: 30_000 });
    expect(r.stdout.trim().split("\n").sort()).toEqual(["ENETUNREACH", "ENETUNREACH"]);
    expect(connections).toBe(0);
  });

  it("a reply the runner did not produce fails runner_reply_unverified, after reading a local TCP service and a 0600 Unix socket", async () => {
    const r = await call("forge", { port, sock });
    expect(r.stdout).not.toContain(TCP_SECRET);
    expect(r.stdout).not.toContain(UNIX_SECRET);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: false, runner_secret_verified: false, error: { code: "runner_reply_unverified" } });
    expect(connections).toBe(0);
  });

  it("a 32 MiB frame from a runner is answered with a coded error within the time limit", async () => {
    const r = await call("bomb", { mib: 32 }, ["--timeout-ms", "10000"]);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: false, error: { code: "runner_crashed" } });
    // Within the time limit: past it the code would be runner_timeout. (duration_ms also counts the
    // runner's boot, so it is no measure of that on a loaded machine.)
    expect(out.diagnostics.reason).toMatch(/frame/);
  }, 180_000);

  it.each(["SIGTERM", "SIGHUP", "SIGKILL"] as const)(
    "%s to the CLI while a tool loops leaves no runner process",
    async (signal) => {
      const tag = `edge-spin-${randomBytes(6).toString("hex")}`;
      const { child, done } = startEdge(
        ["tools", "call", ROUND_TWO, "spin", "--args", JSON.stringify({ tag }), "--timeout-ms", "600000"],
        ENV,
      );
      const isRunner = (pid: number): boolean => /^edge-spin-|--(experimental-)?permission/.test(commandLine(pid));
      let runners: number[] = [];
      try {
        const spinning = await waitFor(
          "the looping runner",
          () => childrenOf(child.pid!).find((pid) => commandLine(pid).startsWith(tag)),
          120_000,
        );
        runners = childrenOf(child.pid!).filter(isRunner);
        expect(runners).toContain(spinning);
        child.kill(signal);
        expect((await done).signal).toBe(signal);
        await waitFor("every runner to end", () => (runners.some(isAlive) ? undefined : true), 15_000);
      } finally {
        for (const pid of runners.filter(isAlive)) process.kill(pid, "SIGKILL");
        child.kill("SIGKILL");
      }
    },
    180_000,
  );

  it("path APIs the permission model does not check (fs.realpathSync) are refused: nothing tells what exists", async () => {
    const paths = ["/etc/shadow", secretFile, sock, join(tmp, "no-such-file")];
    const r = await call("exists", { paths });
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: true });
    const answers = paths.map((p) => out.result[p] as Record<string, string>);
    for (const [i, apis] of answers.entries()) {
      for (const [api, outcome] of Object.entries(apis)) expect(outcome, `${api}(${paths[i]})`).toMatch(/^refused/);
      expect(apis, paths[i]).toEqual(answers[0]); // the same answer whether the path exists or not
    }
  });

  it("invisible direction marks and zero-width characters print as escapes in text mode (results, pending actions)", async () => {
    const MARKS = "a\u200eb\u200fc\u061cd\u200be\ufefff\u2060g\u180eh\u{e0041}i";
    const ESCAPED = "a\\u200eb\\u200fc\\u061cd\\u200be\\ufefff\\u2060g\\u180eh\\udb40\\udc41i";
    const RAW = /[\u061c\u180e\u200b\u200e\u200f\u2060\ufeff]|\u{e0041}/u;
    const text = await edgeProcess(
      ["tools", "call", ROUND_TWO, "marks", "--args", JSON.stringify({ text: `${MARKS} می\u200cخواهم 👩\u200d💻` })],
      ENV,
    );
    expect(text.code).toBe(0);
    expect(text.stdout).not.toMatch(RAW);
    expect(text.stdout).toContain(ESCAPED);
    expect(text.stdout).toContain("می\u200cخواهم 👩\u200d💻"); // the joiners stay: Persian, Indic scripts and emoji need them
    // A pending action's arguments, listed and shown.
    const pending = await cli("tools", "call", ROUND_TWO, "order", "--args", JSON.stringify({ note: MARKS }), "--json");
    expect(pending.json).toMatchObject({ outcome: "pending_confirmation" });
    const shown = await cli("tools", "pending", "show", pending.json.pending_action.id, "--json");
    expect(shown.json.pending.arguments.note).toBe(MARKS); // JSON output stays valid and means the same
    for (const argv of [
      ["tools", "pending", "list"],
      ["tools", "pending", "show", pending.json.pending_action.id],
    ]) {
      const r = await edgeProcess(argv, ENV);
      expect(r.stdout, argv.join(" ")).not.toMatch(RAW);
      expect(r.stdout, argv.join(" ")).toContain(ESCAPED);
    }
  }, 180_000);

  it("a forged snapshot with a rewritten index cannot make a commit tool run without confirmation", async () => {
    // A runner image whose discovery calls every tool "read", made into a snapshot that boots fine.
    const forgedRoot = join(tmp, "forged-levels");
    cpSync(new URL("../../runner-pyodide/", import.meta.url), forgedRoot, { recursive: true });
    const runnerPy = join(forgedRoot, "edge_runner", "discovery.py");
    const honest = readFileSync(runnerPy, "utf8");
    const forgedPy = honest.replace('"execution_level": self.execution_level,', '"execution_level": "read",');
    expect(forgedPy).not.toBe(honest);
    writeFileSync(runnerPy, forgedPy);
    const forgedCache = join(tmp, "forged-levels-cache");
    const maker = createNodeRunnerHost({ pythonRoot: forgedRoot, cacheDir: forgedCache, spares: 0 });
    await maker.warm();
    await maker.close();
    const forged = readFileSync(join(forgedCache, readdirSync(forgedCache).find((f) => f.endsWith(".snapshot"))!));

    // Whoever can write $EDGE_DATA_DIR puts it in the cache, with an index naming it under the real key.
    const key = snapshotKey(await readRunnerPythonFiles());
    const sha256 = createHash("sha256").update(forged).digest("hex");
    const file = `runner-${key.slice(0, 32)}-${sha256.slice(0, 16)}.snapshot`;
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(join(CACHE, file), forged);
    const indexFile = snapshotIndexFile(CACHE);
    const before = existsSync(indexFile)
      ? JSON.parse(readFileSync(indexFile, "utf8"))
      : { format: "edge-runner-snapshot-index.v1" };
    writeFileSync(indexFile, JSON.stringify({ ...before, key, file, sha256, size: forged.byteLength }));

    const s = script("order.json", [{ tool_name: "order", arguments: { note: "n" } }]);
    const r = await edgeProcess(
      [
        "chat",
        "--tools",
        ROUND_TWO,
        "--tool",
        "order",
        "--engine",
        "scripted",
        "--script",
        s,
        "--prompt",
        "Order.",
        "--json",
      ],
      ENV,
    );
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ outcome: "pending_confirmation", error: { code: "tool_confirmation_required" } });
    // The forged snapshot was not booted: the cache holds a fresh one.
    expect(JSON.parse(readFileSync(indexFile, "utf8")).sha256).not.toBe(sha256);
  }, 180_000);
});
