// A copy of this repository's files in another folder, with node_modules linked (not copied): what a
// fresh clone would hold, for the tests that run the README's commands as written.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";

export const REPO = new URL("../", import.meta.url).pathname;

/** The files git would put in the next commit: tracked ones, and with `untracked` the new files it
 *  does not ignore; null outside a git checkout. */
export function repoFiles(untracked = false): string[] | null {
  try {
    const listed = execFileSync(
      "git",
      ["-C", REPO, "ls-files", "-z", ...(untracked ? ["--cached", "--others", "--exclude-standard"] : [])],
      { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
    );
    return listed.split("\0").filter(Boolean);
  } catch {
    return null;
  }
}

/** `files` (repository paths) copied into `dest`, node_modules linked to this checkout's. */
export function copyRepo(files: readonly string[], dest: string): void {
  for (const file of files) {
    if (!existsSync(join(REPO, file))) continue; // deleted in the working tree, not yet committed
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    cpSync(join(REPO, file), join(dest, file));
  }
  symlinkSync(join(REPO, "node_modules"), join(dest, "node_modules"), "dir");
}
