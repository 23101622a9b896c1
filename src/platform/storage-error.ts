// Every storage failure (IndexedDB DOMException, Node fs error) becomes the one code of the error
// table, storage_failed, with what went wrong in details: the DOMException name (QuotaExceededError,
// InvalidStateError, VersionError…) or the fs error code (EACCES, EROFS, ENOSPC…). No DOM or Node
// import: both adapters use it, so it sits in src/platform
// beside node-files.ts, below every store (docs/architecture.md).
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
  const code = details.fs_code ?? details.name;
  const reason = typeof details.reason === "string" ? details.reason : "";
  // Node's messages already start with their code ("ENOENT: no such file…"): say it once.
  const why = code && !reason.startsWith(`${String(code)}:`) ? [code, reason].filter(Boolean).join(": ") : reason;
  return new EdgeError(
    "storage_failed",
    details,
    `Saving to local storage failed (${op}${why ? `: ${why}` : ""}); nothing was half-written. ${storageFix(code)}`,
  );
}

/** What to do about it, by the fs error code or DOMException name (the table's own sentence otherwise). */
function storageFix(code: unknown): string {
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return "Check that the folder exists (create it, or pick another path), then try again.";
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return "Check that you may write there (the folder's permissions, or set $EDGE_DATA_DIR to a folder you own), then try again.";
    case "ENOSPC":
    case "EDQUOT":
    case "QuotaExceededError":
      return "Free some space, then try again.";
    default:
      return "Check free space and permissions (in a browser: close the app's other tabs, or leave private mode), then try again.";
  }
}
