// A write plan as text for people: what happens to each path, and a unified line diff of text
// files (jsdiff, loaded on demand). Shared by the playground's approval card and the widget's.
import type { FileChange, WritePlan } from "../write-plan.ts";
import { DIR } from "../write-plan.ts";
import { asText } from "./text.ts";

/** More diff lines than this are cut (the approval stays readable). */
const MAX_DIFF_LINES = 400;

export function describeChange(c: FileChange): string {
  if (c.type === "directory") return c.after === null ? "folder removed" : "new folder";
  if (c.before === null) return `new file, ${c.after!.byteLength} bytes`;
  if (c.after === null) return `deleted (was ${c.before.byteLength} bytes)`;
  return `changed, ${c.before.byteLength} → ${c.after.byteLength} bytes`;
}

/** The diff's lines ("+…", "-…", " …", "@@ … @@"), null for folders, [] + a note for binary. */
export async function diffLines(c: FileChange): Promise<{ lines: string[]; binary: boolean; cut: number } | null> {
  if (c.type === "directory" || c.before === DIR || c.after === DIR) return null;
  const before = c.before ? asText(c.before) : "";
  const after = c.after ? asText(c.after) : "";
  if (before === null || after === null) return { lines: [], binary: true, cut: 0 };
  const { structuredPatch } = await import("diff");
  const lines: string[] = [];
  for (const hunk of structuredPatch(c.path, c.path, before, after, "", "", { context: 3 }).hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines);
  }
  return { lines: lines.slice(0, MAX_DIFF_LINES), binary: false, cut: Math.max(0, lines.length - MAX_DIFF_LINES) };
}

/** Every change with its description and diff text (the widget renders this as is). */
export async function planText(plan: WritePlan): Promise<{ path: string; what: string; diff: string }[]> {
  return Promise.all(
    plan.changes.map(async (c) => {
      const d = await diffLines(c);
      const diff = !d
        ? ""
        : d.binary
          ? "Binary content: no line diff."
          : `${d.lines.join("\n")}${d.cut ? `\n… ${d.cut} more lines not shown` : ""}`;
      return { path: c.path, what: describeChange(c), diff };
    }),
  );
}
