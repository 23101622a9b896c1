// The widget's working part, loaded with a dynamic import() on first use so the element itself
// stays small: one chat session over Edge's core — the sandboxed Pyodide runner host, the engine
// (web-llm, llama.cpp, or the explicitly labelled scripted demo), receipts and pending actions in the host
// page's IndexedDB, and the confirmation flow. No DOM here except the runner's hidden frame,
// which goes into the element's shadow root (the container the element passes).
import { createBrowserEdge, type BrowserEdge, type BrowserEngine, type BrowserStorage } from "../assembly/browser.ts";
import type { SessionBuiltins } from "../assembly/session.ts";
import type { ChatEvent, ChatRun, ChatSession } from "../chat/types.ts";
import { StartWarmer, type WarmStatus } from "../chat/warm-start.ts";
import type { Receipt } from "../receipts/types.ts";
import { EdgeError } from "../contract/errors.ts";
import type { ConfirmOutcome } from "../confirm/types.ts";
import type { EngineInfo, LoadProgress } from "../engines/engine.ts";
import type { ModelSource } from "../engines/llamacpp/backend.ts";
import { catalogModel, catalogSource, cpuDefaultModel, LLAMACPP_CATALOG } from "../engines/llamacpp/catalog.ts";
import { parseScript } from "../chat/script.ts";
import { importFacts } from "../facts/import.ts";
import type { ProjectSnapshot } from "../contract/project.ts";
import type { ToolSource } from "../runner/host.ts";
import { createCrossOriginModuleWorker, llamaWorkerScriptUrl, llmWorkerScriptUrl } from "./assets.ts";
import type { PendingActionDetail, WidgetConfig, WidgetRun } from "./types.ts";
import type { BuiltinToolName } from "../builtins/index.ts";
import type { EdgeVfs } from "../builtins/vfs/core.ts";
import type { WritePlan } from "../builtins/write-plan.ts";
import type { WorkspaceSource } from "../toolset/workspace.ts";
import type { BrowserPackages } from "../packages/browser.ts";
import { fetchPinnedWheels, widgetPackages } from "./packages.ts";

export interface AskHooks {
  signal?: AbortSignal;
  onToken?: (delta: string) => void;
  onEvent?: (event: ChatEvent) => void;
  onProgress?: (progress: LoadProgress) => void;
  onStatus?: (text: string) => void;
}

/**
 * The tools file at a URL, fetched again for every job (discovery, each call, each confirm), so
 * an edit on the server during a session is seen and refused with tools_file_changed.
 */
export function urlToolSource(url: string): ToolSource {
  const fetchBytes = async (): Promise<Uint8Array> => {
    let res: Response;
    try {
      res = await fetch(url, { cache: "no-store", credentials: "same-origin" });
    } catch (err) {
      throw new EdgeError(
        "tools_file_unreadable",
        { url },
        `The tools file ${url} could not be fetched (${String(err)}). Check the URL and the connection.`,
      );
    }
    if (!res.ok)
      throw new EdgeError(
        "tools_file_unreadable",
        { url, status: res.status },
        `The tools file ${url} could not be fetched: HTTP ${res.status}. Check the URL and the connection.`,
      );
    return new Uint8Array(await res.arrayBuffer());
  };
  if (!url.split(/[?#]/)[0]!.toLowerCase().endsWith(".zip")) return { name: url, read: fetchBytes };
  // A tools project as one zip (docs/tools-projects.md): fetched again for every job, like a file.
  const project = async (): Promise<ProjectSnapshot> => {
    const { projectFromZip } = await import("../toolset/project-archive.ts");
    const p = projectFromZip(url, await fetchBytes());
    return { root: null, entry: p.entry, files: p.files, skipped: p.skipped };
  };
  return {
    name: url,
    read: async () => {
      const p = await project();
      return p.files[p.entry]!;
    },
    readProject: project,
  };
}

/** The scripted demo's outputs, in the one script format (src/chat/script.ts), inline or at a URL. */
async function loadScript(script: string): Promise<string[]> {
  const trimmed = script.trim();
  if (trimmed.startsWith("[")) return parseScript(trimmed, "The script attribute");
  const res = await fetch(new URL(trimmed, location.href), { cache: "no-store", credentials: "same-origin" }).catch(
    (err: unknown) => {
      throw new EdgeError(
        "widget_config_invalid",
        { url: trimmed },
        `The demo script ${trimmed} could not be fetched (${String(err)}). Check the URL and the connection.`,
      );
    },
  );
  if (!res.ok)
    throw new EdgeError(
      "widget_config_invalid",
      { url: trimmed },
      `The demo script ${trimmed} could not be fetched: HTTP ${res.status}. Check the URL and the connection.`,
    );
  return parseScript(await res.text(), `The demo script ${trimmed}`);
}

/** A facts file at a URL, as bytes. */
async function fetchFacts(url: string): Promise<Uint8Array> {
  const res = await fetch(url, { cache: "no-store", credentials: "same-origin" }).catch((err: unknown) => {
    throw new EdgeError(
      "invalid_facts_file",
      { url },
      `The facts file ${url} could not be fetched (${String(err)}). Check the URL and the connection.`,
    );
  });
  if (!res.ok)
    throw new EdgeError(
      "invalid_facts_file",
      { url },
      `The facts file ${url} could not be fetched: HTTP ${res.status}. Check the URL and the connection.`,
    );
  return new Uint8Array(await res.arrayBuffer());
}

/** The visitor's files (page lifetime) and how the page asks about a built-in write. */
export interface WidgetWorkspace {
  vfs(): Promise<EdgeVfs>;
  askWrite(plan: WritePlan, signal: AbortSignal): Promise<boolean>;
}

export class WidgetCore {
  /** The browser's composition root: storage (IndexedDB, else memory), the runner host, confirm. */
  private readonly edge: BrowserEdge;
  private engine: Promise<BrowserEngine> | undefined;
  private session: Promise<ChatSession> | undefined;
  private warmer: StartWarmer | undefined;
  private readonly tokens = new Map<string, string>();
  private readonly toolSource: ToolSource | null;
  /** The tools project's Python packages (its pylock.toml's wheels, kept in this page's storage). */
  private readonly packages: BrowserPackages | null;
  private closed = false;

  constructor(
    readonly config: WidgetConfig,
    /** Where the runner's hidden sandbox frame is attached (inside the element's shadow root). */
    frameContainer: HTMLElement,
    private readonly files?: WidgetWorkspace,
  ) {
    this.edge = createBrowserEdge({
      ...(config.dbName ? { dbName: config.dbName } : {}),
      whenStorageRefused: "memory",
      runner: { pyodideBaseUrl: config.pyodideBaseUrl, container: frameContainer },
    });
    this.packages = config.toolsUrl ? widgetPackages(() => this.edge.runnerHost()) : null;
    this.toolSource =
      config.toolsUrl && this.packages ? { ...urlToolSource(config.toolsUrl), packages: this.packages.provider } : null;
  }

  /** Start what does not download a model: storage, the runner sandbox, the frozen tools. */
  prepare(onStatus?: (text: string) => void): Promise<ChatSession> {
    this.session ??= this.createSession(onStatus).catch((err: unknown) => {
      // A failed start is not cached: the next ask tries again (e.g. after the tools file was fixed).
      this.session = undefined;
      throw err;
    });
    return this.session;
  }

  /** Storage, opened once. Resolves with the memory fallback when IndexedDB is refused. */
  openStorage(): Promise<BrowserStorage> {
    return this.edge.storage();
  }

  private createEngine(): Promise<BrowserEngine> {
    this.engine ??= (async (): Promise<BrowserEngine> => {
      const { config } = this;
      if (config.engine === "scripted") {
        if (!config.script)
          throw EdgeError.withTableFix(
            "widget_config_invalid",
            {},
            `engine="scripted" needs a script attribute (a JSON array of the model's outputs, or its URL).`,
          );
        const outputs = await loadScript(config.script);
        return this.edge.engine({ kind: "scripted", outputs: () => outputs, options: { chunkDelayMs: 4 } });
      }
      if (config.engine === "llamacpp")
        return this.edge.engine({
          kind: "llamacpp",
          model: this.llamaSource(),
          createWorker: () => createCrossOriginModuleWorker(llamaWorkerScriptUrl(), "edge-llamacpp"),
        });
      return this.edge.engine({
        kind: "webllm",
        ...(config.model ? { modelId: config.model } : {}),
        createWorker: () => createCrossOriginModuleWorker(llmWorkerScriptUrl(), "edge-llm"),
      });
    })().catch((err: unknown) => {
      this.engine = undefined;
      throw err;
    });
    return this.engine;
  }

  /** The visitor's file, else `model`: a catalog id or a GGUF URL (default: the CPU default,
   *  catalog.ts). */
  private llamaSource(): ModelSource {
    const file = this.config.modelFile;
    if (file) return { kind: "blob", blob: file, name: file.name };
    const model = this.config.model ?? cpuDefaultModel().id;
    const entry = catalogModel(model);
    if (entry) return catalogSource(entry);
    if (!/^https?:\/\//i.test(model)) {
      throw EdgeError.withTableFix(
        "unknown_model",
        { model },
        `model="${model}" is neither a llama.cpp catalog model (${LLAMACPP_CATALOG.map((m) => m.id).join(", ")}) nor the http(s) URL of a GGUF file.`,
      );
    }
    return { kind: "url", url: model };
  }

  /** Load the model now (the visitor picked a file: checked — GGUF header, sha256 — and loaded at
   *  once, not on the next question); resolves with the engine's info, fingerprint included. */
  async loadModel(hooks: Pick<AskHooks, "signal" | "onProgress"> = {}): Promise<EngineInfo> {
    const { engine } = await this.createEngine();
    await engine.load(hooks.onProgress, hooks.signal);
    return engine.info();
  }

  /** With the model loaded before any question (the visitor's file): the session starts now and
   *  its tool contract is read into the model's prompt cache (chat/warm-start.ts); `onStatus` gets
   *  each step with the number of tools. A question asked meanwhile continues from it. */
  async warmAhead(onStatus: (status: WarmStatus, tools: number) => void): Promise<void> {
    const session = await this.prepare();
    this.warmer?.stop();
    this.warmer = new StartWarmer((s) => onStatus(s, session.runtime.schemas().length), document);
    this.warmer.begin(session);
  }

  private async createSession(onStatus?: (text: string) => void): Promise<ChatSession> {
    const { config } = this;
    if (config.toolsUrl && config.factsUrl)
      throw new EdgeError(
        "conflicting_tool_options",
        {},
        "Give the widget tools-src or facts-src, not both (one tool source per session).",
      );
    onStatus?.("Opening local storage…");
    await this.openStorage();
    const { engine } = await this.createEngine();
    // Guided decoding and sampling come from the tool-turn policy (src/engines/tool-turn.ts).
    const base = { engine, toolChoice: config.toolChoice, ...(await this.workspaceOptions()) };
    if (this.toolSource) {
      onStatus?.("Starting the Python tool runner…");
      await this.edge.runnerHost();
      if (this.packages) await fetchPinnedWheels(this.toolSource, this.packages, onStatus);
      onStatus?.("Reading the tools…");
      return this.edge.session({
        ...base,
        tools: { kind: "python", source: this.toolSource, selection: { tool: config.tool, toolTag: config.toolTag } },
      });
    }
    if (config.factsUrl) {
      onStatus?.("Importing the facts…");
      const bytes = await fetchFacts(config.factsUrl);
      const imported = await importFacts(await this.edge.facts(), bytes);
      return this.edge.session({ ...base, tools: { kind: "facts", store: imported.file_store } });
    }
    return this.edge.session(base);
  }

  /** The visitor's files for read_local tools, and the opt-in built-ins on them (writes ask). */
  private async workspaceOptions(): Promise<{ workspace?: WorkspaceSource; builtins?: SessionBuiltins }> {
    const files = this.files;
    if (!files) return {};
    const [{ vfsWorkspaceSource }, vfs] = await Promise.all([import("../builtins/workspace/source.ts"), files.vfs()]);
    const workspace = vfsWorkspaceSource(vfs);
    if (!this.config.builtins.length) return { workspace };
    const { builtinsForSession } = await import("../builtins/index.ts");
    const tools = this.config.builtins as BuiltinToolName[];
    return {
      workspace,
      builtins: await builtinsForSession({ vfs, tools, ask: (plan, signal) => files.askWrite(plan, signal) }),
    };
  }

  /** Whether this session's tools read the visitor's files (read_local) or work on them (built-ins). */
  async usesFiles(): Promise<boolean> {
    const session = await this.prepare();
    return (
      this.config.builtins.length > 0 ||
      (session.toolset?.active.some((t) => t.permissions.includes("read_local")) ?? false)
    );
  }

  async ask(prompt: string, hooks: AskHooks = {}): Promise<WidgetRun> {
    if (this.closed)
      throw new EdgeError(
        "already_closed",
        {},
        "This widget was disconnected from the page; add a new <edge-chat> element to ask again.",
      );
    const { engine, beforePrompt, loaded } = await this.createEngine();
    const modelLoading = !loaded();
    if (modelLoading) hooks.onStatus?.("Loading the model…");
    // The model loads while the runner boots and the tools are frozen (both take seconds); the
    // status line then follows the model, the slower of the two.
    const [session] = await Promise.all([
      this.prepare(modelLoading ? undefined : hooks.onStatus),
      engine.load(hooks.onProgress, hooks.signal),
    ]);
    hooks.onStatus?.("Thinking…");
    // The scripted demo plays as in the playground and the CLI: after its last output, again.
    beforePrompt();
    const run = await session.chat(prompt, { signal: hooks.signal, onToken: hooks.onToken, onEvent: hooks.onEvent });
    return await this.withoutToken(run);
  }

  /** The token stays here; the run handed out carries the action's id, tool, arguments and
   *  expiry (read back from the pending store: exactly what will run). */
  private async withoutToken(run: ChatRun): Promise<WidgetRun> {
    const { pending_action: ticket, ...rest } = run;
    if (!ticket) return rest;
    this.tokens.set(ticket.id, ticket.confirmation_token);
    const record = await (await this.openStorage()).pending.get(ticket.id);
    const call = run.receipt.calls.find((c) => c.status === "pending_confirmation");
    const detail: PendingActionDetail = {
      id: ticket.id,
      tool: record?.tool_name ?? call?.tool_name ?? "",
      arguments: record?.arguments ?? {},
      expires_at: record?.expires_at ?? ticket.expires_at,
    };
    return { ...rest, pending_action: detail };
  }

  hasToken(id: string): boolean {
    return this.tokens.has(id);
  }

  token(id: string): string | undefined {
    return this.tokens.get(id);
  }

  async confirm(id: string): Promise<{ outcome: ConfirmOutcome; receipt?: Receipt }> {
    const token = this.tokens.get(id);
    if (token === undefined) {
      return {
        outcome: {
          ok: false,
          id,
          status: null,
          error: {
            code: "pending_action_not_found",
            message: "This widget holds no confirmation token for that pending action; ask again in chat.",
          },
        },
      };
    }
    if (!this.toolSource)
      throw new EdgeError(
        "widget_config_invalid",
        {},
        "Pending actions need a tools file. Add a tools-src attribute to the <edge-chat> element.",
      );
    const outcome = await this.edge.confirm(id, token, this.toolSource);
    // Single use: whatever happened, this token will not be tried again.
    this.tokens.delete(id);
    const receipt = outcome.receipt_id ? await (await this.openStorage()).receipts.get(outcome.receipt_id) : undefined;
    return { outcome, ...(receipt ? { receipt } : {}) };
  }

  async reject(id: string): Promise<ConfirmOutcome> {
    const outcome = await this.edge.reject(id);
    this.tokens.delete(id);
    return outcome;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.warmer?.stop();
    // A loaded model (and its worker) goes with its core: a new file or attribute loads another.
    const engine = this.engine;
    this.engine = undefined;
    await Promise.all([this.edge.close(), engine?.then((e) => e.engine.unload()).catch(() => undefined)]);
  }
}
