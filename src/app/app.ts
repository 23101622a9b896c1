// The playground's state and the actions that change it. Panels render from this and call its
// methods; it emits "change" events (on `events`) so every panel can re-render what it shows.
import { createChatSession, type ChatSession } from "../chat/session.ts";
import type { ReceiptStore } from "../chat/receipt-types.ts";
import { EdgeError, type ErrorJson } from "../contract/errors.ts";
import { sha256Bytes } from "../contract/hash.ts";
import { selectActiveSet } from "../contract/selection.ts";
import type { Selection } from "../contract/types.ts";
import { createConfirmationBroker } from "../confirm/broker.ts";
import { startPurging } from "../confirm/confirm.ts";
import { createIdbPendingStore } from "../confirm/idb-pending.ts";
import type { PendingAction, PendingStore } from "../confirm/types.ts";
import type { PendingTicket } from "../chat/session.ts";
import type { Engine } from "../engines/engine.ts";
import { toolChoiceFormat, type ToolChoice } from "../engines/tool-choice.ts";
import type { FactsSurface } from "../facts/surface.ts";
import type { FactsStore } from "../facts/store.ts";
import type { Imprint, ImprintStore } from "../imprint/record.ts";
import type { BrowserRunnerHost } from "../runner/browser/index.ts";
import type { ToolSource } from "../runner/host.ts";
import { openEdgeDb } from "../store/idb.ts";
import { createIdbReceiptStore } from "../store/idb-receipts.ts";
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
}

function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= load());
}

/** What the chat's tools are: the Python file, a facts store's lookup, or a tools manifest. */
export type ToolMode = { kind: "python" } | { kind: "facts"; store: string } | { kind: "manifest"; name: string; bytes: Uint8Array };

export type AppChange = "report" | "selection" | "session" | "engine" | "receipts" | "imprints" | "facts" | "source";

export interface SessionInfo {
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
}

function guided(choice: ToolChoice) {
  const responseFormat = toolChoiceFormat(choice);
  return responseFormat ? { responseFormat } : {};
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
  /** How guided decoding treats tools (web-llm, llama.cpp): src/engines/tool-choice.ts. */
  toolChoice: ToolChoice = "auto";
  current: SessionInfo | null = null;
  /** Tickets (tokens) of pending actions created in this page: the token is shown once. */
  readonly tickets = new Map<string, PendingTicket>();
  /** Set when the editor or the file differs from what the session froze. */
  sourceChanged = false;
  private stopPurge: (() => void) | undefined;

  constructor(
    readonly host: BrowserRunnerHost,
    readonly stores: Stores,
    readonly editor: ToolsEditor,
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
      imprints: lazy(async () => (await import("../imprint/idb-store.ts")).createIdbImprintStore(db)),
      facts: lazy(async () => (await import("../facts/store-idb.ts")).createIdbFactsStore(db)),
    };
  }

  emit(change: AppChange): void {
    this.events.dispatchEvent(new CustomEvent("change", { detail: change }));
  }

  on(listener: (change: AppChange) => void): void {
    this.events.addEventListener("change", (e) => listener((e as CustomEvent<AppChange>).detail));
  }

  /** The ToolSource of the current source mode (re-read on every call). */
  toolSource(): ToolSource {
    return toolSourceFor(this.sourceMode, () => this.editor.getText());
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

  /** Freeze the last report's bytes under the selection (no second discovery). */
  async freezeFromReport(): Promise<FrozenToolset> {
    if (!this.report) throw new EdgeError("tools_file_import_failed", {}, "Inspect the tools file first.");
    return freezeReport(this.report, this.toolSource(), this.selection);
  }

  /** Whether the current source's bytes still equal what the last report saw. */
  async reportIsCurrent(): Promise<boolean> {
    if (!this.report?.tools_file_sha256) return false;
    try {
      const bytes = await this.toolSource().read();
      return (await sha256Bytes(bytes)) === this.report.tools_file_sha256;
    } catch {
      return false;
    }
  }

  /**
   * "Freeze / new session": freeze the current tools (re-inspecting if the source changed since the
   * last inspect) and start a new chat session with the current engine, imprint and tool mode.
   */
  async newSession(): Promise<SessionInfo> {
    const engine = this.engine;
    if (!engine) throw new EdgeError("engine_not_loaded", {}, "Pick an engine first (the scripted demo works without a GPU).");
    const mode = this.toolMode;
    let toolset: FrozenToolset | null = null;
    let surface: FactsSurface | null = null;
    let source: ToolSource | null = null;
    const selection: Selection = { tool: [...this.selection.tool], toolTag: [...this.selection.toolTag] };
    if (mode.kind === "python") {
      if (!(await this.reportIsCurrent())) await this.inspect();
      toolset = await this.freezeFromReport();
      source = toolset.source;
    } else {
      const facts = await this.stores.facts();
      const { factsStoreSurface, toolsManifestSurface } = await import("../facts/surface.ts");
      surface = mode.kind === "facts" ? await factsStoreSurface(facts, mode.store) : await toolsManifestSurface(facts, mode.bytes);
    }
    const imprint = this.imprint ? (await import("../imprint/gate.ts")).imprintBinding(this.imprint) : undefined;
    const pythonSel = selection.tool?.length || selection.toolTag?.length ? selection : undefined;
    const session = await createChatSession({
      engine,
      store: this.stores.receipts,
      // Guided decoding (web-llm, llama.cpp): by default the model can only write one valid call or
      // plain text (the loop still re-validates everything). The scripted demo replays its script.
      ...(engine.info().kind !== "scripted" ? guided(this.toolChoice) : {}),
      ...(toolset
        ? {
            toolset,
            host: this.host,
            ...(pythonSel ? { selection: pythonSel } : {}),
            confirmations: createConfirmationBroker({
              store: this.stores.pending,
              toolsFile: toolset.source.name,
              ...(pythonSel ? { selection: pythonSel } : {}),
              onCreated: (record: PendingAction, ticket: PendingTicket) => this.tickets.set(record.id, ticket),
            }),
          }
        : {}),
      ...(surface?.kind === "facts_store" ? { factsStore: surface } : {}),
      ...(surface?.kind === "tools_manifest" ? { toolsManifest: surface } : {}),
      ...(imprint ? { imprint } : {}),
    });
    this.current = { session, source, toolset, surface, mode, imprint: this.imprint, engine, selection, createdAt: Date.now() };
    this.sourceChanged = false;
    this.emit("session");
    return this.current;
  }

  dispose(): void {
    this.stopPurge?.();
  }
}
