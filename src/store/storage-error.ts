// Every storage failure (IndexedDB DOMException, Node fs error) becomes the one code of the error
// table, storage_failed, with what went wrong in details: the DOMException name (QuotaExceededError,
// InvalidStateError, VersionError…) or the fs error code (EACCES, EROFS, ENOSPC…). No DOM or Node
// import: both adapters use it.
import { EdgeError } from "../contract/errors.ts";

export function toStorageError(err: unknown, op: string, extra: Record<string, unknown> = {}): EdgeError {
  if (err instanceof EdgeError) return err;
  const details: Record<string, unknown> = { op, ...extra };
  if (typeof err === "object" && err !== null) {
    const e = err as { name?: unknown; code?: unknown; message?: unknown; path?: unknown };
    if (typeof e.name === "string") details.name = e.name;
    // DOMException.code is a legacy number; fs errors carry a string code such as EACCES.
    if (typeof e.code === "string") details.fs_code = e.code;
    if (typeof e.path === "string") details.path = e.path;
    if (typeof e.message === "string") details.reason = e.message;
  } else {
    details.reason = String(err);
  }
  const why = [details.fs_code ?? details.name, details.reason].filter(Boolean).join(": ");
  return new EdgeError("storage_failed", details, `Saving to local storage failed (${op}${why ? `: ${why}` : ""}); nothing was half-written.`);
}
