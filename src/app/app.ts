// The playground's state and the actions that change it. Panels render from this and call its
// methods; it emits "change" events (on `events`) so every panel can re-render what it shows.
import { createChatSession } from "../chat/session.ts";
import type { ChatSession, ChatTools } from "../chat/types.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import type { BuiltinToolName } from "../builtins/index.ts";
import type { EdgeVfs } from "../builtins/vfs/core.ts";
import type { WritePlan } from "../builtins/write-plan.ts";
import type { ApprovalHandler, ToolRuntime } from "../runtime/index.ts";
import { EdgeError, type ErrorJson } from "../contract/errors.ts";
import { randomHex, type Sha256 } from "../contract/hash.ts";
import { freezeProject, readProjectSnapshot } from "../toolset/project.ts";
import { selectActiveSet } from "../contract/selection.ts";
import type { Selection } from "../contract/types.ts";
import { createConfirmationBroker } from "../confirm/broker.ts";
import { startPurging } from "../confirm/confirm.ts";
import { createIdbPendingStore } from "../confirm/store-idb.ts";
import type { PendingAction } from "../confirm/types.ts";
import type { PendingStore } from "../confirm/store.ts";
import type { PendingTicket } from "../chat/types.ts";
import type { Engine } from "../engines/engine.ts";
import type { ToolChoice } from "../engines/tool-turn.ts";
import type { FactsSurface } from "../facts/surface.ts";
import type { FactsStore } from "../facts/store.ts";
import type { Imprint } from "../imprint/record.ts";
import type { ImprintStore } from "../imprint/store.ts";
import type { BrowserPackages } from "../packages/browser.ts";
import type { BrowserRunnerHost } from "../runner/browser/index.ts";
import type { ToolSource } from "../runner/host.ts";
import type { WorkspaceSource } from "../toolset/workspace.ts";
import { openEdgeDb } from "../store/idb.ts";
import { createIdbReceiptStore } from "../receipts/store-idb.ts";
import type { EdgeDb } from "../store/idb-schema.ts";
import { analyzeToolset, freezeReport, type FrozenTool, type FrozenToolset, type ToolsetReport } from "../toolset/freeze.ts";
import type { ToolsEditor } from "./editor.ts";
import { toolSourceFor, type SourceMode } from "./source.ts";

export interface Stores {
  db: EdgeDb;
  receipts: ReceiptStore;
  pending: PendingStore;
  /** Loaded on first use (own chunks: the imprint and facts code is not in the entry script). */
  imprints(): Promise<ImprintStore>;
  facts(): Promise<FactsStore>;
  /** The workspace file system (IndexedDB), shared by the Workspace tab, built-ins and read_local tools. */
  workspace(): Promise<EdgeVfs>;
}

function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= load());
}

/** What the chat's tools are: the Python file, a facts store's lookup, or a tools manifest. */
export type ToolMode = { kind: "python" } | { kind: "facts"; store: string } | { kind: "manifest"; name: string; bytes: Uint8Array };

export type AppChange = "report" | "selection" | "session" | "engine" | "receipts" | "imprints" | "facts" | "source" | "workspace" | "notice";

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

export class App {
  readonly events = new EventTarget();
  sourceMode: SourceMode = { kind: "buffer", name: "tools.py" };
  /** The last inspect (analyze) of the tools file, and the sha of the bytes it saw. */
  report: ToolsetReport | null = null;
  reportMs = 0;
  selection: { tool: string[]; toolTag: string[] } = { tool: [], toolTag: [] };
  toolMode: ToolMode = { kind: "python" };
  imprint: Imprint | null = null;
  engine: Engine | null = null;
  /** How guided decoding treats tools (web-llm, llama.cpp): src/engines/tool-turn.ts. */
  toolChoice: ToolChoice = "auto";
  current: SessionInfo | null = null;
  /** Tickets (tokens) of pending actions created in this page: the token is shown once. */
  readonly tickets = new Map<string, PendingTicket>();
  /** Set when the editor or the file differs from what the session froze. */
  sourceChanged = false;
  /** Built-in tools offered next to the Python tools (counted in the same 8-tool limit). */
  builtins: BuiltinToolName[] = [];
  /** "Allow writes for this session": built-in writes run without the approval card. */
  allowWrites = false;
  /** Shows a built-in write's diff and resolves with the person's answer (set by the chat panel). */
  writeApprover: ((plan: WritePlan, signal: AbortSignal) => Promise<boolean>) | null = null;
  private stopPurge: (() => void) | undefined;

  constructor(
    readonly host: BrowserRunnerHost,
    readonly stores: Stores,
    readonly editor: ToolsEditor,
    /** Python packages: the lock, this browser's wheels, and the source Download fetches from. */
    readonly packages: BrowserPackages,
  ) {
    this.stopPurge = startPurging(stores.pending, { onError: (err) => console.warn("pending purge failed", err) });
  }

  static async openStores(): Promise<Stores> {
    const db = await openEdgeDb({
      onClose: () => {
        document.body.dataset.dbClosed = "1";
      },
    });
    return {
      db,
      receipts: createIdbReceiptStore(db),
      pending: createIdbPendingStore(db),
      imprints: lazy(async () => (await import("../imprint/store-idb.ts")).createIdbImprintStore(db)),
      facts: lazy(async () => (await import("../facts/store-idb.ts")).createIdbFactsStore(db)),
      workspace: lazy(async () => (await import("../builtins/vfs/store-idb.ts")).openIdbVfs(db)),
    };
  }

  /** The last notice for the conversation (shown by the chat panel on "notice"). */
  notice = "";

  /** Say something in the conversation that is not a turn (e.g. why the session kept its file). */
  notify(text: string): void {
    this.notice = text;
    this.emit("notice");
  }

  emit(change: AppChange): void {
    this.events.dispatchEvent(new CustomEvent("change", { detail: change }));
  }

  on(listener: (change: AppChange) => void): void {
    this.events.addEventListener("change", (e) => listener((e as CustomEvent<AppChange>).detail));
  }

  /** The ToolSource of the current source mode (re-read on every call), with this browser's packages. */
  toolSource(): ToolSource {
    return { ...toolSourceFor(this.sourceMode, () => this.editor.getText()), packages: this.packages.provider };
  }

  /**
   * Put a file into the tools project held in this page (the pylock.toml "Lock dependencies"
   * wrote), so the next inspect and freeze see it. The editor's file, or a file on disk, becomes a
   * project of that file and this one (held in this page: the file on disk is no longer re-read).
   */
  async putProjectFile(path: string, bytes: Uint8Array): Promise<void> {
    const m = this.sourceMode;
    if (m.kind === "project") m.project.files[path] = bytes;
    else {
      const snapshot = await readProjectSnapshot(this.toolSource());
      this.sourceMode = { kind: "project", project: { name: "project", entry: snapshot.entry, files: { ...snapshot.files, [path]: bytes }, skipped: [] }, open: snapshot.entry };
      this.editor.setReadOnly(false);
    }
    if (this.current?.toolset) this.sourceChanged = true;
    this.emit("source");
  }

  /** Discover the current source in a fresh runner (top-level code runs there) and keep the report. */
  async inspect(signal?: AbortSignal): Promise<ToolsetReport> {
    const t0 = performance.now();
    // Discover with no selection (every tool); the active set is applied locally below.
    const report = await analyzeToolset(this.toolSource(), this.host, {}, signal);
    this.reportMs = performance.now() - t0;
    this.report = report;
    // Drop selections that no longer exist in the file.
    const names = new Set(report.tools.map((t) => t.schema.name));
    const tags = new Set(report.tools.flatMap((t) => t.intent_tags));
    this.selection = { tool: this.selection.tool.filter((n) => names.has(n)), toolTag: this.selection.toolTag.filter((n) => tags.has(n)) };
    this.emit("report");
    return report;
  }

  /** The active set under the current selection, computed locally from the last report. */
  activeSelection(): { active: FrozenTool[]; errors: ErrorJson[] } {
    const report = this.report;
    if (!report) return { active: [], errors: [] };
    if (!report.file_ok) return { active: [], errors: report.errors };
    const r = selectActiveSet(report.tools, this.selection);
    return { active: r.active as FrozenTool[], errors: r.errors };
  }

  setSelection(selection: { tool: string[]; toolTag: string[] }): void {
    this.selection = selection;
    this.emit("selection");
  }

  setBuiltins(names: BuiltinToolName[]): void {
    this.builtins = names;
    this.emit("selection");
  }

  /** The built-ins chosen for a session, registered into a fresh runtime with their write approval. */
  private async builtinsFor(sessionId: string): Promise<{ runtime: ToolRuntime; approval: ApprovalHandler } | null> {
    if (!this.builtins.length) return null;
    const [{ builtinsForSession }, vfs] = await Promise.all([import("../builtins/index.ts"), this.stores.workspace()]);
    return builtinsForSession({
      vfs,
      tools: this.builtins,
      sessionId,
      allowWrites: () => this.allowWrites,
      ask: (plan, signal) => (this.writeApprover ? this.writeApprover(plan, signal) : Promise.resolve(false)),
    });
  }

  /** The Workspace tab's files as read_local tools see them (the VFS is opened on first use). */
  readonly workspace: WorkspaceSource = {
    snapshot: async (limits) => {
      const [{ vfsWorkspaceSource }, vfs] = await Promise.all([import("../builtins/workspace/source.ts"), this.stores.workspace()]);
      return vfsWorkspaceSource(vfs).snapshot(limits);
    },
  };

  /** Freeze the last report's bytes under the selection (no second discovery). */
  async freezeFromReport(): Promise<FrozenToolset> {
    if (!this.report) throw new EdgeError("tools_file_import_failed", {}, "Inspect the tools file first, then try again.");
    return freezeReport(this.report, this.toolSource(), this.selection);
  }

  /** tools_bundle_sha256 of the current source as it is now (the tools file and its project), or
   *  null when it cannot be read or is over the limits. */
  private async currentBundleSha(): Promise<Sha256 | null> {
    try {
      return (await freezeProject(await readProjectSnapshot(this.toolSource()))).tools_bundle_sha256;
    } catch {
      return null;
    }
  }

  /** Whether the current source (every file of its project) still equals what the last report saw. */
  async reportIsCurrent(): Promise<boolean> {
    const seen = this.report?.tools_bundle_sha256;
    return !!seen && (await this.currentBundleSha()) === seen;
  }

  /** Whether the current source differs from what the current session froze. */
  async sourceDiffersFromSession(): Promise<boolean> {
    const frozen = this.current?.toolset?.tools_bundle_sha256;
    if (!frozen || this.toolMode.kind !== "python") return false;
    const now = await this.currentBundleSha();
    return now !== null && now !== frozen;
  }

  /**
   * "Freeze / new session": freeze the current tools (re-inspecting if the source changed since the
   * last inspect) and start a new chat session with the current engine, imprint and tool mode.
   */
  async newSession(cause?: "edited"): Promise<SessionInfo> {
    const engine = this.engine;
    if (!engine) throw new EdgeError("engine_not_loaded", {}, "Pick an engine first (the scripted demo works without a GPU).");
    const mode = this.toolMode;
    let toolset: FrozenToolset | null = null;
    let surface: FactsSurface | null = null;
    let source: ToolSource | null = null;
    let tools: ChatTools;
    const selection: Selection = { tool: [...this.selection.tool], toolTag: [...this.selection.toolTag] };
    if (mode.kind === "python") {
      if (!(await this.reportIsCurrent())) await this.inspect();
      toolset = await this.freezeFromReport();
      source = toolset.source;
      tools = { kind: "toolset", toolset };
    } else {
      const facts = await this.stores.facts();
      const { factsStoreSurface, toolsManifestSurface } = await import("../facts/surface.ts");
      surface = mode.kind === "facts" ? await factsStoreSurface(facts, mode.store) : await toolsManifestSurface(facts, mode.bytes);
      tools = { kind: "surface", surface };
    }
    const imprint = this.imprint ? (await import("../imprint/gate.ts")).imprintBinding(this.imprint) : undefined;
    const id = `session_${randomHex(8)}`;
    const builtins = await this.builtinsFor(id);
    const pythonSel = selection.tool?.length || selection.toolTag?.length ? selection : undefined;
    const session = await createChatSession({
      engine,
      store: this.stores.receipts,
      // Guided decoding (web-llm, llama.cpp) by the tool-turn policy: by default the model can only
      // write one valid call or plain text (the loop still re-validates everything).
      toolChoice: this.toolChoice,
      tools,
      ...(toolset
        ? {
            host: this.host,
            workspace: this.workspace,
            confirmations: createConfirmationBroker({
              store: this.stores.pending,
              toolsFile: toolset.source.name,
              ...(pythonSel ? { selection: pythonSel } : {}),
              onCreated: (record: PendingAction, ticket: PendingTicket) => this.tickets.set(record.id, ticket),
            }),
          }
        : {}),
      ...(imprint ? { imprint } : {}),
      ...(builtins ? builtins : {}),
    });
    this.current = { id, session, source, toolset, surface, mode, imprint: this.imprint, engine, selection, createdAt: Date.now(), ...(cause ? { cause } : {}) };
    this.sourceChanged = false;
    this.emit("session");
    return this.current;
  }

  dispose(): void {
    this.stopPurge?.();
  }
}
