// Command dispatch for `edge`: resolve the words against the command table (src/cli/commands.ts),
// answer --help / -h / --version, and turn errors into exit codes (0 ok, 1 failed, 2 usage).
import { toErrorJson } from "../contract/errors.ts";
import { didYouMean } from "../contract/suggest.ts";
import { EDGE_RUNTIME_VERSION } from "../contract/version.ts";
import type { Command } from "./command-table.ts";
import { COMMANDS, commandHelp, commandName, commandsUnder, groupHelp, topHelp } from "./commands.ts";
import {
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  failureJson,
  printJson,
  sentences,
  terminalSafe,
  UsageError,
  type CliIO,
} from "./io.ts";

const HELP_FLAGS = new Set(["--help", "-h"]);

const HELP = topHelp(EDGE_RUNTIME_VERSION);

interface Resolved {
  command?: Command;
  /** The longest known group or command prefix of the words (for help and usage errors). */
  prefix: string[];
  rest: string[];
}

function resolve(words: string[]): Resolved {
  let best: Command | undefined;
  for (const c of COMMANDS) {
    if (
      c.path.length <= words.length &&
      c.path.every((w, i) => words[i] === w) &&
      (!best || c.path.length > best.path.length)
    )
      best = c;
  }
  if (best) return { command: best, prefix: [...best.path], rest: words.slice(best.path.length) };
  let prefix: string[] = [];
  for (let n = 1; n <= words.length; n++) {
    if (commandsUnder(words.slice(0, n)).length) prefix = words.slice(0, n);
    else break;
  }
  return { prefix, rest: words.slice(prefix.length) };
}

/** Where to send someone after a usage error: the command's own help, or its group's. */
function helpHint(prefix: readonly string[]): string {
  return `Run \`${prefix.length ? commandName(prefix) : "edge"} --help\` for usage.`;
}

/** "Did you mean `--prompt`?" for an unknown option, from the options the command's usage names. */
function optionHint(err: Error, command: Command | undefined): string {
  const unknown = /^Unknown option '(--?[^']+)'/.exec(err.message)?.[1];
  if (!unknown || !command) return "";
  return didYouMean(unknown, new Set(command.usage.match(/--[a-z][a-z0-9-]*/g) ?? []), (o) => `\`${o}\``).trim();
}

export async function runCli(argv: string[], rawIo: CliIO): Promise<number> {
  // Tool output, tracebacks, errors and model answers are printed through this io: control
  // characters in them show as escapes instead of acting on the terminal.
  const io = terminalSafe(rawIo);
  const json = argv.includes("--json");
  // Edge Studio's documented form: `edge demo chat …` is `edge chat …`.
  const words = argv[0] === "demo" ? argv.slice(1) : argv;
  const wantsHelp = words.some((w) => HELP_FLAGS.has(w)) || words[0] === "help";
  const target = resolve(words[0] === "help" ? words.slice(1) : words);
  try {
    if (words.length === 0) {
      io.out(HELP);
      return EXIT_USAGE;
    }
    if (words[0] === "--version" || words[0] === "-V" || words[0] === "-v") {
      if (json) printJson(io, { ok: true, version: EDGE_RUNTIME_VERSION });
      else io.out(`edge ${EDGE_RUNTIME_VERSION}\n`);
      return EXIT_OK;
    }
    if (wantsHelp) {
      io.out(target.command ? commandHelp(target.command) : target.prefix.length ? groupHelp(target.prefix) : HELP);
      return EXIT_OK;
    }
    if (!target.command) {
      const next = target.rest[0];
      // A near miss names the word that was meant: `edge tols validate` → "tools".
      const known = new Set(commandsUnder(target.prefix).map((c) => c.path[target.prefix.length]!));
      const hint = next ? didYouMean(next, known, (w) => `\`${commandName([...target.prefix, w])}\``) : "";
      if (!target.prefix.length) throw new UsageError(`Unknown command "${next}".${hint}`);
      throw new UsageError(
        next
          ? `Unknown subcommand "${commandName(target.prefix)} ${next}".${hint}`
          : `Missing subcommand: ${commandName(target.prefix)} …`,
      );
    }
    return await target.command.run(target.rest, io);
  } catch (err) {
    if (
      err instanceof UsageError ||
      (err instanceof TypeError && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS"))
    ) {
      const hint = optionHint(err, target.command);
      // Node's advice about positionals that start with "-" is noise when the option is a typo.
      const message = sentences(
        hint ? err.message.replace(/^(Unknown option '[^']+')\..*$/s, "$1") : err.message,
        hint,
        helpHint(target.prefix),
      );
      if (json) printJson(io, failureJson({ code: "usage_error", message }));
      else io.err(`edge: ${message}\n`);
      return EXIT_USAGE;
    }
    const e = toErrorJson(err);
    if (json) printJson(io, failureJson(e));
    else io.err(`edge: ${e.code}: ${e.message}\n`);
    return EXIT_FAILED;
  }
}
