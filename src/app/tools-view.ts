// The tools panel's view: the inspect status line, the file's problems (a line number jumps to the
// line), the places of the packages box and the built-ins section, the tag and tool checkboxes of
// the active-set selection with each tool's schema and hashes, the active-set line, "Freeze / new
// session", the source-changed notice and the session line. What the checkboxes and buttons do is
// the panel's controller (tools-panel.ts), reached through ToolsViewActions.
import type { ErrorJson } from "../contract/errors.ts";
import type { Sha256 } from "../contract/hash.ts";
import { ACTIVE_TOOL_LIMIT } from "../contract/types.ts";
import type { FrozenTool, ToolsetReport } from "../toolset/freeze.ts";
import type { SessionInfo } from "./state.ts";
import { h, hashCode, ms, pretty, replace, setStatus } from "./dom.ts";

/** What the view's own controls ask of the controller. */
export interface ToolsViewActions {
  goToLine(line: number): void;
  toggleTag(tag: string, checked: boolean): void;
  toggleTool(name: string, checked: boolean): void;
  /** "Use tools.py again" on a session whose tools come from facts or a manifest. */
  backToPython(): void;
}

export type ToolsView = ReturnType<typeof mountToolsView>;

function levelBadge(level: string): HTMLElement {
  return h("span", { class: `badge level-${level}`, title: `execution_level: ${level}` }, level);
}

export function mountToolsView(root: HTMLElement, actions: ToolsViewActions) {
  const status = h(
    "p",
    { id: "tools-status", class: "status", role: "status", "aria-live": "polite", "data-state": "busy" },
    "Starting the Python runner…",
  );
  const errors = h("div", { id: "tools-errors" });
  const packagesRoot = h("div", { id: "python-packages" });
  const tagBox = h("fieldset", { id: "tag-select", class: "chips" });
  const list = h("ul", { id: "tool-list", class: "tool-list", "aria-label": "Tools found in the file" });
  const activeLine = h("p", { id: "active-set", class: "muted" });
  const freezeBtn = h("button", { type: "button", id: "freeze", class: "primary" }, "Freeze / new session");
  const sessionLine = h("p", { id: "session-info", class: "session-info", role: "status", "aria-live": "polite" });
  const changed = h("p", { id: "source-changed", class: "notice warn", hidden: true });
  const builtins = h("section", { id: "builtins", class: "builtins", "aria-labelledby": "builtins-h" });

  replace(
    root,
    status,
    errors,
    packagesRoot,
    h("div", { class: "selection" }, tagBox, list, builtins, activeLine),
    h("div", { class: "freeze-row" }, freezeBtn),
    changed,
    sessionLine,
  );

  function renderErrors(problems: readonly ErrorJson[], warnings: readonly ErrorJson[]): void {
    const items = [...problems.map((e) => ({ e, kind: "error" })), ...warnings.map((e) => ({ e, kind: "warning" }))];
    if (!items.length) {
      replace(errors);
      return;
    }
    replace(
      errors,
      h(
        "ul",
        { class: "problems", "aria-label": "Problems in the tools file" },
        ...items.map(({ e, kind }) => problemItem(e, kind, actions)),
      ),
    );
  }

  /** Empty the tag and tool checkboxes before the selection is drawn again. */
  function clearSelection(): void {
    replace(tagBox);
    replace(list);
  }

  /** The tag checkboxes (`checked`: the selection's tags; `filtered`: anything checked at all). */
  function showTags(tags: readonly string[], checked: readonly string[], filtered: boolean): void {
    tagBox.appendChild(
      h(
        "legend",
        {},
        "Narrow the active set by tag or tool ",
        h(
          "span",
          { class: "muted" },
          filtered ? "(union of the checked)" : `(nothing checked: all tools, at most ${ACTIVE_TOOL_LIMIT})`,
        ),
      ),
    );
    for (const tag of tags) {
      const id = `tag-${tag}`;
      const box = h("input", { type: "checkbox", id, "data-tag": tag });
      box.checked = checked.includes(tag);
      box.addEventListener("change", () => actions.toggleTag(tag, box.checked));
      tagBox.appendChild(h("span", { class: "chip" }, box, h("label", { for: id }, `#${tag}`)));
    }
    if (!tags.length) tagBox.appendChild(h("span", { class: "muted" }, "No intent tags in this file."));
  }

  /** One item per tool of the file: its checkbox, badges, description, hashes and schema. */
  function showTools(tools: readonly FrozenTool[], checked: readonly string[], activeNames: ReadonlySet<string>): void {
    for (const tool of tools)
      list.appendChild(toolItem(tool, checked.includes(tool.schema.name), activeNames.has(tool.schema.name), actions));
  }

  function showActiveProblem(text: string): void {
    activeLine.textContent = text;
    activeLine.dataset.state = "error";
  }

  function renderSession(cur: SessionInfo | null, sourceChanged: boolean): void {
    if (!cur) {
      sessionLine.textContent = "No session yet.";
      return;
    }
    renderSessionLine(sessionLine, cur, actions);
    changed.hidden = !sourceChanged;
  }

  /** The notice under Freeze: what changed since the session froze its tools. */
  function showChanged(text: string): void {
    changed.hidden = false;
    changed.textContent = text;
  }

  return {
    status,
    errors,
    packagesRoot,
    tagBox,
    list,
    activeLine,
    freezeBtn,
    changed,
    builtins,
    renderErrors,
    clearSelection,
    showInspected: (report: ToolsetReport, reportMs: number) => showInspected(status, report, reportMs),
    showTags,
    showTools,
    showActiveProblem,
    showActiveSet: (text: string, sha: Sha256) => replace(activeLine, text, hashCode(sha)),
    renderSession,
    showChanged,
  };
}

function problemItem(e: ErrorJson, kind: string, actions: ToolsViewActions): HTMLLIElement {
  return h(
    "li",
    { class: `problem ${kind}`, "data-code": e.code },
    h("strong", {}, e.code),
    e.tool ? h("span", { class: "muted" }, ` (${e.tool}${e.parameter ? `.${e.parameter}` : ""})`) : null,
    " ",
    typeof e.line === "number"
      ? h(
          "button",
          {
            type: "button",
            class: "link line-jump",
            "data-line": e.line,
            onclick: () => actions.goToLine(e.line as number),
            "aria-label": `Go to line ${e.line}`,
          },
          `line ${e.line}`,
        )
      : null,
    h("div", { class: "problem-message" }, e.message),
  );
}

/** Said on a tool without a description: discovery accepts it, but a model can hardly choose it. */
const NO_DESCRIPTION =
  'No description: a model chooses tools by their descriptions, so it may never call this one. Add a docstring (its first line is the description) or description="…" to @edge_tool.';

function toolItem(tool: FrozenTool, checked: boolean, isActive: boolean, actions: ToolsViewActions): HTMLLIElement {
  const s = tool.schema;
  const id = `tool-pick-${s.name}`;
  const box = h("input", { type: "checkbox", id, "data-tool": s.name, "aria-describedby": `${id}-desc` });
  box.checked = checked;
  box.addEventListener("change", () => actions.toggleTool(s.name, box.checked));
  return h(
    "li",
    { class: `tool ${isActive ? "active" : "inactive"}`, "data-tool": s.name },
    h(
      "div",
      { class: "tool-head" },
      box,
      h("label", { for: id, class: "tool-name" }, s.name),
      levelBadge(s.execution_level),
      s.return_direct
        ? h("span", { class: "badge", title: "return_direct: the result goes straight to the caller" }, "direct")
        : null,
      ...tool.intent_tags.map((t) => h("span", { class: "tag" }, `#${t}`)),
      h("span", { class: isActive ? "state on" : "state off" }, isActive ? "active" : "not active"),
    ),
    h("p", { id: `${id}-desc`, class: "tool-desc" }, s.description || "(no description)"),
    (s.description ?? "").trim()
      ? null
      : h("p", { class: "tool-warn", "data-warning": "no_description" }, NO_DESCRIPTION),
    h(
      "p",
      { class: "tool-meta" },
      "schema_sha256 ",
      hashCode(tool.schema_sha256),
      typeof tool.line === "number"
        ? h(
            "button",
            {
              type: "button",
              class: "link line-jump",
              onclick: () => actions.goToLine(tool.line as number),
              "aria-label": `Go to ${s.name}, line ${tool.line}`,
            },
            ` line ${tool.line}`,
          )
        : null,
    ),
    h("details", {}, h("summary", {}, "Schema (what the model sees)"), h("pre", { class: "json" }, pretty(s))),
  );
}

/** The status line and the page's `data-inspected` after an inspect. */
function showInspected(status: HTMLElement, report: ToolsetReport, reportMs: number): void {
  if (report.file_ok) {
    const files =
      report.project && report.project.files.length > 1
        ? ` · ${report.project.files.length} project files, tools_bundle_sha256 ${report.tools_bundle_sha256}`
        : "";
    setStatus(
      status,
      `Inspected ${report.filename}: ${report.tools.length} tool(s) in ${ms(reportMs)} · tools_file_sha256 ${report.tools_file_sha256 ?? ""}${files}`,
      "ok",
    );
    document.body.dataset.inspected = "ok";
  } else {
    setStatus(status, `${report.filename} did not validate: ${report.errors.length} problem(s).`, "error");
    document.body.dataset.inspected = "error";
  }
}

/** The session line: the frozen tools, or the facts store or manifest its chat tools come from. */
function renderSessionLine(sessionLine: HTMLElement, cur: SessionInfo, actions: ToolsViewActions): void {
  const time = new Date(cur.createdAt).toLocaleTimeString();
  if (cur.toolset) {
    replace(
      sessionLine,
      `Session frozen at ${time}: ${cur.toolset.active.length} active tool(s) of ${cur.toolset.filename} · `,
      hashCode(cur.toolset.active_set_sha256),
      cur.imprint ? ` · imprint ${cur.imprint.id}` : "",
      ` · engine: ${cur.engine.info().label}`,
    );
  } else if (cur.surface) {
    const what =
      cur.mode.kind === "facts"
        ? `facts store “${cur.mode.store}” (local_facts_lookup)`
        : `tools manifest ${cur.mode.kind === "manifest" ? cur.mode.name : ""}`;
    const back = h(
      "button",
      { type: "button", class: "link", id: "back-to-python", onclick: () => actions.backToPython() },
      "Use tools.py again",
    );
    replace(
      sessionLine,
      `Session at ${time}: chat tools come from the ${what}, not tools.py · `,
      hashCode(cur.surface.active_set_sha256),
      " ",
      back,
    );
  }
}
