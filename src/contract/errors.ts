// EdgeError and the JSON form of errors, over the one table of codes (error-table.ts): a code is
// a key of ERRORS, and its sentence is the message unless a site has specifics to add.

import { ERRORS } from "./error-table.ts";

export type ErrorCode = keyof typeof ERRORS;

/** The JSON form used by the CLI, receipts and discovery results. */
export interface ErrorJson {
  code: ErrorCode;
  message: string;
  tool?: string;
  parameter?: string;
  line?: number;
  [extra: string]: unknown;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERRORS, value);
}

export class EdgeError extends Error {
  override readonly name = "EdgeError";
  constructor(
    readonly code: ErrorCode,
    readonly details: Record<string, unknown> = {},
    message?: string,
  ) {
    super(message ?? ERRORS[code]);
  }

  /** An EdgeError whose message says what happened, then the table's fix for its code (fixOf):
   *  `EdgeError.withTableFix("zip_invalid", {}, "The archive is damaged (…); nothing was imported.")`. */
  static withTableFix(code: ErrorCode, details: Record<string, unknown>, happened: string): EdgeError {
    return new EdgeError(code, details, `${happened} ${fixOf(code)}`);
  }

  toJSON(): ErrorJson {
    const out: ErrorJson = { code: this.code, message: this.message };
    // package / packages / command: what a python_package_* error names, and the command that fixes it.
    for (const key of ["tool", "parameter", "line", "file", "package", "packages", "command"] as const) {
      if (this.details[key] !== undefined) out[key] = this.details[key] as never;
    }
    return out;
  }
}

/** An error object in the table's shape, with the table's sentence unless a more specific one is given. */
export function errorJson(code: ErrorCode, extra: Omit<Partial<ErrorJson>, "code"> = {}): ErrorJson {
  return { code, message: extra.message ?? ERRORS[code], ...stripUndefined(extra) } as ErrorJson;
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Any thrown value as an error object of the table (a value that is not an EdgeError is internal_error). */
export function toErrorJson(err: unknown): ErrorJson {
  if (err instanceof EdgeError) return err.toJSON();
  return errorJson("internal_error", { message: err instanceof Error ? err.message : String(err) });
}

/**
 * The fix part of a code's sentence, as a sentence of its own: the last sentence when the table's
 * sentence is "What. Fix.", else the clause after its last top-level "; " ("What; fix."), or the
 * whole sentence when it has neither. Append it to a specific message: `${specific} ${fixOf(code)}`.
 */
export function fixOf(code: ErrorCode): string {
  const sentences = ERRORS[code].split(/(?<=[.!?]) (?=[A-Z@`])/);
  const last = sentences[sentences.length - 1]!;
  const fix = sentences.length > 1 ? last : afterLastClause(last);
  const text = fix.charAt(0).toUpperCase() + fix.slice(1);
  return /[.!?]["'`)\]]*$/.test(text) ? text : `${text}.`;
}

/** The text after the last "; " outside brackets, or all of it. */
function afterLastClause(sentence: string): string {
  let depth = 0;
  let cut = -1;
  for (let i = 0; i < sentence.length; i++) {
    const c = sentence[i]!;
    if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) depth--;
    else if (c === ";" && sentence[i + 1] === " " && depth === 0) cut = i + 2;
  }
  return cut < 0 ? sentence : sentence.slice(cut);
}
