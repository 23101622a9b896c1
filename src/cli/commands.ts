// The command table of `edge`: every command is data (its words, a one-line summary, its usage)
// plus the function that runs it. Dispatch, `--help` on every command and group, and the top-level
// help are all derived from this table, so a command cannot ship without its help (a test walks it).
// Handlers are imported when their command runs, not before: `edge --help` loads this table only,
// and `edge tools validate` never loads the engines, the facts code or chat (the built CLI keeps
// each command's modules in their own chunks, scripts/build-cli.mjs).
import type { Command } from "./command-table.ts";
import { FACTS_COMMANDS } from "./commands-facts.ts";
import { STORES_COMMANDS } from "./commands-stores.ts";
import { TOOLS_COMMANDS } from "./commands-tools.ts";

export const COMMANDS: readonly Command[] = [...TOOLS_COMMANDS, ...FACTS_COMMANDS, ...STORES_COMMANDS];

export const commandName = (path: readonly string[]): string => `edge ${path.join(" ")}`;

/** Groups (a prefix shared by several commands, e.g. ["tools", "pending"]) in table order. */
export function groupsOf(commands: readonly Command[] = COMMANDS): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const c of commands) {
    for (let n = 1; n < c.path.length; n++) {
      const prefix = c.path.slice(0, n);
      if (!seen.has(prefix.join(" "))) {
        seen.add(prefix.join(" "));
        out.push(prefix);
      }
    }
  }
  return out;
}

/** The commands under a group prefix. */
export function commandsUnder(prefix: readonly string[], commands: readonly Command[] = COMMANDS): Command[] {
  return commands.filter((c) => c.path.length > prefix.length && prefix.every((w, i) => c.path[i] === w));
}

export function commandHelp(c: Command): string {
  return `${commandName(c.path)} — ${c.summary}\n\nUsage:\n${indent(c.usage)}\n`;
}

export function groupHelp(prefix: readonly string[]): string {
  const rows = commandsUnder(prefix).map((c) => `  ${commandName(c.path).padEnd(30)} ${c.summary}`);
  return `${commandName(prefix)} — subcommands:\n${rows.join("\n")}\n\nRun \`${commandName(prefix)} SUBCOMMAND --help\` for one command's usage.\n`;
}

const indent = (text: string): string =>
  text
    .split("\n")
    .map((l) => (l ? `  ${l}` : l))
    .join("\n");

export function topHelp(version: string): string {
  const rows = COMMANDS.map((c) => `  ${commandName(c.path).padEnd(30)} ${c.summary}`);
  return `edge ${version} — Edge Web command line: your Python tools, called by a local model, safely.

Commands:
${rows.join("\n")}

edge demo COMMAND … is the same as edge COMMAND … (Edge Studio's documented form).
Run \`edge COMMAND --help\` for a command's usage; \`edge --version\` prints the version.
Exit codes: 0 valid / ok, 1 invalid / failed closed, 2 usage error.
Data (receipts, pending actions, imprints, facts) lives under $EDGE_DATA_DIR.
Discovery imports a tools.py inside an isolated Pyodide runner: its top-level code runs.
Only point edge at tool files you trust.

Each call runs in its own Node process under Node's permission model: no file writes, child
processes, workers or inspector, reads only of Pyodide's files, no environment, no inherited
descriptors. The network (docs/security.md): on Linux each runner gets its own empty network
namespace (\`unshare --user --net\`, where unprivileged user namespaces are allowed), so TCP and UDP
reach nothing. Elsewhere, and where that is refused, Node below 25 does not restrict the network:
only the removal of Node's network modules from the runner (not a boundary) stands between tool
code and TCP/UDP services. Unix sockets that are files are not covered by a network namespace:
below Node 25 only that removal covers them. From Node 25 the permission model itself denies the
network (Node's documentation; not yet tested with Edge).
`;
}
