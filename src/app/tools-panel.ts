// The tools panel: what inspect found (each tool's schema and hashes, errors with line numbers that
// jump to the line), the active-set selection by tool and tag, and "Freeze / new session".
import { toErrorJson, type ErrorJson } from "../contract/errors.ts";
import { activeSetSha256 } from "../contract/hash.ts";
import { ACTIVE_TOOL_LIMIT } from "../contract/types.ts";
import type { App } from "./app.ts";
import { mountBuiltinsSection } from "./builtins-section.ts";
import { mountPackagesBox } from "./packages-box.ts";
import { errorText, h, hashCode, ms, pretty, replace, setStatus } from "./dom.ts";

export interface ToolsPanel {
  /** Inspect the current source and show the result; with `renew` (the default), an edited file
   *  that inspects clean starts a new session (the chat says so). */
  inspect(options?: { renew?: boolean }): Promise<void>;
  freeze(cause?: "edited"): Promise<void>;
}

function levelBadge(level: string): HTMLElement {
  return h("span", { class: `badge level-${level}`, title: `execution_level: ${level}` }, level);
}

export function mountToolsPanel(app: App, root: HTMLElement): ToolsPanel {
  const status = h("p", { id: "tools-status", class: "status", role: "status", "aria-live": "polite", "data-state": "busy" }, "Starting the Python runner…");
  const errors = h("div", { id: "tools-errors" });
  const packagesRoot = h("div", { id: "python-packages" });
  const tagBox = h("fieldset", { id: "tag-select", class: "chips" });
  const list = h("ul", { id: "tool-list", class: "tool-list", "aria-label": "Tools found in the file" });
  const activeLine = h("p", { id: "active-set", class: "muted" });
  const freezeBtn = h("button", { type: "button", id: "freeze", class: "primary" }, "Freeze / new session");
  const sessionLine = h("p", { id: "session-info", class: "session-info", role: "status", "aria-live": "polite" });
  const changed = h("p", { id: "source-changed", class: "notice warn", hidden: true });
  const builtins = h("section", { id: "builtins", class: "builtins", "aria-labelledby": "builtins-h" });

  replace(root, status, errors, packagesRoot, h("div", { class: "selection" }, tagBox, list, builtins, activeLine), h("div", { class: "freeze-row" }, freezeBtn), changed, sessionLine);
  mountBuiltinsSection(app, builtins);
  const packagesBox = mountPackagesBox(app, packagesRoot, () => inspect());

  let renderToken = 0;

  function renderErrors(list: readonly ErrorJson[], warnings: readonly ErrorJson[]): void {
    const items = [...list.map((e) => ({ e, kind: "error" })), ...warnings.map((e) => ({ e, kind: "warning" }))];
    if (!items.length) {
      replace(errors);
      return;
    }
    replace(
      errors,
      h(
        "ul",
        { class: "problems", "aria-label": "Problems in the tools file" },
        ...items.map(({ e, kind }) =>
          h(
            "li",
            { class: `problem ${kind}`, "data-code": e.code },
            h("strong", {}, e.code),
            e.tool ? h("span", { class: "muted" }, ` (${e.tool}${e.parameter ? `.${e.parameter}` : ""})`) : null,
            " ",
            typeof e.line === "number"
              ? h("button", { type: "button", class: "link line-jump", "data-line": e.line, onclick: () => app.editor.goToLine(e.line as number), "aria-label": `Go to line ${e.line}` }, `line ${e.line}`)
              : null,
            h("div", { class: "problem-message" }, e.message),
          ),
        ),
      ),
    );
  }

  function renderSelection(): void {
    const report = app.report;
    replace(tagBox);
    replace(list);
    if (!report || report.tools.length === 0) {
      activeLine.textContent = "";
      return;
    }
    const { active, errors: selErrors } = app.activeSelection();
    const activeNames = new Set(active.map((t) => t.schema.name));
    const tags = [...new Set(report.tools.flatMap((t) => t.intent_tags))].sort();
    const sel = app.selection;
    const filtered = sel.tool.length > 0 || sel.toolTag.length > 0;
    tagBox.appendChild(h("legend", {}, "Narrow the active set by tag or tool ", h("span", { class: "muted" }, filtered ? "(union of the checked)" : `(nothing checked: all tools, at most ${ACTIVE_TOOL_LIMIT})`)));
    for (const tag of tags) {
      const id = `tag-${tag}`;
      const box = h("input", { type: "checkbox", id, "data-tag": tag });
      box.checked = sel.toolTag.includes(tag);
      box.addEventListener("change", () => {
        const next = new Set(app.selection.toolTag);
        if (box.checked) next.add(tag);
        else next.delete(tag);
        app.setSelection({ tool: app.selection.tool, toolTag: [...next].sort() });
      });
      tagBox.appendChild(h("span", { class: "chip" }, box, h("label", { for: id }, `#${tag}`)));
    }
    if (!tags.length) tagBox.appendChild(h("span", { class: "muted" }, "No intent tags in this file."));

    for (const tool of report.tools) {
      const s = tool.schema;
      const id = `tool-pick-${s.name}`;
      const box = h("input", { type: "checkbox", id, "data-tool": s.name, "aria-describedby": `${id}-desc` });
      box.checked = sel.tool.includes(s.name);
      box.addEventListener("change", () => {
        const next = new Set(app.selection.tool);
        if (box.checked) next.add(s.name);
        else next.delete(s.name);
        app.setSelection({ tool: [...next], toolTag: app.selection.toolTag });
      });
      const isActive = activeNames.has(s.name);
      list.appendChild(
        h(
          "li",
          { class: `tool ${isActive ? "active" : "inactive"}`, "data-tool": s.name },
          h(
            "div",
            { class: "tool-head" },
            box,
            h("label", { for: id, class: "tool-name" }, s.name),
            levelBadge(s.execution_level),
            s.return_direct ? h("span", { class: "badge", title: "return_direct: the result goes straight to the caller" }, "direct") : null,
            ...tool.intent_tags.map((t) => h("span", { class: "tag" }, `#${t}`)),
            h("span", { class: isActive ? "state on" : "state off" }, isActive ? "active" : "not active"),
          ),
          h("p", { id: `${id}-desc`, class: "tool-desc" }, s.description || "(no description)"),
          h(
            "p",
            { class: "tool-meta" },
            "schema_sha256 ",
            hashCode(tool.schema_sha256),
            typeof tool.line === "number"
              ? h("button", { type: "button", class: "link line-jump", onclick: () => app.editor.goToLine(tool.line as number), "aria-label": `Go to ${s.name}, line ${tool.line}` }, ` line ${tool.line}`)
              : null,
          ),
          h("details", {}, h("summary", {}, "Schema (what the model sees)"), h("pre", { class: "json" }, pretty(s))),
        ),
      );
    }
    const total = active.length + app.builtins.length;
    const withBuiltins = app.builtins.length ? ` + ${app.builtins.length} built-in(s) = ${total} of ${ACTIVE_TOOL_LIMIT}` : "";
    if (selErrors.length) {
      activeLine.textContent = selErrors.map((e) => errorText(e)).join(" ");
      activeLine.dataset.state = "error";
    } else if (total > ACTIVE_TOOL_LIMIT) {
      activeLine.textContent = `active_tool_limit_exceeded: ${active.length} Python tool(s)${withBuiltins}; at most ${ACTIVE_TOOL_LIMIT} tools can be active. Narrow the Python tools or switch built-ins off.`;
      activeLine.dataset.state = "error";
    } else {
      activeLine.dataset.state = "ok";
      const token = ++renderToken;
      void activeSetSha256(active.map((t) => t.schema)).then((sha) => {
        if (token !== renderToken) return;
        replace(activeLine, `Active set: ${active.length} of ${report.tools.length} tools${withBuiltins} · active_set_sha256 `, hashCode(sha));
      });
    }
  }

  function renderReport(): void {
    const report = app.report;
    if (!report) return;
    // Selection problems (e.g. more than 8 tools) are shown on the active-set line, where the
    // person fixes them by narrowing; here only the file's own problems.
    renderErrors(report.file_ok ? [] : report.errors, report.warnings);
    packagesBox.render(report);
    if (report.file_ok) {
      const files = report.project && report.project.files.length > 1 ? ` · ${report.project.files.length} project files, tools_bundle_sha256 ${report.tools_bundle_sha256}` : "";
      setStatus(status, `Inspected ${report.filename}: ${report.tools.length} tool(s) in ${ms(app.reportMs)} · tools_file_sha256 ${report.tools_file_sha256 ?? ""}${files}`, "ok");
      document.body.dataset.inspected = "ok";
    } else {
      setStatus(status, `${report.filename} did not validate: ${report.errors.length} problem(s).`, "error");
      document.body.dataset.inspected = "error";
    }
    performance.mark("edge:tools-inspected");
    renderSelection();
  }

  function renderSession(): void {
    const cur = app.current;
    if (!cur) {
      sessionLine.textContent = "No session yet.";
      return;
    }
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
      const what = cur.mode.kind === "facts" ? `facts store “${cur.mode.store}” (local_facts_lookup)` : `tools manifest ${cur.mode.kind === "manifest" ? cur.mode.name : ""}`;
      replace(
        sessionLine,
        `Session at ${time}: chat tools come from the ${what}, not tools.py · `,
        hashCode(cur.surface.active_set_sha256),
        " ",
        h(
          "button",
          {
            type: "button",
            class: "link",
            id: "back-to-python",
            onclick: () => {
              app.toolMode = { kind: "python" };
              void freeze();
            },
          },
          "Use tools.py again",
        ),
      );
    }
    changed.hidden = !app.sourceChanged;
  }

  async function inspect({ renew = true } = {}): Promise<void> {
    setStatus(status, "Inspecting: importing the file in a fresh sandboxed runner…", "busy");
    try {
      await app.inspect();
    } catch (err) {
      setStatus(status, `Inspect failed: ${errorText(toErrorJson(err))}`, "error");
      return;
    }
    if (renew) await renewIfEdited();
  }

  /**
   * Inspect after an edit means "use this file": a clean file starts a new session at once (the
   * frozen-session guarantee is per session — it never switches files, and its next call would
   * only be refused). A file with problems leaves the session on the file it froze, and the chat
   * says so.
   */
  async function renewIfEdited(): Promise<void> {
    const cur = app.current;
    const report = app.report;
    if (!cur?.toolset || app.toolMode.kind !== "python" || !report || report.tools_bundle_sha256 === cur.toolset.tools_bundle_sha256) return;
    const problems = report.file_ok ? app.activeSelection().errors : report.errors;
    if (problems.length) {
      app.notify(`tools.py changed, but the edited file has ${problems.length} problem(s) (${problems.map((e) => e.code).join(", ")}): this session keeps the file it froze. Fix them and press Inspect again.`);
      return;
    }
    await freeze("edited");
  }

  async function freeze(cause?: "edited"): Promise<void> {
    freezeBtn.disabled = true;
    try {
      await app.newSession(cause);
    } catch (err) {
      const e = toErrorJson(err);
      setStatus(status, `Could not start a session: ${errorText(e)}`, "error");
      if (typeof e.line === "number") renderErrors([e], []);
    } finally {
      freezeBtn.disabled = false;
    }
  }

  freezeBtn.addEventListener("click", () => void freeze());
  app.on((change) => {
    if (change === "report") renderReport();
    if (change === "selection") {
      renderSelection();
      if (app.current?.toolset) {
        changed.hidden = false;
        changed.textContent = "The selection changed: press “Freeze / new session” to chat with the new active set.";
      }
    }
    if (change === "session") {
      changed.textContent = "";
      renderSession();
    }
    if (change === "source") {
      if (app.current?.toolset && app.sourceChanged) {
        changed.hidden = false;
        changed.textContent =
          "tools.py changed after this session froze it. Press Inspect, or just send your next message: a new session starts with the edited file (a session never switches files mid-turn).";
      }
    }
  });
  return { inspect, freeze };
}
