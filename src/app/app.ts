// The playground's app: its state and simple actions (state.ts) plus the actions that need the
// runner, the stores and the editor: inspect, putProjectFile, newSession. Panels render from it,
// call its actions and re-render on its changes (`on`).
import type { BrowserEdge } from "../assembly/browser.ts";
import type { SessionBuiltins, SessionTools } from "../assembly/session.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import type { EdgeVfs } from "../builtins/vfs/core.ts";
import { EdgeError, type ErrorJson } from "../contract/errors.ts";
import { randomHex, type Sha256 } from "../contract/hash.ts";
import { freezeProject, readProjectSnapshot } from "../toolset/project.ts";
import { selectActiveSet } from "../contract/selection.ts";
import type { Selection } from "../contract/types.ts";
import type { PendingStore } from "../confirm/store.ts";
import type { PendingTicket } from "../chat/types.ts";
import type { FactsSurface } from "../facts/surface.ts";
import type { FactsStore } from "../facts/store.ts";
import type { ImprintStore } from "../imprint/store.ts";
import type { BrowserPackages } from "../packages/browser.ts";
import type { BrowserRunnerHost } from "../runner/browser/index.ts";
import type { ToolSource } from "../runner/host.ts";
import type { WorkspaceSource } from "../toolset/workspace.ts";
import type { EdgeDb } from "../idb/schema.ts";
import {
  analyzeToolset,
  freezeReport,
  type FrozenTool,
  type FrozenToolset,
  type ToolsetReport,
} from "../toolset/freeze.ts";
import type { ToolsEditor } from "./editor.ts";
import { toolSourceFor } from "./source.ts";
import { AppState, type SessionInfo } from "./state.ts";

/** The playground's stores, from the browser root (src/assembly/browser.ts). */
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

export class App extends AppState {
  /** Tickets (tokens) of pending actions created in this page: the token is shown once. */
  readonly tickets = new Map<string, PendingTicket>();

  constructor(
    /** The browser's composition root: stores, purging, the runner host, engines, sessions, confirm. */
    readonly edge: BrowserEdge,
    readonly host: BrowserRunnerHost,
    readonly stores: Stores,
    readonly editor: ToolsEditor,
    /** Python packages: the lock, this browser's wheels, and the source Download fetches from. */
    readonly packages: BrowserPackages,
  ) {
    super();
  }

  /** The root's stores (the playground needs IndexedDB: its records outlive the page). */
  static async openStores(edge: BrowserEdge): Promise<Stores> {
    const { db, receipts, pending } = await edge.storage();
    if (!db)
      throw new EdgeError(
        "storage_failed",
        {},
        "The playground keeps its records in IndexedDB, which this browser refuses here. Leave private mode, or let this site store data.",
      );
    return { db, receipts, pending, imprints: edge.imprints, facts: edge.facts, workspace: edge.workspace };
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
    if (this.sourceMode.kind === "project") this.writeProjectFile(path, bytes);
    else {
      const snapshot = await readProjectSnapshot(this.toolSource());
      this.setSourceMode({
        kind: "project",
        project: { name: "project", entry: snapshot.entry, files: { ...snapshot.files, [path]: bytes }, skipped: [] },
        open: snapshot.entry,
      });
      this.editor.setReadOnly(false);
    }
    this.markSourceChanged();
  }

  /** Discover the current source in a fresh runner (top-level code runs there) and keep the report. */
  async inspect(signal?: AbortSignal): Promise<ToolsetReport> {
    const t0 = performance.now();
    // Discover with no selection (every tool); the active set is applied locally below.
    const report = await analyzeToolset(this.toolSource(), this.host, {}, signal);
    this.setReport(report, performance.now() - t0);
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

  /** The built-ins chosen for a session, registered into a fresh runtime with their write approval. */
  private async builtinsFor(sessionId: string): Promise<SessionBuiltins | null> {
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
      const [{ vfsWorkspaceSource }, vfs] = await Promise.all([
        import("../builtins/workspace/source.ts"),
        this.stores.workspace(),
      ]);
      return vfsWorkspaceSource(vfs).snapshot(limits);
    },
  };

  /** Freeze the last report's bytes under the selection (no second discovery). */
  async freezeFromReport(): Promise<FrozenToolset> {
    if (!this.report)
      throw new EdgeError("tools_file_import_failed", {}, "Inspect the tools file first, then try again.");
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
    if (!engine)
      throw new EdgeError("engine_not_loaded", {}, "Pick an engine first (the scripted demo works without a GPU).");
    const mode = this.toolMode;
    let toolset: FrozenToolset | null = null;
    let surface: FactsSurface | null = null;
    let tools: SessionTools;
    const selection: Selection = { tool: [...this.selection.tool], toolTag: [...this.selection.toolTag] };
    if (mode.kind === "python") {
      if (!(await this.reportIsCurrent())) await this.inspect();
      toolset = await this.freezeFromReport();
      tools = { kind: "frozen", toolset, selection };
    } else {
      const facts = await this.stores.facts();
      const { factsStoreSurface, toolsManifestSurface } = await import("../facts/surface.ts");
      surface =
        mode.kind === "facts"
          ? await factsStoreSurface(facts, mode.store)
          : await toolsManifestSurface(facts, mode.bytes);
      tools = { kind: "surface", surface };
    }
    const imprint = this.imprint ? (await import("../imprint/gate.ts")).imprintBinding(this.imprint) : undefined;
    const id = `session_${randomHex(8)}`;
    const builtins = await this.builtinsFor(id);
    const session = await this.edge.session({
      engine,
      // Guided decoding (web-llm, llama.cpp) by the tool-turn policy: by default the model can only
      // write one valid call or plain text (the loop still re-validates everything).
      toolChoice: this.toolChoice,
      tools,
      // read_local tools see the Workspace tab's files.
      ...(toolset ? { workspace: this.workspace } : {}),
      ...(imprint ? { imprint } : {}),
      ...(builtins ? { builtins } : {}),
      onPending: (record, ticket) => this.tickets.set(record.id, ticket),
    });
    const source = toolset?.source ?? null;
    this.current = {
      id,
      session,
      source,
      toolset,
      surface,
      mode,
      imprint: this.imprint,
      engine,
      selection,
      createdAt: Date.now(),
      ...(cause ? { cause } : {}),
    };
    this.sourceChanged = false;
    this.emit("session");
    return this.current;
  }

  dispose(): Promise<void> {
    return this.edge.close();
  }
}
