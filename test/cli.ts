// Shared by the CLI tests (src/cli/*.test.ts, *.test-helpers.ts): run `edge` in-process (or as its own process) and capture what it prints.
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../src/cli/run.ts";

export const EXAMPLES = new URL("../public/examples/", import.meta.url).pathname;

export interface CliResult {
  code: number;
  out: string;
  err: string;
  /** stdout parsed as JSON, when it is JSON. */
  json: any;
}

export async function cli(...argv: string[]): Promise<CliResult> {
  let out = "";
  let err = "";
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  let json: unknown;
  try {
    json = JSON.parse(out);
  } catch {
    json = undefined;
  }
  return { code, out, err, json };
}

/** Write `value` (text, or JSON for anything else) to `dir/name`; returns the path. */
export function writeTestFile(dir: string, name: string, value: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof value === "string" ? value : JSON.stringify(value));
  return p;
}

export const BIN = new URL("../bin/edge.cjs", import.meta.url).pathname;
const ROOT = new URL("../", import.meta.url).pathname;

export interface EdgeProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Start `node ARGS…` as a separate process, in `cwd` (the package's folder unless given). `fds`
 *  adds descriptors it inherits, as a shell's `97<file` would: child fd → an open fd of this process. */
export function startNode(
  args: string[],
  env: NodeJS.ProcessEnv,
  fds: Record<number, number> = {},
  cwd = ROOT,
): { child: ChildProcess; done: Promise<EdgeProcessResult> } {
  const stdio: StdioOptions = ["ignore", "pipe", "pipe"];
  for (const [target, fd] of Object.entries(fds)) {
    for (let i = stdio.length; i < Number(target); i++) stdio.push("ignore");
    stdio[Number(target)] = fd;
  }
  const child = spawn(process.execPath, args, { env, stdio, cwd });
  const done = new Promise<EdgeProcessResult>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (t: string) => void (stdout += t));
    child.stderr!.setEncoding("utf8").on("data", (t: string) => void (stderr += t));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Start bin/edge.cjs as a separate process (a real CLI: its own stdout, environment and pid). */
export function startEdge(
  argv: string[],
  env: NodeJS.ProcessEnv,
  fds?: Record<number, number>,
): { child: ChildProcess; done: Promise<EdgeProcessResult> } {
  return startNode([BIN, ...argv], env, fds);
}

/** Run bin/edge.cjs as a separate process to its end. */
export function edgeProcess(
  argv: string[],
  env: NodeJS.ProcessEnv,
  fds?: Record<number, number>,
): Promise<EdgeProcessResult> {
  return startEdge(argv, env, fds).done;
}

/** `node bin/edge.cjs ARGV…` as a person runs it (its own process), with `dataDir` as
 *  $EDGE_DATA_DIR; stdout parsed as JSON when it is JSON. */
export function edgeCli(dataDir: string, ...argv: string[]): Promise<CliResult> {
  return edgeCliWithEnv({ ...process.env, EDGE_DATA_DIR: dataDir }, ...argv);
}

/** `edgeCli` with the whole environment given. */
export function edgeCliWithEnv(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<CliResult> {
  return edgeCliIn(ROOT, env, ...argv);
}

/** `edgeCliWithEnv` run in the folder `cwd`. */
export async function edgeCliIn(cwd: string, env: NodeJS.ProcessEnv, ...argv: string[]): Promise<CliResult> {
  const r = await startNode([BIN, ...argv], env, {}, cwd).done;
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.code ?? -1, out: r.stdout, err: r.stderr, json };
}

/** `command` run by a shell (`/bin/sh`, or bash for its process substitution) to its end. */
export function runShell(
  command: string,
  opts: { shell?: string; cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(opts.shell ?? "/bin/sh", ["-c", command], {
    cwd: opts.cwd ?? ROOT,
    env: opts.env ?? process.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (t: string) => void (out += t));
  child.stderr.setEncoding("utf8").on("data", (t: string) => void (err += t));
  child.stdin.end(opts.stdin ?? "");
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

/** `command` as a person pastes a printed one: `sh -c` in a new folder outside the checkout, with
 *  only PATH and HOME set (no EDGE_DATA_DIR, no npm environment). */
export function runAsPrinted(command: string): Promise<{ code: number | null; out: string; err: string }> {
  const cwd = mkdtempSync(join(tmpdir(), "edge-person-"));
  return runShell(command, { cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? cwd } });
}
