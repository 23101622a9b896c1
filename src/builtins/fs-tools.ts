// The file tools on the workspace VFS: read_file, write_file, edit_file (exact, unique string
// replacement), read_image (MIME type + base64, size-bounded). Writes are execution level
// "commit": in a chat they ask first, unless the host allows built-in writes (see index.ts).
import { EdgeError } from "../contract/errors.ts";
import { defineTool, type AnyToolDefinition } from "../runtime/index.ts";
import { BUILTIN_KIND, closedOutputSchema, workspacePath, type BuiltinMeta } from "./shared.ts";
import type { EdgeVfs } from "./vfs/core.ts";

const DEFAULT_IMAGE_MAX_BYTES = 512 * 1024;
const MAX_CONTENT_CHARS = 1024 * 1024;

const meta = (writes: boolean, extra: Partial<BuiltinMeta> = {}): BuiltinMeta => ({
  kind: BUILTIN_KIND,
  writes,
  ...extra,
});
const dec = new TextDecoder();
const enc = new TextEncoder();

export function readFileTool(vfs: EdgeVfs): AnyToolDefinition {
  return defineTool<{ path: string; offset?: number; limit?: number }>({
    name: "read_file",
    description:
      "Read a text file of the workspace. Paths are absolute or relative to /workspace. offset (1-based line) and limit (lines) read part of a long file.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", minLength: 1, maxLength: 1024 },
        offset: { type: "integer", minimum: 1 },
        limit: { type: "integer", minimum: 1, maximum: 100000 },
      },
      required: ["path"],
      additionalProperties: false,
    },
    isConcurrencySafe: true,
    meta: meta(false),
    execute({ path, offset, limit }) {
      const p = workspacePath(path);
      const text = dec.decode(vfs.readBytes(p));
      const lines = text.split("\n");
      const total = text.endsWith("\n") ? lines.length - 1 : lines.length;
      if (offset === undefined && limit === undefined)
        return { path: p, bytes: enc.encode(text).byteLength, total_lines: total, content: text };
      const start = (offset ?? 1) - 1;
      const part = lines.slice(start, limit !== undefined ? start + limit : undefined).join("\n");
      return { path: p, bytes: enc.encode(text).byteLength, total_lines: total, from_line: start + 1, content: part };
    },
  });
}

export function writeFileTool(vfs: EdgeVfs): AnyToolDefinition {
  return defineTool<{ path: string; content: string }>({
    name: "write_file",
    description:
      "Create or replace a text file in the workspace (missing folders are created). Paths are absolute or relative to /workspace.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", minLength: 1, maxLength: 1024 },
        content: { type: "string", maxLength: MAX_CONTENT_CHARS },
      },
      required: ["path", "content"],
      additionalProperties: false,
    },
    executionLevel: "commit",
    outputSchema: closedOutputSchema({
      path: { type: "string" },
      bytes: { type: "integer" },
      created: { type: "boolean" },
    }),
    meta: meta(true),
    async execute({ path, content }) {
      const p = workspacePath(path);
      const data = enc.encode(content);
      const { created } = await vfs.writeBytes(p, data, { parents: true });
      return { path: p, bytes: data.byteLength, created };
    },
  });
}

export function editFileTool(vfs: EdgeVfs): AnyToolDefinition {
  return defineTool<{ path: string; old_string: string; new_string: string }>({
    name: "edit_file",
    description:
      "Replace one exact occurrence of old_string with new_string in a workspace text file. old_string must occur exactly once: include enough surrounding text to make it unique.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", minLength: 1, maxLength: 1024 },
        old_string: { type: "string", minLength: 1, maxLength: MAX_CONTENT_CHARS },
        new_string: { type: "string", maxLength: MAX_CONTENT_CHARS },
      },
      required: ["path", "old_string", "new_string"],
      additionalProperties: false,
    },
    executionLevel: "commit",
    outputSchema: closedOutputSchema({
      path: { type: "string" },
      bytes: { type: "integer" },
      replacements: { type: "integer" },
    }),
    meta: meta(true),
    async execute({ path, old_string, new_string }) {
      const p = workspacePath(path);
      const text = dec.decode(vfs.readBytes(p));
      const first = text.indexOf(old_string);
      if (first < 0)
        throw new EdgeError(
          "edit_not_found",
          { path: p },
          `edit_file: old_string does not occur in ${p}; read the file and copy the exact text to replace.`,
        );
      const second = text.indexOf(old_string, first + 1);
      if (second >= 0) {
        let count = 0;
        for (let i = text.indexOf(old_string); i >= 0; i = text.indexOf(old_string, i + old_string.length)) count++;
        throw new EdgeError(
          "edit_not_unique",
          { path: p, occurrences: count },
          `edit_file: old_string occurs ${count} times in ${p}; include more surrounding text so it matches exactly one place. Nothing was changed.`,
        );
      }
      const next = text.slice(0, first) + new_string + text.slice(first + old_string.length);
      const data = enc.encode(next);
      await vfs.writeBytes(p, data);
      return { path: p, bytes: data.byteLength, replacements: 1 };
    },
  });
}

/** Magic numbers of the image types a model can be handed. */
export function sniffImage(bytes: Uint8Array): string | null {
  const at = (i: number, ...xs: number[]) => xs.every((x, j) => bytes[i + j] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (at(0, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61)
    return "image/gif";
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "image/webp";
  return null;
}

export function readImageTool(vfs: EdgeVfs, maxBytes = DEFAULT_IMAGE_MAX_BYTES): AnyToolDefinition {
  return defineTool<{ path: string }>({
    name: "read_image",
    description: `Read a PNG, JPEG, GIF or WebP image of the workspace (at most ${maxBytes} bytes) as its MIME type and base64 data.`,
    parameters: {
      type: "object",
      properties: { path: { type: "string", minLength: 1, maxLength: 1024 } },
      required: ["path"],
      additionalProperties: false,
    },
    isConcurrencySafe: true,
    meta: meta(false, { spill: false }),
    execute({ path }) {
      const p = workspacePath(path);
      const bytes = vfs.readBytes(p);
      const mime = sniffImage(bytes);
      if (!mime)
        throw new EdgeError(
          "not_an_image",
          { path: p },
          `read_image: ${p} is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise); use read_file for text.`,
        );
      if (bytes.byteLength > maxBytes) {
        throw EdgeError.withTableFix(
          "image_too_large",
          { path: p, bytes: bytes.byteLength, limit: maxBytes },
          `read_image: ${p} is ${bytes.byteLength} bytes; the limit is ${maxBytes}.`,
        );
      }
      let bin = "";
      for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return { path: p, mime_type: mime, bytes: bytes.byteLength, base64: btoa(bin) };
    },
  });
}
