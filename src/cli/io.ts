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
 * Characters that can act on a terminal rather than show as text: C0 controls (except tab and
 * newline), DEL, C1 controls (U+009B is a one-character CSI in some terminals), line/paragraph
 * separators, bidirectional overrides and isolates (text that reads differently than it is), and
 * lone surrogates (no UTF-8 form; a terminal would show U+FFFD).
 */
const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text as it may reach a terminal: every character above written as a visible `\uXXXX` escape,
 * and carriage returns dropped (text cannot overwrite its line; CRLF text reads as lines). Tool
 * output, tracebacks, error messages and model answers are untrusted text; an escape sequence in
 * them must show, never act. Inside JSON text the escapes are JSON's own, so JSON output stays
 * valid and means the same. Character by character (a surrogate pair counts as one), so streamed
 * fragments are safe on their own.
 */
export function escapeControls(text: string): string {
  return text.replace(/\r/g, "").replace(TERMINAL_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The CLI's output with escapeControls applied to everything it prints (run.ts wraps the io once,
 *  so no command can forget it). */
export function terminalSafe(io: CliIO): CliIO {
  return { out: (text) => io.out(escapeControls(text)), err: (text) => io.err(escapeControls(text)) };
}

export function printJson(io: CliIO, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

export function formatError(e: ErrorJson): string {
  const where = [e.tool ? `tool ${e.tool}` : "", e.parameter ? `parameter ${e.parameter}` : "", e.line ? `line ${e.line}` : ""]
    .filter(Boolean)
    .join(", ");
  return `  ${e.code}${where ? ` (${where})` : ""}: ${e.message}`;
}

/** A left-aligned text table; cells are plain text. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ")).join("\n") + "\n";
}
