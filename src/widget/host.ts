// What the <edge-chat> element gives its reactive controllers (visitor-files.ts, model-file.ts,
// write-approvals.ts) besides lit's ReactiveControllerHost: its id prefix, its status line, and a
// failure outside a question shown in its log and emitted as edge-error. errorDetail is the one
// mapping from a thrown value to the detail of an edge-error event.
import { ERRORS, type ErrorCode } from "../contract/errors.ts";
import type { EdgeErrorDetail } from "./types.ts";

/** A failure outside a question (the visitor's files, a model file), as an entry of the log. */
export interface NoteEntry {
  kind: "error";
  code: string;
  message: string;
  title?: string;
}

export interface WidgetPorts {
  /** Prefix of the element's ids (labels, headings). */
  readonly uid: string;
  /** Sets the status line (read by screen readers). */
  status(text: string): void;
  /** Adds `entry` to the log, sets the status line to `status`, then emits `detail` as edge-error. */
  fail(entry: NoteEntry, status: string, detail: EdgeErrorDetail): void;
}

export function errorDetail(err: unknown): EdgeErrorDetail {
  const e = err as { code?: unknown; message?: unknown; details?: { tool?: unknown } } | null;
  const code = typeof e?.code === "string" && e.code in ERRORS ? (e.code as ErrorCode) : "invalid_argument";
  const message = typeof e?.message === "string" && e.message ? e.message : String(err);
  const tool = typeof e?.details?.tool === "string" ? e.details.tool : undefined;
  return { code, message, ...(tool ? { tool } : {}) };
}
