// The third red-team pass, runner half: what a writer of $EDGE_DATA_DIR can plant for a runner to
// follow, and which boundary a keeper's runners get. Through the real CLI, as its own process.
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keeperStatus } from "../runner/keeper-client.ts";
import { keeperPathsOf, type KeeperPaths } from "../runner/keeper-wire.ts";
import { snapshotKeyFile } from "../runner/node.ts";
import { runnerLaunch } from "../runner/runner-launch.ts";
import { edgeProcess, writeTestFile } from "../../test/cli.ts";
import { waitFor } from "../../test/processes.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-links-"));
const DATA = join(tmp, "data");
const CACHE = join(DATA, "cache");
const CONFIG = join(tmp, "config");
const RUNTIME = join(tmp, "runtime");
mkdirSync(RUNTIME, { mode: 0o700 });
// Removing the runtime folder removes the keepers' sockets: they end within seconds.
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const ENV = {
  ...process.env,
  EDGE_DATA_DIR: DATA,
  XDG_CONFIG_HOME: CONFIG,
  XDG_RUNTIME_DIR: RUNTIME,
  EDGE_RUNNER_KEEPER: "1",
};
const TOOLS_DIR = join(tmp, "tools");
mkdirSync(TOOLS_DIR);

const READER = writeTestFile(
  TOOLS_DIR,
  "reader.py",
  String.raw`
import js
from edgestudio.tools import edge_tool

@edge_tool(description="The network interfaces the runner sees.")
def interfaces() -> list:
    return list(js.Object.keys(js.process.getBuiltinModule("os").networkInterfaces()))

@edge_tool(description="Read a host file by its path, with Node's fs.")
def read(path: str) -> str:
    try:
        return "read: " + str(js.process.getBuiltinModule("fs").readFileSync(path, "utf8"))[:200]
    except BaseException as exc:
        return "refused: " + type(exc).__name__ + ": " + str(exc)[:200]
`,
);

const call = (tool: string, args: unknown, env = ENV) =>
  edgeProcess(["tools", "call", READER, tool, "--args", JSON.stringify(args), "--json"], env);

const keeperTokens = (): string[] | undefined => {
  const found = readdirSync(join(RUNTIME, "edge-web")).filter((n) => n.endsWith(".token"));
  return found.length ? found : undefined;
};

describe("a symlink planted in the snapshot cache", () => {
  it("does not let tool code read the user's files, the snapshot key or the keeper's token through it", async () => {
    const secret = `SECRET-${randomBytes(6).toString("hex")}`;
    const secretFile = join(tmp, "secret.txt");
    writeFileSync(secretFile, secret, { mode: 0o600 });
    // The links are planted after them, as a writer of the data folder would.
    // The first call makes the snapshot (and its key), the second boots from it and starts a keeper.
    for (let i = 0; i < 2; i++) {
      const r = await call("read", { path: secretFile });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).result.result).toMatch(/^refused/);
    }
    symlinkSync("/", join(CACHE, "runner-evil"));
    symlinkSync(tmp, join(CACHE, "runner-0123456789abcdef0123456789abcdef-0123456789abcdef.snapshot"));
    const key = snapshotKeyFile({ ...ENV });
    const tokens = await waitFor("the keeper the first call started", keeperTokens, 60_000);
    const targets = [
      join(CACHE, "runner-evil", secretFile),
      join(CACHE, "runner-evil", key),
      join(CACHE, "runner-0123456789abcdef0123456789abcdef-0123456789abcdef.snapshot", "secret.txt"),
      ...tokens.map((t) => join(CACHE, "runner-evil", RUNTIME, "edge-web", t)),
    ];
    for (const path of targets) {
      // Twice: a command's own runner, then (once a keeper started) a keeper's.
      for (let i = 0; i < 2; i++) {
        const r = await call("read", { path });
        expect(r.code, r.stderr).toBe(0);
        const result = JSON.parse(r.stdout).result.result as string;
        expect(result, path).toMatch(/^refused/);
        expect(result).not.toContain(secret);
      }
    }
    // The keeper's runners were among them, booted from its own copy of the snapshot.
    const status = await keeperStatus(
      keeperPathsOf(join(RUNTIME, "edge-web", tokens[0]!.replace(/\.token$/, ".sock"))),
    );
    expect(status?.served).toBeGreaterThan(0);
    expect(status?.bootsFailed).toBe(0);
  }, 240_000);
});

describe("a keeper started from a PATH without util-linux", () => {
  it("never serves its weaker runners to a command whose PATH has unshare and setpriv; the weaker boundary is announced", async () => {
    const launch = await runnerLaunch();
    if (launch.network !== "namespace" || !launch.parentDeath)
      return void console.warn(`skipped: no network namespace or parent-death signal here (${launch.reason})`);
    const bare = join(tmp, "bare-path");
    mkdirSync(bare);
    const WEAK = { ...ENV, PATH: bare };
    // Ends the keeper of the test above (its key is not this PATH's), then starts one from this PATH.
    rmSync(join(RUNTIME, "edge-web"), { recursive: true, force: true });
    // Twice: the first may have to make the snapshot, the second boots from it and starts the keeper.
    for (let i = 0; i < 2; i++) {
      const weak = await call("interfaces", {}, WEAK);
      expect(weak.code, weak.stderr).toBe(0);
      expect(JSON.parse(weak.stdout).result.result.length).toBeGreaterThan(0); // the host's network
      expect(weak.stderr).toMatch(
        /^edge: runners start without their own network namespace \(tool code can reach the network\) or the parent-death signal: no `unshare`/,
      );
    }
    // The keeper the weak calls started, once it has a runner. On a loaded machine a keeper may end
    // before that, or right after serving (a second keeper for the same socket gives way to the
    // first, which then ends as stale): another weak call then starts the next one. A timeout says
    // what the keeper last answered.
    let last: Awaited<ReturnType<typeof keeperStatus>>;
    const readyKeeper = async (): Promise<KeeperPaths | undefined> => {
      const [token] = await waitFor("the keeper the weak call started", keeperTokens, 60_000);
      const candidate = keeperPathsOf(join(RUNTIME, "edge-web", token!.replace(/\.token$/, ".sock")));
      const ready = async (): Promise<true | undefined> => {
        last = await keeperStatus(candidate);
        return (last?.sparesReady ?? 0) > 0 || undefined;
      };
      return waitFor("its runners", ready, 60_000).then(
        () => candidate,
        () => undefined,
      );
    };
    // Its own PATH's next command is served by it (its count goes up by one), and told again.
    let served: "yes" | "keeper ended" | "no keeper ready" = "no keeper ready";
    for (let attempt = 0; attempt < 3 && served !== "yes"; attempt++) {
      if (attempt > 0) {
        rmSync(join(RUNTIME, "edge-web"), { recursive: true, force: true });
        expect((await call("interfaces", {}, WEAK)).code).toBe(0);
      }
      const paths = await readyKeeper();
      if (!paths) continue;
      const servedBefore = (await keeperStatus(paths))?.served ?? 0;
      const again = await call("interfaces", {}, WEAK);
      expect(again.stderr).toMatch(/^edge: runners start without/);
      const after = await keeperStatus(paths);
      if (!after) {
        served = "keeper ended";
        continue;
      }
      expect(after.served).toBe(servedBefore + 1);
      served = "yes";
    }
    if (served !== "yes")
      throw new Error(
        `in 3 attempts no keeper was seen serving the weak PATH's command (${served}); the last status: ${JSON.stringify(last ?? "no keeper on its socket")}`,
      );
    // A command with util-linux on its PATH gets a runner in its own network namespace, and no notice.
    const strong = await call("interfaces", {});
    expect(strong.code, strong.stderr).toBe(0);
    expect(strong.stderr).toBe("");
    expect(JSON.parse(strong.stdout).result.result).toEqual([]);
  }, 600_000);
});
