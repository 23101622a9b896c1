// The playground's state (state.ts): each action sets its part of the state and emits exactly its
// change. (That no panel writes the state is state-writes.test.ts.)
import { describe, expect, it } from "vitest";
import { ScriptedEngine } from "../engines/scripted.ts";
import type { Imprint } from "../imprint/record.ts";
import type { FrozenToolset, ToolsetReport } from "../toolset/freeze.ts";
import type { PickedProject } from "../toolset/project-archive.ts";
import { AppState, type AppChange, type SessionInfo } from "./state.ts";

/** AppState with App.newSession's one write (a session that froze tools, or none), and the changes it emitted. */
class Recorded extends AppState {
  readonly changes: AppChange[] = [];
  constructor() {
    super();
    this.on((c) => this.changes.push(c));
  }
  started(toolset: boolean): void {
    // Only what the actions read of a session: whether it froze tools.
    this.current = {
      id: "session_1",
      toolset: toolset ? ({ tools_bundle_sha256: `sha256:${"a".repeat(64)}` } as FrozenToolset) : null,
    } as SessionInfo;
    this.sourceChanged = false;
  }
  /** The changes since the last call. */
  take(): AppChange[] {
    return this.changes.splice(0);
  }
}

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
const project = (): PickedProject => ({
  name: "p",
  entry: "tools.py",
  files: { "tools.py": enc("x = 1\n"), "util.py": enc("y = 2\n"), "logo.png": new Uint8Array([0x89, 0x50, 0, 0xff]) },
  skipped: [],
});
/** A report of tools by name and intent tags (only what setReport reads of it). */
const report = (tools: Array<[string, string[]]>): ToolsetReport =>
  ({ tools: tools.map(([name, intent_tags]) => ({ schema: { name }, intent_tags })) }) as ToolsetReport;

describe("the playground state's actions", () => {
  it("starts empty: the editor's buffer, Python tools, no engine, report or session", () => {
    const s = new Recorded();
    expect([
      s.sourceMode,
      s.toolMode,
      s.engine,
      s.report,
      s.current,
      s.imprint,
      s.toolChoice,
      s.builtins,
      s.allowWrites,
      s.sourceChanged,
    ]).toEqual([
      { kind: "buffer", name: "tools.py" },
      { kind: "python" },
      null,
      null,
      null,
      null,
      "auto",
      [],
      false,
      false,
    ]);
  });

  it("each setter sets its field and emits exactly its change", () => {
    const s = new Recorded();
    const engine = new ScriptedEngine([]);
    const imprint = { id: "imp_1" } as Imprint;
    const approver = async (): Promise<boolean> => true;
    const cases: Array<[() => void, () => unknown, unknown, AppChange]> = [
      [() => s.setEngine(engine), () => s.engine, engine, "engine"],
      [
        () => s.setSelection({ tool: ["a"], toolTag: ["t"] }),
        () => s.selection,
        { tool: ["a"], toolTag: ["t"] },
        "selection",
      ],
      [() => s.setBuiltins(["read_file"]), () => s.builtins, ["read_file"], "selection"],
      [
        () => s.setToolMode({ kind: "facts", store: "kb" }),
        () => s.toolMode,
        { kind: "facts", store: "kb" },
        "settings",
      ],
      [() => s.setImprint(imprint), () => s.imprint, imprint, "settings"],
      [() => s.setToolChoice("required"), () => s.toolChoice, "required", "settings"],
      [() => s.setAllowWrites(true), () => s.allowWrites, true, "settings"],
      [() => s.setWriteApprover(approver), () => s.writeApprover, approver, "settings"],
      [
        () => s.setSourceMode({ kind: "buffer", name: "mine.py" }),
        () => s.sourceMode,
        { kind: "buffer", name: "mine.py" },
        "source",
      ],
      [() => s.notify("kept the file"), () => s.notice, "kept the file", "notice"],
    ];
    for (const [act, read, value, change] of cases) {
      act();
      expect(read()).toEqual(value);
      expect(s.take()).toEqual([change]);
    }
  });

  it("storeChanged announces the store a panel wrote, and nothing else", () => {
    const s = new Recorded();
    for (const store of ["receipts", "imprints", "facts", "workspace"] as const) {
      s.storeChanged(store);
      expect(s.take()).toEqual([store]);
    }
  });

  it("setReport keeps the report and its time, and drops picks no longer in the file", () => {
    const s = new Recorded();
    s.setSelection({ tool: ["add", "gone"], toolTag: ["math", "old"] });
    s.take();
    const r = report([
      ["add", ["math"]],
      ["mul", ["math"]],
    ]);
    s.setReport(r, 42);
    expect([s.report, s.reportMs, s.selection]).toEqual([r, 42, { tool: ["add"], toolTag: ["math"] }]);
    expect(s.take()).toEqual(["report"]);
  });

  it("openProjectFile opens a file of the project; nothing outside a project or for a path it lacks", () => {
    const s = new Recorded();
    s.openProjectFile("util.py");
    expect(s.take()).toEqual([]);
    const p = project();
    s.setSourceMode({ kind: "project", project: p, open: "tools.py" });
    s.take();
    s.openProjectFile("util.py");
    expect(s.sourceMode).toEqual({ kind: "project", project: p, open: "util.py" });
    expect(s.take()).toEqual(["source"]);
    s.openProjectFile("missing.py");
    expect(s.sourceMode).toMatchObject({ open: "util.py" });
    expect(s.take()).toEqual([]);
  });

  it("markSourceChanged marks a session that froze tools as out of date, and always says the source changed", () => {
    const s = new Recorded();
    s.markSourceChanged();
    expect([s.sourceChanged, s.take()]).toEqual([false, ["source"]]);
    s.started(false);
    s.markSourceChanged();
    expect([s.sourceChanged, s.take()]).toEqual([false, ["source"]]);
    s.started(true);
    s.markSourceChanged();
    expect([s.sourceChanged, s.take()]).toEqual([true, ["source"]]);
  });

  it("editSource: the first edit after a freeze marks the source changed (once); in a project the edit goes into the open text file", () => {
    const s = new Recorded();
    s.editSource("print(1)");
    expect([s.sourceChanged, s.take()]).toEqual([false, []]);
    const p = project();
    s.setSourceMode({ kind: "project", project: p, open: "util.py" });
    s.started(true);
    s.take();
    s.editSource("y = 3\n");
    expect(new TextDecoder().decode(p.files["util.py"])).toBe("y = 3\n");
    expect([s.sourceChanged, s.take()]).toEqual([true, ["source"]]);
    s.editSource("y = 4\n");
    expect(new TextDecoder().decode(p.files["util.py"])).toBe("y = 4\n");
    expect(s.take()).toEqual([]);
    // A binary file is shown as a note in the editor: the note never replaces its bytes.
    s.openProjectFile("logo.png");
    s.editSource("# logo.png is not text");
    expect([...p.files["logo.png"]!]).toEqual([0x89, 0x50, 0, 0xff]);
  });
});
