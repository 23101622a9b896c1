// Output helpers shared by the CLI commands: JSON to stdout, coded errors, readable tables.
import type { ErrorJson } from "../contract/errors.ts";

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** `edge chat --interactive` left with a second Ctrl-C (the shell's 128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;

/** Thrown for a bad command line; turned into exit code 2 with usage help. */
export class UsageError extends Error {}

/**
 * Characters that can act on a terminal, or change what a reader sees, rather than show as text:
 * C0 controls (except tab and newline), DEL, C1 controls (U+009B is a one-character CSI in some
 * terminals), line/paragraph separators, every invisible format character (Unicode category Cf:
 * bidirectional overrides, isolates and the implicit marks U+200E, U+200F, U+061C; zero-width
 * spaces U+200B, U+2060, U+FEFF; tag characters, which smuggle text no one sees) except the two
 * joiners U+200C and U+200D that Persian, Indic scripts and emoji need, and lone surrogates (no
 * UTF-8 form; a terminal would show U+FFFD).
 */
const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]|(?![\u200c\u200d])\p{Cf}|\p{Cs}/gu;

/** `\uXXXX` for every UTF-16 unit of a character (a character beyond U+FFFF is two). */
function escapeUnits(c: string): string {
  let out = "";
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
}

/**
 * Text as it may reach a terminal: every character above written as a visible `\uXXXX` escape,
 * and carriage returns dropped (text cannot overwrite its line; CRLF text reads as lines). Tool
 * output, tracebacks, error messages and model answers are untrusted text; an escape sequence in
 * them must show, never act. Inside JSON text the escapes are JSON's own, so JSON output stays
 * valid and means the same. Character by character (a surrogate pair counts as one), so streamed
 * fragments are safe on their own.
 */
export function escapeControls(text: string): string {
  return text.replace(/\r/g, "").replace(TERMINAL_UNSAFE, escapeUnits);
}

/**
 * Untrusted text inside one printed line (a client's name, a file name): escapeControls, and line
 * breaks shown as `\n` / `\r`, so the text cannot end the line and forge the next one.
 */
export function escapeLine(text: string): string {
  return escapeControls(text.replace(/\r/g, "\\r").replace(/\n/g, "\\n"));
}

/** The CLI's output with escapeControls applied to everything it prints (run.ts wraps the io once,
 *  so no command can forget it). */
export function terminalSafe(io: CliIO): CliIO {
  return { out: (text) => io.out(escapeControls(text)), err: (text) => io.err(escapeControls(text)) };
}

/**
 * Sentences joined with a space, each ending in punctuation: a message from elsewhere (Node's
 * argument parser, a file system error) that stops without a full stop does not run into the
 * next sentence ("…position 1 Run `edge …`").
 */
export function sentences(...parts: string[]): string {
  return parts
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => (/[.!?…]["'`)\]]*$/.test(p) ? p : `${p}.`))
    .join(" ");
}

/**
 * The one JSON shape of a failed command (`--json`): `ok: false`, `error` — the error that
 * decided the outcome, `{code, message, …}` of the table — and `errors`, every problem found
 * (`error` first). Commands that find several problems (validate, inspect, an import) list them
 * all; the others list the one. Successful output has `ok: true` and no `error`.
 */
export function failureJson(
  error: ErrorJson,
  errors: readonly ErrorJson[] = [error],
  rest: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ok: false, ...rest, error, errors: errors.length ? errors : [error] };
}

export function printJson(io: CliIO, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

export function formatError(e: ErrorJson): string {
  const where = [
    e.tool ? `tool ${e.tool}` : "",
    e.parameter ? `parameter ${e.parameter}` : "",
    e.line ? `line ${e.line}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  return `  ${e.code}${where ? ` (${where})` : ""}: ${e.message}`;
}

/** A left-aligned text table; cells are plain text. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return (
    rows
      .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  "))
      .join("\n") + "\n"
  );
}
