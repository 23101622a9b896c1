// The playground's state, read-only from outside: panels read the getters, call the actions below
// (or App's: inspect, putProjectFile, newSession) and subscribe with `on`. Each action sets its
// part of the state and emits its change itself; no panel writes a field or emits another's
// change. The compiler refuses `app.<field> = …`; state.test.ts checks what it cannot see (a
// write into a field's object, e.g. `app.sourceMode.project.files[p] = …`).
import type { BuiltinToolName } from "../builtins/index.ts";
import type { WritePlan } from "../builtins/write-plan.ts";
import type { ChatSession } from "../chat/types.ts";
import type { Selection } from "../contract/types.ts";
import type { Engine } from "../engines/engine.ts";
import type { ToolChoice } from "../engines/tool-turn.ts";
import type { FactsSurface } from "../facts/surface.ts";
import type { Imprint } from "../imprint/record.ts";
import type { ToolSource } from "../runner/host.ts";
import type { FrozenToolset, ToolsetReport } from "../toolset/freeze.ts";
import { textOf, type SourceMode } from "./source.ts";

/** What the chat's tools are: the Python file, a facts store's lookup, or a tools manifest. */
export type ToolMode =
  | { kind: "python" }
  | { kind: "facts"; store: string }
  | { kind: "manifest"; name: string; bytes: Uint8Array };

/**
 * What changed. The state's own: "report" (an inspect), "selection" (tools, tags, built-ins),
 * "session", "engine", "source" (the source mode, its open file, or its text), "settings" (what the
 * next session is made with: tool mode, imprint, tool choice; and how built-in writes are approved),
 * "notice". A store's (`StoreChange`, announced by the panel that wrote it): "receipts",
 * "imprints", "facts", "workspace".
 */
export type AppChange = "report" | "selection" | "session" | "engine" | "source" | "settings" | "notice" | StoreChange;
/** A store in IndexedDB that a panel wrote to: the panels that list it read it again. */
export type StoreChange = "receipts" | "imprints" | "facts" | "workspace";

/** The Python tools picked by name and by intent tag (none of either: every tool). */
export type ToolPicks = { tool: string[]; toolTag: string[] };

/** Shows a built-in write's diff and resolves with the person's answer. */
export type WriteApprover = (plan: WritePlan, signal: AbortSignal) => Promise<boolean>;

export interface SessionInfo {
  /** Random per session: names the session's goals file in the workspace. */
  id: string;
  session: ChatSession;
  /** The source the session (and confirm) re-read. */
  source: ToolSource | null;
  toolset: FrozenToolset | null;
  surface: FactsSurface | null;
  mode: ToolMode;
  imprint: Imprint | null;
  engine: Engine;
  selection: Selection;
  createdAt: number;
  /** Why it started: "edited" when tools.py changed after the previous session froze it. */
  cause?: "edited";
}

interface Fields {
  sourceMode: SourceMode;
  report: ToolsetReport | null;
  reportMs: number;
  selection: ToolPicks;
  toolMode: ToolMode;
  imprint: Imprint | null;
  engine: Engine | null;
  toolChoice: ToolChoice;
  current: SessionInfo | null;
  sourceChanged: boolean;
  builtins: BuiltinToolName[];
  allowWrites: boolean;
  writeApprover: WriteApprover | null;
  notice: string;
}

export class AppState {
  readonly #events = new EventTarget();
  readonly #s: Fields = {
    sourceMode: { kind: "buffer", name: "tools.py" },
    report: null,
    reportMs: 0,
    selection: { tool: [], toolTag: [] },
    toolMode: { kind: "python" },
    imprint: null,
    engine: null,
    toolChoice: "auto",
    current: null,
    sourceChanged: false,
    builtins: [],
    allowWrites: false,
    writeApprover: null,
    notice: "",
  };

  /** Where the tools come from: the editor's buffer, a file on disk, or a project held in this page. */
  get sourceMode(): Readonly<SourceMode> {
    return this.#s.sourceMode;
  }
  /** The last inspect (analyze) of the tools file, and how long it took. */
  get report(): Readonly<ToolsetReport> | null {
    return this.#s.report;
  }
  get reportMs(): number {
    return this.#s.reportMs;
  }
  get selection(): Readonly<ToolPicks> {
    return this.#s.selection;
  }
  get toolMode(): Readonly<ToolMode> {
    return this.#s.toolMode;
  }
  /** The imprint the next session restores (null: the plain tool contract). */
  get imprint(): Imprint | null {
    return this.#s.imprint;
  }
  get engine(): Engine | null {
    return this.#s.engine;
  }
  /** How guided decoding treats tools (web-llm, llama.cpp): src/engines/tool-turn.ts. */
  get toolChoice(): ToolChoice {
    return this.#s.toolChoice;
  }
  get current(): Readonly<SessionInfo> | null {
    return this.#s.current;
  }
  /** App.newSession sets the session (and clears sourceChanged) itself. */
  protected set current(info: SessionInfo | null) {
    this.#s.current = info;
  }
  /** Set when the editor or the file differs from what the session froze. */
  get sourceChanged(): boolean {
    return this.#s.sourceChanged;
  }
  protected set sourceChanged(changed: boolean) {
    this.#s.sourceChanged = changed;
  }
  /** Built-in tools offered next to the Python tools (counted in the same 8-tool limit). */
  get builtins(): readonly BuiltinToolName[] {
    return this.#s.builtins;
  }
  /** "Allow writes for this session": built-in writes run without the approval card. */
  get allowWrites(): boolean {
    return this.#s.allowWrites;
  }
  /** Shows a built-in write's diff and waits for the person (the chat panel's card). */
  get writeApprover(): WriteApprover | null {
    return this.#s.writeApprover;
  }
  /** The last notice for the conversation (shown by the chat panel on "notice"). */
  get notice(): string {
    return this.#s.notice;
  }

  protected emit(change: AppChange): void {
    this.#events.dispatchEvent(new CustomEvent("change", { detail: change }));
  }

  on(listener: (change: AppChange) => void): void {
    this.#events.addEventListener("change", (e) => listener((e as CustomEvent<AppChange>).detail));
  }

  /** A panel wrote to a store (a receipt, an imprint, facts, a workspace file): its lists re-read it. */
  storeChanged(store: StoreChange): void {
    this.emit(store);
  }

  /** Say something in the conversation that is not a turn (e.g. why the session kept its file). */
  notify(text: string): void {
    this.#s.notice = text;
    this.emit("notice");
  }

  /** Keep an inspect's report; picks of tools or tags no longer in the file are dropped. */
  setReport(report: ToolsetReport, ms: number): void {
    this.#s.report = report;
    this.#s.reportMs = ms;
    const names = new Set(report.tools.map((t) => t.schema.name));
    const tags = new Set(report.tools.flatMap((t) => t.intent_tags));
    const { tool, toolTag } = this.#s.selection;
    this.#s.selection = { tool: tool.filter((n) => names.has(n)), toolTag: toolTag.filter((n) => tags.has(n)) };
    this.emit("report");
  }

  setSelection(selection: ToolPicks): void {
    this.#s.selection = selection;
    this.emit("selection");
  }

  setBuiltins(names: BuiltinToolName[]): void {
    this.#s.builtins = names;
    this.emit("selection");
  }

  setEngine(engine: Engine): void {
    this.#s.engine = engine;
    this.emit("engine");
  }

  /** The chat's tools for the next session: Python, a facts store, or a manifest. */
  setToolMode(mode: ToolMode): void {
    this.#s.toolMode = mode;
    this.emit("settings");
  }

  setImprint(imprint: Imprint | null): void {
    this.#s.imprint = imprint;
    this.emit("settings");
  }

  setToolChoice(choice: ToolChoice): void {
    this.#s.toolChoice = choice;
    this.emit("settings");
  }

  setAllowWrites(allow: boolean): void {
    this.#s.allowWrites = allow;
    this.emit("settings");
  }

  setWriteApprover(approver: WriteApprover | null): void {
    this.#s.writeApprover = approver;
    this.emit("settings");
  }

  /** A new source: a buffer, a file on disk, or a project (its tools file open). */
  setSourceMode(mode: SourceMode): void {
    this.#s.sourceMode = mode;
    this.emit("source");
  }

  /** Show another file of the project in the editor (edits then go to it). */
  openProjectFile(path: string): void {
    const m = this.#s.sourceMode;
    if (m.kind !== "project" || !(path in m.project.files)) return;
    this.setSourceMode({ ...m, open: path });
  }

  /** Put a file into the project held in this page (nothing outside project mode). */
  protected writeProjectFile(path: string, bytes: Uint8Array): void {
    const m = this.#s.sourceMode;
    if (m.kind === "project") m.project.files[path] = bytes;
  }

  /** The source's text changed (a file loaded, the file on disk): a session that froze tools no
   *  longer matches it. */
  markSourceChanged(): void {
    if (this.#s.current?.toolset) this.#s.sourceChanged = true;
    this.emit("source");
  }

  /** The person edited the editor's text: in a project it goes into the open file (a text file; a
   *  binary one is shown as a note, not edited); the first edit after a freeze marks the source changed. */
  editSource(text: string): void {
    const m = this.#s.sourceMode;
    const open = m.kind === "project" ? m.project.files[m.open] : undefined;
    if (m.kind === "project" && open && textOf(open) !== null)
      this.writeProjectFile(m.open, new TextEncoder().encode(text));
    if (this.#s.current?.toolset && !this.#s.sourceChanged) this.markSourceChanged();
  }
}
