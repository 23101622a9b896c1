// What a test can see of other processes through /proc (Linux): who is whose child, whether a
// process is still alive (a zombie is not: it has ended and only waits to be reaped), its command line.
import { readdirSync, readFileSync } from "node:fs";

function stat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // pid (comm) state ppid …; comm may hold spaces and parentheses.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0]!, ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/** The running process `pid` (not a zombie). */
export function isAlive(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== "Z" && s.state !== "X";
}

/** The live direct children of `pid`. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s && s.ppid === pid && s.state !== "Z") out.push(Number(name));
  }
  return out;
}

/** The command line of `pid`, its arguments joined by spaces ("" once it is gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

/** Resolves once `check` returns a value other than undefined; rejects after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
