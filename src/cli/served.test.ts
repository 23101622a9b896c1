// Which commands the runner keeper runs for the launcher, and that the launcher
// (scripts/cli-served.cjs) finds exactly the keeper the command itself would use. The commands
// themselves, run by a real keeper, are tested in src/runner/keeper.test.ts.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { COMMAND_SERVER_LOST, keeperFiles } from "../../scripts/cli-served.cjs";
import { ERRORS } from "../contract/errors.ts";
import type { KeptCommand } from "../runner/keeper-wire.ts";
import { defaultKeeperPaths } from "../runner/node.ts";
import { BUILD_CURRENT, isKeptCommand, keptCommands } from "./served.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-served-"));
const RUNTIME = join(tmp, "runtime");
mkdirSync(join(RUNTIME, "edge-web"), { recursive: true, mode: 0o700 });
const BASE = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmp, XDG_RUNTIME_DIR: RUNTIME };
const globals = globalThis as Record<symbol, unknown>;

afterEach(() => {
  delete globals[BUILD_CURRENT];
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the launcher finds the command's own keeper", () => {
  it("the same socket and token as the CLI's runner host, for every data folder", () => {
    for (const env of [BASE, { ...BASE, EDGE_DATA_DIR: join(tmp, "data") }, { ...BASE, EDGE_DATA_DIR: join(tmp, "dätä with space") }, { ...BASE, EDGE_DATA_DIR: "relative/data" }]) {
      const ts = defaultKeeperPaths(env);
      expect(ts).toBeDefined();
      expect(keeperFiles(env)).toEqual({ socket: ts!.socket, token: ts!.token });
    }
  });

  it("none when keepers are off, or the runtime folder is not this user's private one", () => {
    expect(keeperFiles({ ...BASE, EDGE_RUNNER_KEEPER: "0" })).toBeUndefined();
    expect(keeperFiles({ ...BASE, EDGE_KEEPER_COMMANDS: "off" })).toBeUndefined();
    const open = join(tmp, "open-runtime");
    mkdirSync(join(open, "edge-web"), { recursive: true, mode: 0o755 });
    expect(keeperFiles({ ...BASE, XDG_RUNTIME_DIR: open })).toBeUndefined();
    expect(keeperFiles({ ...BASE, XDG_RUNTIME_DIR: join(tmp, "missing") })).toBeUndefined(); // never made by the launcher
  });

  it("its message when the keeper is lost mid-command is the error table's", () => {
    expect(COMMAND_SERVER_LOST).toBe(ERRORS.command_server_lost);
  });
});

describe("which commands a keeper runs", () => {
  const socket = defaultKeeperPaths(BASE)!.socket;
  const command = (over: Partial<KeptCommand> = {}): KeptCommand => ({ argv: ["tools", "call", "tools.py", "fee_quote"], cwd: tmp, env: BASE, node: process.version, execPath: process.execPath, ...over });
  const accept = (c: KeptCommand) => keptCommands(socket).accept(c);

  it("tools call, validate and inspect (also after Edge Studio's `demo`); nothing else", () => {
    for (const argv of [["tools", "call", "f.py", "t"], ["tools", "validate", "f.py"], ["demo", "tools", "inspect", "f.py"]]) expect(isKeptCommand(argv)).toBe(true);
    for (const argv of [["tools", "confirm", "p"], ["chat"], ["tools"], ["--version"], ["learn", "tools", "call"]]) expect(isKeptCommand(argv)).toBe(false);
  });

  it("runs a command only from a build that is still current; an outdated one declines and ends the keeper", () => {
    expect(accept(command())).toBe("declined"); // running from the sources: no build to check
    globals[BUILD_CURRENT] = () => false;
    expect(accept(command())).toBe("outdated");
    globals[BUILD_CURRENT] = () => true;
    expect(typeof accept(command())).toBe("function");
  });

  it("declines whatever could run differently in the keeper than in the command's own process", () => {
    globals[BUILD_CURRENT] = () => true;
    expect(accept(command({ node: "v0.0.1" }))).toBe("declined");
    expect(accept(command({ execPath: "/usr/local/bin/other-node" }))).toBe("declined");
    expect(accept(command({ argv: ["chat", "--prompt", "hi"] }))).toBe("declined");
    expect(accept(command({ env: { ...BASE, EDGE_KEEPER_COMMANDS: "0" } }))).toBe("declined");
    expect(accept(command({ env: { ...BASE, EDGE_PACKAGE_LOCK: "/x/pyodide-lock.json" } }))).toBe("declined");
    expect(accept(command({ cwd: join(tmp, "gone") }))).toBe("declined");
    // Another data folder: another keeper's runners and snapshot, not this one's.
    expect(accept(command({ env: { ...BASE, EDGE_DATA_DIR: join(tmp, "other") } }))).toBe("declined");
  });
});
