// The tools panel's controller: inspect (an edited file that inspects clean starts a new session),
// the active-set selection by tool and tag, "Freeze / new session", and what the panel shows when
// the report, the selection, the session or the source changes. The view (each tool's schema and
// hashes, errors with line numbers that jump to the line) is tools-view.ts.
import { toErrorJson, type ErrorJson } from "../contract/errors.ts";
import { activeSetSha256 } from "../contract/hash.ts";
import { ACTIVE_TOOL_LIMIT } from "../contract/types.ts";
import type { App } from "./app.ts";
import { mountBuiltinsSection } from "./builtins-section.ts";
import { mountPackagesBox } from "./packages-box.ts";
import { errorText, setStatus } from "./dom.ts";
import { mountToolsView, type ToolsView } from "./tools-view.ts";
import type { FrozenTool } from "../toolset/freeze.ts";

export interface ToolsPanel {
  /** Inspect the current source and show the result; with `renew` (the default), an edited file
   *  that inspects clean starts a new session (the chat says so). */
  inspect(options?: { renew?: boolean }): Promise<void>;
  freeze(cause?: "edited"): Promise<void>;
}

export function mountToolsPanel(app: App, root: HTMLElement): ToolsPanel {
  const view = mountToolsView(root, {
    goToLine: (line) => app.editor.goToLine(line),
    toggleTag: (tag, checked) =>
      app.setSelection({ tool: app.selection.tool, toolTag: toggled(app.selection.toolTag, tag, checked).sort() }),
    toggleTool: (name, checked) =>
      app.setSelection({ tool: toggled(app.selection.tool, name, checked), toolTag: app.selection.toolTag }),
    backToPython: () => {
      app.setToolMode({ kind: "python" });
      void freeze();
    },
  });
  const { status, activeLine, freezeBtn, changed } = view;
  mountBuiltinsSection(app, view.builtins);
  const packagesBox = mountPackagesBox(app, view.packagesRoot, () => inspect());

  /** The latest active-set hash asked for: a slower, older one is not shown over it. */
  const shaRender = { token: 0 };

  function renderSelection(): void {
    const report = app.report;
    view.clearSelection();
    if (!report || report.tools.length === 0) {
      activeLine.textContent = "";
      return;
    }
    const { active, errors: selErrors } = app.activeSelection();
    const sel = app.selection;
    view.showTags(
      [...new Set(report.tools.flatMap((t) => t.intent_tags))].sort(),
      sel.toolTag,
      sel.tool.length > 0 || sel.toolTag.length > 0,
    );
    view.showTools(report.tools, sel.tool, new Set(active.map((t) => t.schema.name)));
    renderActiveLine(view, app, active, selErrors, report.tools.length, shaRender);
  }

  function renderReport(): void {
    const report = app.report;
    if (!report) return;
    // Selection problems (e.g. more than 8 tools) are shown on the active-set line, where the
    // person fixes them by narrowing; here only the file's own problems.
    view.renderErrors(report.file_ok ? [] : report.errors, report.warnings);
    packagesBox.render(report);
    view.showInspected(report, app.reportMs);
    performance.mark("edge:tools-inspected");
    renderSelection();
  }

  async function inspect({ renew = true } = {}): Promise<void> {
    setStatus(status, "Inspecting: importing the file in a fresh sandboxed runner…", "busy");
    try {
      await app.inspect();
    } catch (err) {
      setStatus(status, `Inspect failed: ${errorText(toErrorJson(err))}`, "error");
      return;
    }
    if (renew && editedAndClean(app)) await freeze("edited");
  }

  async function freeze(cause?: "edited"): Promise<void> {
    freezeBtn.disabled = true;
    try {
      await app.newSession(cause);
    } catch (err) {
      const e = toErrorJson(err);
      setStatus(status, `Could not start a session: ${errorText(e)}`, "error");
      if (typeof e.line === "number") view.renderErrors([e], []);
    } finally {
      freezeBtn.disabled = false;
    }
  }

  freezeBtn.addEventListener("click", () => void freeze());
  app.on((change) => {
    if (change === "report") renderReport();
    if (change === "selection") {
      renderSelection();
      if (app.current?.toolset)
        view.showChanged("The selection changed: press “Freeze / new session” to chat with the new active set.");
    }
    if (change === "session") {
      changed.textContent = "";
      view.renderSession(app.current, app.sourceChanged);
    }
    if (change === "source") {
      if (app.current?.toolset && app.sourceChanged) {
        view.showChanged(
          "tools.py changed after this session froze it. Press Inspect, or just send your next message: a new session starts with the edited file (a session never switches files mid-turn).",
        );
      }
    }
  });
  return { inspect, freeze };
}

/** The active-set line: the selection's problems, the limit exceeded, or the set and its hash. */
function renderActiveLine(
  view: ToolsView,
  app: App,
  active: readonly FrozenTool[],
  selErrors: readonly ErrorJson[],
  toolCount: number,
  shaRender: { token: number },
): void {
  const total = active.length + app.builtins.length;
  const withBuiltins = app.builtins.length
    ? ` + ${app.builtins.length} built-in(s) = ${total} of ${ACTIVE_TOOL_LIMIT}`
    : "";
  if (selErrors.length) {
    view.showActiveProblem(selErrors.map((e) => errorText(e)).join(" "));
  } else if (total > ACTIVE_TOOL_LIMIT) {
    view.showActiveProblem(
      `active_tool_limit_exceeded: ${active.length} Python tool(s)${withBuiltins}; at most ${ACTIVE_TOOL_LIMIT} tools can be active. Narrow the Python tools or switch built-ins off.`,
    );
  } else {
    view.activeLine.dataset.state = "ok";
    const token = ++shaRender.token;
    void activeSetSha256(active.map((t) => t.schema)).then((sha) => {
      if (token !== shaRender.token) return;
      view.showActiveSet(`Active set: ${active.length} of ${toolCount} tools${withBuiltins} · active_set_sha256 `, sha);
    });
  }
}

/** `values` with `value` added (checked) or removed, in the order a Set keeps. */
function toggled(values: readonly string[], value: string, checked: boolean): string[] {
  const next = new Set(values);
  if (checked) next.add(value);
  else next.delete(value);
  return [...next];
}

/**
 * Inspect after an edit means "use this file": a clean file starts a new session at once (the
 * frozen-session guarantee is per session — it never switches files, and its next call would
 * only be refused). A file with problems leaves the session on the file it froze, and the chat
 * says so. True when the session should be renewed with the edited file.
 */
function editedAndClean(app: App): boolean {
  const cur = app.current;
  const report = app.report;
  if (
    !cur?.toolset ||
    app.toolMode.kind !== "python" ||
    !report ||
    report.tools_bundle_sha256 === cur.toolset.tools_bundle_sha256
  )
    return false;
  const problems = report.file_ok ? app.activeSelection().errors : report.errors;
  if (problems.length) {
    app.notify(
      `tools.py changed, but the edited file has ${problems.length} problem(s) (${problems.map((e) => e.code).join(", ")}): this session keeps the file it froze. Fix them and press Inspect again.`,
    );
    return false;
  }
  return true;
}
