// Runs the runner-pyodide/edge_runner package under CPython (/usr/bin/python3) for cross-checks.
// Pyodide-based tests live elsewhere; here CPython is the reference interpreter.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const PYTHON = process.env.EDGE_TEST_PYTHON ?? "/usr/bin/python3";
export const HAS_PYTHON = existsSync(PYTHON);
/** Appended to describe() titles so a skipped run says why. */
export const SKIP_REASON = HAS_PYTHON ? "" : ` [skipped: ${PYTHON} not found; CI has it]`;

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, "../..");
const DRIVER = path.join(here, "driver.py");

export type Job = Record<string, unknown>;

export type Reply = any;

export function runJobs(jobs: Job[]): Reply[] {
  const res = spawnSync(PYTHON, [DRIVER], {
    input: JSON.stringify({ jobs }),
    env: { ...process.env, PYTHONPATH: path.join(ROOT, "runner-pyodide"), PYTHONDONTWRITEBYTECODE: "1" },
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    timeout: 60_000,
  });
  if (res.status !== 0) throw new Error(`python exited ${res.status}: ${res.stderr}`);
  return JSON.parse(res.stdout) as Reply[];
}

function runJob(job: Job): Reply {
  return runJobs([job])[0];
}

export function discover(source: string, extra: Job = {}): Reply {
  return runJob({ op: "discover", source, ...extra });
}

export function call(source: string, tool: string, args: unknown = {}, extra: Job = {}): Reply {
  return runJob({ op: "call", source, tool, args: JSON.stringify(args), ...extra });
}

export function sha256Hex(data: string | Uint8Array): string {
  return "sha256:" + createHash("sha256").update(data).digest("hex");
}

/** A tools file: the import line plus the given body. */
export function toolsFile(body: string, header = "from typing import Literal, Optional, List, Union, Any\n"): string {
  return header + "from edgestudio.tools import edge_tool\n\n" + body;
}
