// Paths of the workspace file system: normalizing (absolute POSIX, nothing above "/"), a path's
// parent and its children's prefix, and the errors in the "ENOENT: …, op 'path'" form just-bash's
// commands print.
import { EdgeError, type ErrorCode } from "../../contract/errors.ts";

export const MAX_PATH_CHARS = 1024;
/** Reads as empty, swallows writes, is never stored (scripts redirect to it all the time). */
export const DEV_NULL = "/dev/null";

export function vfsError(
  code: ErrorCode,
  errno: string,
  what: string,
  op: string,
  path: string,
  extra: Record<string, unknown> = {},
): EdgeError {
  // just-bash commands print the message; the "ENOENT: …, op 'path'" form is what they expect.
  return new EdgeError(code, { path, errno, op, ...extra }, `${errno}: ${what}, ${op} '${path}'`);
}
export const notFound = (op: string, p: string) =>
  vfsError("vfs_not_found", "ENOENT", "no such file or directory", op, p);
export const isDir = (op: string, p: string) =>
  vfsError("vfs_is_directory", "EISDIR", "illegal operation on a directory", op, p);
export const notDir = (op: string, p: string) => vfsError("vfs_not_directory", "ENOTDIR", "not a directory", op, p);
export const exists = (op: string, p: string) => vfsError("vfs_exists", "EEXIST", "file already exists", op, p);

/** Normalize to an absolute POSIX path; `..` never climbs above `/` (there is nothing outside). */
export function normalizePath(path: string, base = "/"): string {
  if (typeof path !== "string" || path.length === 0 || path.length > MAX_PATH_CHARS || path.includes("\0")) {
    throw new EdgeError("vfs_invalid_path", { path: String(path).slice(0, 200) });
  }
  const joined = path.startsWith("/") ? path : `${base}/${path}`;
  const out: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}

export function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

export function childPrefix(dir: string): string {
  return dir === "/" ? "/" : `${dir}/`;
}
