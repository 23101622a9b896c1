// SpillPolicy as an ordinary post-execute hook: a built-in tool's output above the inline
// limit is written in full through the provided writer (the virtual file system) and the
// result is replaced by a preview the model can afford. Python tools are never spilled:
// their 64 KB limit is a fail-closed rule (tool_result_oversized) enforced by the loop.
import { utf8 } from "../contract/hash.ts";
import { EdgeError } from "../contract/errors.ts";
import { isPythonTool } from "./define.ts";
import type { AnyToolDefinition, DeepReadonly, PostExecuteHook, ToolCall } from "./types.ts";

export interface SpillPolicyOptions {
  /** Results whose serialized UTF-8 size is above this many bytes are spilled. */
  inlineLimitBytes: number;
  write(path: string, text: string): Promise<void>;
  /** Which (non-Python) tools this applies to. Default: all of them. */
  appliesTo?(def: AnyToolDefinition): boolean;
  /** Where the full text goes. Default: /.edge/spill/<tool>-<call id>.txt */
  pathFor?(call: DeepReadonly<ToolCall>, def: AnyToolDefinition): string;
  /** Characters kept at each end. Default: min(1000, inlineLimitBytes / 8), so the preview
   *  (≤ 3 UTF-8 bytes per UTF-16 unit, head + tail) stays under the limit. */
  previewChars?: number;
}

export interface SpilledResult {
  spilled: true;
  path: string;
  bytes: number;
  head: string;
  tail: string;
}

export function spillPolicy(options: SpillPolicyOptions): PostExecuteHook {
  const limit = options.inlineLimitBytes;
  if (!(Number.isInteger(limit) && limit >= 0)) {
    throw new EdgeError(
      "invalid_option",
      { inlineLimitBytes: limit },
      "spillPolicy: inlineLimitBytes must be a non-negative integer. Pass 0 or a larger whole number.",
    );
  }
  const previewChars = options.previewChars ?? Math.min(1000, Math.floor(limit / 8));
  const appliesTo = options.appliesTo ?? (() => true);
  const pathFor = options.pathFor ?? defaultPath;

  return async ({ call, tool, result }) => {
    if (isPythonTool(tool) || !appliesTo(tool)) return { action: "accept" };
    const text = serialize(result);
    // Not serializable: nothing to measure or write; the loop's result checks refuse it.
    if (text === null) return { action: "accept" };
    const bytes = utf8(text).byteLength;
    if (bytes <= limit) return { action: "accept" };
    const path = pathFor(call, tool);
    try {
      await options.write(path, text);
    } catch (err) {
      // Replacing without having written would hand the model a path to nothing: fail closed.
      throw EdgeError.withTableFix(
        "tool_hook_failed",
        { tool: tool.name, reason: String(err) },
        `Spill policy could not write ${path}: ${String(err)}.`,
      );
    }
    const spilled: SpilledResult = {
      spilled: true,
      path,
      bytes,
      head: head(text, previewChars),
      tail: tail(text, previewChars),
    };
    return { action: "replace", result: spilled };
  };
}

/** Strings are spilled as they are (command output, file text); anything else as JSON. */
function serialize(value: unknown): string | null {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? null;
  } catch {
    return null;
  }
}

function defaultPath(call: DeepReadonly<ToolCall>, def: AnyToolDefinition): string {
  return `/.edge/spill/${def.name}-${call.id.replace(/[^A-Za-z0-9_.-]/g, "_")}.txt`;
}

// Cut on code-unit boundaries but never inside a surrogate pair.
function head(text: string, n: number): string {
  let out = text.slice(0, n);
  const last = out.charCodeAt(out.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) out = out.slice(0, -1);
  return out;
}

function tail(text: string, n: number): string {
  if (n === 0) return "";
  let out = text.slice(-n);
  const first = out.charCodeAt(0);
  if (first >= 0xdc00 && first <= 0xdfff) out = out.slice(1);
  return out;
}
