// Shared by the CLI tests: run `edge` in-process (or as its own process) and capture what it prints.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "./run.ts";

export const EXAMPLES = new URL("../../public/examples/", import.meta.url).pathname;

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

export const BIN = new URL("../../bin/edge.mjs", import.meta.url).pathname;

/** Run bin/edge.mjs as a separate process (a real CLI: its own stdout, environment and pid). */
export function edgeProcess(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (t: string) => void (stdout += t));
    child.stderr.setEncoding("utf8").on("data", (t: string) => void (stderr += t));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
