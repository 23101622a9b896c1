// Shared by the CLI tests: run `edge` in-process and capture what it prints.
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
