// A file the command line names by descriptor (`--script <(jq …)` from bash gives `/dev/fd/63`) is
// one of the descriptors `edge` closes at start, so no runner inherits it (src/runner/descriptors.ts).
// Before they are closed, each one named so is opened again, by Node, which opens every file
// close-on-exec: the command reads the copy, and a child still inherits nothing.
import { openSync, readFileSync } from "node:fs";
import { inheritableDescriptors } from "../runner/descriptors.ts";

/** `/dev/fd/N` or `/proc/self/fd/N`, alone or as the value of `--flag=…`. */
const NAMED = /^(.*?)(?:\/dev\/fd|\/proc\/self\/fd)\/(\d+)$/;
const O_ACCMODE = 0o3;

function modeOf(fd: number): "r" | "w" | "r+" {
  const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1];
  const access = flags === undefined ? 0 : parseInt(flags, 8) & O_ACCMODE;
  return access === 1 ? "w" : access === 2 ? "r+" : "r";
}

/** `argv` with every inherited descriptor it names replaced by a close-on-exec copy's path. */
export function reopenNamedDescriptors(argv: readonly string[]): string[] {
  if (!argv.some((a) => NAMED.test(a))) return [...argv];
  const inherited = new Set(inheritableDescriptors());
  return argv.map((arg) => {
    const m = NAMED.exec(arg);
    const fd = m ? Number(m[2]) : NaN;
    if (!m || !inherited.has(fd)) return arg;
    try {
      return `${m[1]}/dev/fd/${openSync(`/proc/self/fd/${fd}`, modeOf(fd))}`;
    } catch {
      return arg; // a socket cannot be opened again: the command then says it could not read it
    }
  });
}
