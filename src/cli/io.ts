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
