// The replies a runner makes on edge_runner's behalf (a refused package, a reply too long to send),
// the one JSON parse of edge_runner's reply, and how an error is told in a fatal message. What runs
// after tool code uses only the globals captured below, when this module is evaluated: tool code
// can reach JS globals (`import js`) and overwrite them.
import { MAX_REPLY_CHARS } from "./protocol.ts";

// Used after tool code ran: captured when this module is evaluated.
const isArray = Array.isArray;
const stringify = JSON.stringify;

/** An error that refuses a job, as edge_runner would report it. */
export interface JobError {
  code: string;
  message: string;
}

export function failedDiscovery(error: JobError): string {
  return stringify({
    ok: false,
    tools_file_sha256: "",
    schema_generator_version: "",
    tools: [],
    warnings: [],
    stderr: "",
    errors: [error],
  });
}

export function failedCall(error: JobError): string {
  return stringify({ ok: false, stderr: "", tools_file_sha256_verified: false, error });
}

export function safeParse(parse: typeof JSON.parse, text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = parse(text);
    return value && typeof value === "object" && !isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A reply too long to send, replaced by what it means (no tool result is that large). */
export function oversizedResult(chars: number): string {
  const message = `The tool's reply is ${chars} characters of JSON, more than a runner sends (${MAX_REPLY_CHARS}); its result is far over the result limit. Return a bounded dict.`;
  return stringify({
    ok: false,
    stderr: "",
    tools_file_sha256_verified: true,
    error: { code: "tool_result_oversized", message },
    diagnostics: { reply_chars: chars },
  });
}

export function oversizedDiscovery(chars: number): string {
  const message = `The tools' schemas are ${chars} characters of JSON, more than a runner sends (${MAX_REPLY_CHARS}); shorten the descriptions or split the file.`;
  return stringify({
    ok: false,
    tools_file_sha256: "",
    schema_generator_version: "",
    tools: [],
    warnings: [],
    stderr: "",
    errors: [{ code: "runner_reply_oversized", message }],
  });
}

export function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
