// Built-in tools next to the Python tools: a toggle per built-in (off by default), shown like a
// Python tool — level, description, the schema the model sees and its schema_sha256 — and the
// "allow writes for this session" switch. The built-ins' code (just-bash is large) loads in its
// own chunk when this section first renders.
import { schemaSha256 } from "../contract/hash.ts";
import type { ToolSchema } from "../contract/types.ts";
import type { BuiltinToolName } from "../builtins/index.ts";
import type { App } from "./app.ts";
import { h, hashCode, pretty, replace } from "./dom.ts";

/** What the playground offers (web_search needs a provider, which the playground does not have). */
const OFFERED: readonly BuiltinToolName[] = [
  "read_file",
  "write_file",
  "edit_file",
  "read_image",
  "bash",
  "create_goal",
  "get_goal",
  "update_goal",
];

async function builtinSchemas(): Promise<{ schema: ToolSchema; sha: string }[]> {
  const [{ builtinToolDefinitions }, { openVfs }] = await Promise.all([
    import("../builtins/index.ts"),
    import("../builtins/vfs/core.ts"),
  ]);
  // Definitions on a throwaway VFS: only their schemas are read here.
  const defs = builtinToolDefinitions({ vfs: await openVfs(), tools: OFFERED });
  return Promise.all(
    defs.map(async (d) => {
      const schema: ToolSchema = {
        name: d.name,
        description: d.description,
        parameters: d.parameters as ToolSchema["parameters"],
        execution_level: d.executionLevel,
        return_direct: d.returnDirect,
        output_schema: d.outputSchema as ToolSchema["output_schema"],
      };
      return { schema, sha: await schemaSha256(schema) };
    }),
  );
}

export function mountBuiltinsSection(app: App, root: HTMLElement): void {
  const list = h("ul", { id: "builtin-list", class: "tool-list", "aria-label": "Built-in tools" });
  const allow = h("input", { type: "checkbox", id: "allow-writes" });
  allow.checked = app.allowWrites;
  allow.addEventListener("change", () => {
    app.setAllowWrites(allow.checked);
  });
  replace(
    root,
    h("h3", { id: "builtins-h" }, "Built-in tools (the workspace)"),
    h(
      "p",
      { class: "small muted" },
      "They work on the files of the Workspace tab and count toward the same limit of 8 tools. Writes (write_file, edit_file, bash that changes files) show their diff and wait for your approval.",
    ),
    list,
    h(
      "p",
      { class: "chip" },
      allow,
      h("label", { for: "allow-writes" }, "Allow writes for this session (no approval card)"),
    ),
  );
  void builtinSchemas().then((tools) => {
    for (const { schema: s, sha } of tools) {
      const id = `builtin-pick-${s.name}`;
      const box = h("input", { type: "checkbox", id, "data-builtin": s.name, "aria-describedby": `${id}-desc` });
      box.checked = app.builtins.includes(s.name as BuiltinToolName);
      box.addEventListener("change", () => {
        const next = new Set(app.builtins);
        if (box.checked) next.add(s.name as BuiltinToolName);
        else next.delete(s.name as BuiltinToolName);
        app.setBuiltins(OFFERED.filter((n) => next.has(n)));
      });
      list.append(
        h(
          "li",
          { class: "tool", "data-tool": s.name },
          h(
            "div",
            { class: "tool-head" },
            box,
            h("label", { for: id, class: "tool-name" }, s.name),
            h("span", { class: `badge level-${s.execution_level}` }, s.execution_level),
            h("span", { class: "tag" }, "built-in"),
          ),
          h("p", { id: `${id}-desc`, class: "tool-desc" }, s.description),
          h("p", { class: "tool-meta" }, "schema_sha256 ", hashCode(sha)),
          h("details", {}, h("summary", {}, "Schema (what the model sees)"), h("pre", { class: "json" }, pretty(s))),
        ),
      );
    }
  });
}
