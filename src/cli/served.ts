// The commands the runner keeper runs whole for the `edge` launcher (docs/cli.md, "Commands the
// keeper runs"): `edge tools call|validate|inspect`, the edit-and-check loop's one-shot commands.
// The launcher (scripts/cli-served.cjs) sends the command's words, working folder and environment
// before it loads any of the CLI; the keeper, whose CLI is loaded and warm, runs it exactly as the
// command's own process would (runCli, the same checks, runners taken from the keeper as always)
// and sends back what it prints and its exit code.
//
// A command is declined — the launcher then runs it itself, as without a keeper — whenever this
// process could differ from the one the launcher would start: code that is no longer what a new
// `edge` runs (an edited source, `npm install` since: the keeper then also ends), another node, a
// keeper that is not the one the command would use, a PATH whose launch tools (unshare, setpriv)
// are not the keeper's, EDGE_KEEPER_COMMANDS=0, or a setting this process reads once
// (EDGE_PACKAGE_LOCK).
import { statSync } from "node:fs";
import type { KeptCommandIO, KeptCommands } from "../runner/keeper.ts";
import { switchedOff, type KeptCommand } from "../runner/keeper-wire.ts";
import { defaultKeeperPaths } from "../runner/node.ts";
import { launchToolsOf, processLaunchTools } from "../runner/runner-launch.ts";
import { canonicalJson } from "../contract/hash.ts";
import { runCli } from "./run.ts";

/** The commands a keeper runs: one-shot, no terminal input, no model. */
const KEPT = new Set(["tools call", "tools validate", "tools inspect"]);

/** Whether this process still runs what a new `edge` would (scripts/cli-cache.cjs buildCheck, set by
 *  bin/edge.cjs for a keeper; undefined when the CLI runs from its sources). */
export const BUILD_CURRENT = Symbol.for("edge-web.cli-build-current");

/** `argv` is one of the KEPT commands (after Edge Studio's optional `demo`). */
export function isKeptCommand(argv: readonly string[]): boolean {
  const words = argv[0] === "demo" ? argv.slice(1) : argv;
  return KEPT.has(`${words[0]} ${words[1]}`);
}

/** The commands of the keeper listening on `socket`. */
export function keptCommands(socket: string): KeptCommands {
  // Loaded now, while the keeper boots its runners: the first command finds them ready.
  void import("./tools.ts").catch(() => undefined);
  return {
    accept(command) {
      const buildCurrent = (globalThis as Record<symbol, unknown>)[BUILD_CURRENT];
      if (typeof buildCurrent !== "function" || command.node !== process.version || command.execPath !== process.execPath) return "declined";
      if (!buildCurrent()) return "outdated";
      const env = command.env;
      if (!isKeptCommand(command.argv) || switchedOff(env.EDGE_KEEPER_COMMANDS) || env.EDGE_PACKAGE_LOCK !== undefined || !isFolder(command.cwd)) return "declined";
      if (defaultKeeperPaths(env)?.socket !== socket) return "declined";
      // Runners this keeper starts itself are launched through the tools of its own PATH.
      if (canonicalJson(launchToolsOf(env)) !== canonicalJson(processLaunchTools())) return "declined";
      return (io) => runAs(command, io);
    },
  };
}

/** runCli in the command's folder and environment; the keeper's own are back when it ends. */
async function runAs(command: KeptCommand, io: KeptCommandIO): Promise<number> {
  const own = { ...process.env };
  setEnv(command.env);
  try {
    process.chdir(command.cwd);
    return await runCli(command.argv, io);
  } finally {
    setEnv(own);
    process.chdir("/");
  }
}

/** process.env becomes exactly `env` (changed in place: Node's own reads of it see the same). */
function setEnv(env: Record<string, string | undefined>): void {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
