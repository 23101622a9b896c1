// What the <edge-chat> element gives its reactive controllers (visitor-files.ts, model-file.ts,
// write-approvals.ts) besides lit's ReactiveControllerHost: its id prefix, its status line, and a
// failure outside a question shown in its log and emitted as edge-error. errorDetail is the one
// mapping from a thrown value to the detail of an edge-error event (failureDetail: from a failed
// run's error object).
import type { ReactiveController, ReactiveControllerHost } from "lit";
import { toErrorJson, type ErrorJson } from "../contract/errors.ts";
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
  const { code, message, tool } = toErrorJson(err);
  return { code, message: message || String(err), ...(typeof tool === "string" && tool ? { tool } : {}) };
}

/** The detail of an edge-error event for a run that failed (its error object, as the receipt has it). */
export function failureDetail(error: ErrorJson): EdgeErrorDetail {
  return { code: error.code, message: error.message, ...(error.tool ? { tool: error.tool } : {}) };
}

/** A controller of the element whose `changed` holds from its change (`touch`) to the element's
 *  next update: the element reads it in willUpdate (a write card or a pending action's card that
 *  changed shows the log's end; a new model file starts a new session). */
export abstract class ChangeTracker implements ReactiveController {
  changed = false;

  constructor(protected readonly host: ReactiveControllerHost) {}

  hostUpdate(): void {
    this.changed = false; // after the element's willUpdate
  }

  protected touch(): void {
    this.changed = true;
    this.host.requestUpdate();
  }
}
