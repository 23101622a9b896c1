// Names that come from outside the workspace (an uploaded file or folder, a zip entry, a file
// name typed in the Workspace tab, a directory given to the CLI) are checked strictly before
// anything is written: the VFS itself quietly resolves `..`, which is right for a shell's paths
// but would let an archive entry like `../../x` land somewhere the person did not choose.
import { EdgeError } from "../../contract/errors.ts";
import { WORKSPACE_DIR } from "../vfs/core.ts";
import { MAX_PATH_CHARS, normalizePath } from "../vfs/paths.ts";

/** Longest name of one path segment, as on common file systems (ext4, APFS, NTFS: 255). */
const MAX_NAME_CHARS = 255;

/**
 * `rel` (segments joined by "/", as in a zip entry or webkitRelativePath) joined under `dir`,
 * or a `vfs_invalid_path` error naming what is wrong. Backslashes count as separators (zips made
 * on Windows); empty segments from a leading or doubled slash are refused, as are "." and "..".
 */
export function importPath(rel: string, dir = WORKSPACE_DIR): string {
  const shown = JSON.stringify(rel.length > 120 ? `${rel.slice(0, 120)}…` : rel);
  const bad = (why: string): EdgeError =>
    new EdgeError(
      "vfs_invalid_path",
      { path: rel.slice(0, 200), reason: why },
      `The name ${shown} cannot be used in the workspace: ${why}. Nothing was written.`,
    );
  if (typeof rel !== "string" || rel.length === 0) throw bad("it is empty");
  if (rel.includes("\0")) throw bad("it contains a NUL character");
  const segments = rel.replace(/\\/g, "/").replace(/\/$/, "").split("/");
  for (const s of segments) {
    if (s === "") throw bad("it is absolute or has an empty part");
    if (s === "." || s === "..") throw bad(`"${s}" parts are not allowed (a name may not climb out of its folder)`);
    if (s.length > MAX_NAME_CHARS)
      throw bad(`a part is ${s.length} characters long; at most ${MAX_NAME_CHARS} are allowed`);
    if (/[\u0000-\u001f]/.test(s)) throw bad("it contains a control character");
  }
  const path = normalizePath(`${dir}/${segments.join("/")}`);
  if (path.length > MAX_PATH_CHARS)
    throw bad(`the full path would be ${path.length} characters; at most ${MAX_PATH_CHARS} are allowed`);
  return path;
}

/** A path inside `root` as the person sees it ("data.csv", "sub/x.txt"). */
export function relativeTo(root: string, path: string): string {
  return path === root ? "" : path.slice(root === "/" ? 1 : root.length + 1);
}
