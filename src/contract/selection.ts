// Active-set selection (docs/contract.md §3): at most 8 tools, narrowed by name and/or intent tag.
import { errorJson, type ErrorJson } from "./errors.ts";
import { didYouMean } from "./suggest.ts";
import { ACTIVE_TOOL_LIMIT, type DiscoveredTool, type Selection } from "./types.ts";

export interface SelectionResult {
  active: DiscoveredTool[];
  errors: ErrorJson[];
}

/**
 * With no filter every tool is active. With filters, a tool is active when its name was
 * given with `tool` or it carries one of the `toolTag` tags (a union: each filter adds tools).
 * Unknown names and tags that match nothing are errors, never silently ignored.
 * The result keeps the file's order.
 */
export function selectActiveSet(tools: readonly DiscoveredTool[], selection: Selection = {}): SelectionResult {
  const names = selection.tool ?? [];
  const tags = selection.toolTag ?? [];
  const errors: ErrorJson[] = [];
  const known = new Set(tools.map((t) => t.schema.name));
  for (const name of names) {
    if (!known.has(name)) {
      const message = `No tool named "${name}" is in the tools file.${didYouMean(name, known)} The file's tools: ${[...known].join(", ") || "none"}.`;
      errors.push(errorJson("unknown_tool", { tool: name, message }));
    }
  }
  for (const tag of tags) {
    if (!tools.some((t) => t.intent_tags.includes(tag))) {
      const allTags = new Set(tools.flatMap((t) => t.intent_tags));
      const message = `No tool carries the intent tag "${tag}".${didYouMean(tag, allTags)} The file's tags: ${[...allTags].join(", ") || "none"}.`;
      errors.push(errorJson("unknown_tool_tag", { message, tag }));
    }
  }
  const filtered = names.length === 0 && tags.length === 0;
  const active = filtered
    ? [...tools]
    : tools.filter((t) => names.includes(t.schema.name) || t.intent_tags.some((tag) => tags.includes(tag)));
  if (active.length > ACTIVE_TOOL_LIMIT) {
    errors.push(
      errorJson("active_tool_limit_exceeded", {
        message: `${active.length} tools would be active but at most ${ACTIVE_TOOL_LIMIT} are allowed; narrow the set with --tool NAME or --tool-tag TAG.`,
        count: active.length,
      }),
    );
  }
  return { active: errors.length ? [] : active, errors };
}
