// The built-in tools' names, and the check of names a person typed: what the CLI needs before it
// knows whether any built-in runs (index.ts, which loads them all and just-bash, is imported only then).
import { EdgeError } from "../contract/errors.ts";
import { didYouMean } from "../contract/suggest.ts";

export const BUILTIN_TOOL_NAMES = [
  "read_file",
  "write_file",
  "edit_file",
  "read_image",
  "create_goal",
  "get_goal",
  "update_goal",
  "web_search",
  "bash",
] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** Without `tools`: the file tools and bash, plus web_search when a provider is configured. */
export const DEFAULT_BUILTINS: readonly BuiltinToolName[] = [
  "read_file",
  "write_file",
  "edit_file",
  "read_image",
  "bash",
];

/** Names checked against the built-ins (unknown_tool, with the near miss), as the tools' own type. */
export function checkBuiltinNames(names: readonly string[]): BuiltinToolName[] {
  for (const n of names) {
    if (!(BUILTIN_TOOL_NAMES as readonly string[]).includes(n)) {
      throw new EdgeError(
        "unknown_tool",
        { tool: n },
        `No built-in tool named "${n}".${didYouMean(n, BUILTIN_TOOL_NAMES)} The built-ins are: ${BUILTIN_TOOL_NAMES.join(", ")}. Use one of those names.`,
      );
    }
  }
  return names as BuiltinToolName[];
}
