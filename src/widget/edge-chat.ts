// <edge-chat>: Edge's chat as a custom element for docs sites. A lit element in Shadow DOM; the
// working part (runner sandbox, engine, session, storage) is in core.ts and loaded on first use,
// so the element itself costs little until someone asks something.
//
// Everything the model or a tool produced is rendered through lit text bindings (escaped), never
// as HTML. The confirmation token of a pending action stays inside the widget.
import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from "lit";
import type { ChatEvent } from "../chat/types.ts";
import { reduce, type TranscriptEvent } from "../chat/transcript.ts";
import type { LoadProgress } from "../engines/engine.ts";
import { catalogModel, LLAMACPP_CATALOG } from "../engines/llamacpp/catalog.ts";
import { SCRIPTED_LABEL } from "../engines/scripted.ts";
import { isToolChoice } from "../engines/tool-turn.ts";
import { probeWebGPU, type WebGPUProbe } from "../engines/webgpu.ts";
import { pyodideBaseUrl } from "./assets.ts";
import type { WidgetCore } from "./core.ts";
import { errorDetail, type NoteEntry, type WidgetPorts } from "./host.ts";
import { ModelFile } from "./model-file.ts";
import { styles } from "./styles.ts";
import { errorMessage, renderTranscriptEntry, type PendingCard, type WidgetTranscriptEntry } from "./transcript-view.ts";
import type { EdgeErrorDetail, EngineKind, PendingActionDetail, WidgetConfig, WidgetConfirmOutcome, WidgetRun } from "./types.ts";
import { VisitorFiles } from "./visitor-files.ts";
import { WriteApprovals, type WriteEntry } from "./write-approvals.ts";

/** The widget's own entries beside the transcript's: a failure outside a question (files, a
 *  model file) and a built-in write waiting for the visitor (its card: write-approvals.ts). */
type OwnEntry = NoteEntry | WriteEntry;

type Entry = WidgetTranscriptEntry | OwnEntry;

function splitList(value: string | null): string[] {
  return (value ?? "")
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

let loadCore: Promise<typeof import("./core.ts")> | undefined;
function importCore(): Promise<typeof import("./core.ts")> {
  loadCore ??= import("./core.ts");
  return loadCore;
}

let idCounter = 0;

export class EdgeChatElement extends LitElement {
  static override styles = styles;
  static override shadowRootOptions: ShadowRootInit = { ...LitElement.shadowRootOptions, delegatesFocus: false };

  static override properties = {
    toolsSrc: { type: String, attribute: "tools-src" },
    factsSrc: { type: String, attribute: "facts-src" },
    model: { type: String },
    tool: { type: String },
    toolTag: { type: String, attribute: "tool-tag" },
    engine: { type: String },
    toolChoice: { type: String, attribute: "tool-choice" },
    script: { type: String },
    heading: { type: String },
    placeholder: { type: String },
    dbName: { type: String, attribute: "db-name" },
    builtins: { type: String },
    entries: { state: true },
    cards: { state: true },
    busy: { state: true },
    statusText: { state: true },
    progress: { state: true },
    gpu: { state: true },
    demoChosen: { state: true },
    memoryOnly: { state: true },
  };

  /** URL of the tools file, resolved against the page. Re-fetched for every tool call. */
  declare toolsSrc: string | null;
  /** URL of a facts file (edge.demo.facts.v1): imported, then exposed as local_facts_lookup. */
  declare factsSrc: string | null;
  /** web-llm: a model id (default: the best small model this GPU runs). llama.cpp: a catalog id
   *  or the URL of a GGUF file (default: the catalog's first model). */
  declare model: string | null;
  /** Active-set selection: tool names / intent tags, separated by commas or spaces. */
  declare tool: string | null;
  declare toolTag: string | null;
  /** "auto" (default: web-llm on a usable GPU, else llama.cpp on the CPU), "webllm", "llamacpp",
   *  or "scripted" (the labelled demo: replays `script`, no model runs). */
  declare engine: string | null;
  /** "auto" (default: a tool call or an answer), "required" (call a tool first) or "none". */
  declare toolChoice: string | null;
  /** The scripted demo's outputs: a JSON array of strings, or the URL of one. */
  declare script: string | null;
  declare heading: string;
  declare placeholder: string;
  declare dbName: string | null;
  /** Opt-in built-in tools on the visitor's files ("read_file bash …"); none by default. */
  declare builtins: string | null;
  declare private entries: Entry[];
  /** The state of each confirmation card, by pending action id. */
  declare private cards: ReadonlyMap<string, PendingCard>;
  declare private busy: boolean;
  declare private statusText: string;
  declare private progress: LoadProgress | null;
  declare private gpu: WebGPUProbe | null;
  declare private demoChosen: boolean;
  /** The browser refused IndexedDB here (e.g. a cross-site iframe): receipts live in memory. */
  declare private memoryOnly: boolean;

  private core: WidgetCore | undefined;
  private coreKey = "";
  private queue: Promise<unknown> = Promise.resolve();
  private controller: AbortController | undefined;
  private readonly uid = `edge-chat-${++idCounter}`;
  /** What the controllers below need from the element. */
  private readonly ports: WidgetPorts = {
    uid: this.uid,
    status: (text) => (this.statusText = text),
    fail: (entry, status, detail) => {
      this.push(entry);
      this.statusText = status;
      this.emitError(detail);
    },
  };
  /** The visitor's files, the visitor's model file and the write approvals: lit reactive controllers. */
  private readonly visitorFiles = new VisitorFiles(this, this.ports);
  private readonly modelFile = new ModelFile(this, {
    ...this.ports,
    model: () => this.model,
    enqueue: (job) => {
      const next = this.queue.then(job);
      this.queue = next.catch(() => undefined);
      return next;
    },
    work: (job) => this.work(job),
    core: () => this.getCore(),
    busy: () => this.busy,
  });
  private readonly writes = new WriteApprovals(this, {
    ...this.ports,
    place: (entry) => void this.push(entry),
  });
  /** This update changed the log: show its end. */
  private logChanged = false;

  constructor() {
    super();
    this.toolsSrc = null;
    this.factsSrc = null;
    this.model = null;
    this.tool = null;
    this.toolTag = null;
    this.engine = null;
    this.toolChoice = null;
    this.script = null;
    this.heading = "Ask Edge";
    this.placeholder = "Ask a question…";
    this.dbName = null;
    this.builtins = null;
    this.entries = [];
    this.cards = new Map();
    this.busy = false;
    this.statusText = "";
    this.progress = null;
    this.gpu = null;
    this.demoChosen = false;
    this.memoryOnly = false;
    for (const controller of [this.visitorFiles, this.modelFile, this.writes]) this.addController(controller);
  }

  // ── public API ────────────────────────────────────────────────────────────────────────

  /** The engine in use: the attribute ("auto" resolved once the GPU probe answered), or the
   *  scripted demo once the person chose it. */
  get engineKind(): EngineKind {
    if (this.engine === "scripted" || this.demoChosen) return "scripted";
    if (this.engine === "webllm" || this.engine === "llamacpp") return this.engine;
    return this.gpu?.available && !this.gpu.adapter.isFallbackAdapter ? "webllm" : "llamacpp";
  }

  /** Ask a question (as if typed). Runs after any run in progress. The pending action in the
   *  result carries no token; confirm(id) uses the one the widget holds. */
  ask(prompt: string): Promise<WidgetRun> {
    const next = this.queue.then(() => this.runAsk(prompt));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Confirm a pending action this widget created (runs the commit tool once). */
  confirm(id: string): Promise<WidgetConfirmOutcome> {
    return this.decide(id, "confirm");
  }

  /** Reject a pending action: it can never run. */
  reject(id: string): Promise<WidgetConfirmOutcome> {
    return this.decide(id, "reject");
  }

  /** Stop the run in progress (the running tool is stopped, its result discarded). */
  stop(): void {
    this.controller?.abort();
  }

  /** The confirmation token of a pending action, for a host page that confirms elsewhere (e.g.
   *  on its server). The widget never puts it in an event. */
  confirmationToken(id: string): string | undefined {
    return this.core?.token(id);
  }

  // ── lifecycle ─────────────────────────────────────────────────────────────────────────

  /** Settles once the WebGPU probe answered ("auto" needs it before the first question). */
  private gpuProbed: Promise<void> = Promise.resolve();

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.gpu === null) {
      this.gpuProbed = probeWebGPU().then((probe) => {
        this.gpu = probe;
        // What the CPU notice promises depends on whether this browser can store the model.
        if (this.engineKind === "llamacpp") this.modelFile.probeStorage();
      });
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.controller?.abort();
    void this.disposeCore();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // A changed tool source, selection or engine starts a new session on the next question.
    const keys = ["toolsSrc", "factsSrc", "model", "tool", "toolTag", "engine", "toolChoice", "script", "dbName", "demoChosen", "builtins"] as const;
    const touched = this.modelFile.changed || keys.some((k) => changed.has(k as keyof EdgeChatElement));
    if (this.core && touched && this.configKey() !== this.coreKey) void this.disposeCore();
    this.logChanged = changed.has("entries" as keyof EdgeChatElement) || changed.has("cards" as keyof EdgeChatElement) || this.writes.changed;
  }

  private async disposeCore(): Promise<void> {
    const core = this.core;
    this.core = undefined;
    this.coreKey = "";
    this.coreStarting = undefined;
    await core?.close();
  }

  private config(): WidgetConfig {
    const abs = (u: string | null): string | null => (u ? new URL(u, document.baseURI).href : null);
    return {
      toolsUrl: abs(this.toolsSrc),
      factsUrl: abs(this.factsSrc),
      tool: splitList(this.tool),
      toolTag: splitList(this.toolTag),
      engine: this.engineKind,
      // A GGUF URL is resolved against the page like the other URLs; a model id stays as it is.
      model: this.model ? (/\.gguf([?#]|$)/i.test(this.model) ? abs(this.model) : this.model) : null,
      modelFile: this.modelFile.file,
      toolChoice: isToolChoice(this.toolChoice) ? this.toolChoice : "auto",
      script: this.script && !this.script.trim().startsWith("[") ? abs(this.script) : this.script,
      pyodideBaseUrl: pyodideBaseUrl(),
      dbName: this.dbName || null,
      builtins: splitList(this.builtins),
    };
  }

  private configKey(): string {
    return JSON.stringify(this.config(), (_key, value: unknown) => (value instanceof Blob ? `file #${this.modelFile.serial}` : value));
  }

  private coreStarting: Promise<WidgetCore> | undefined;

  /** The core for the current attributes (one at a time: concurrent callers share it). */
  private getCore(): Promise<WidgetCore> {
    const key = this.configKey();
    if (this.core && this.coreKey === key) return Promise.resolve(this.core);
    if (this.coreStarting && this.coreKey === key) return this.coreStarting;
    this.coreKey = key;
    const old = this.core;
    this.core = undefined;
    const starting = (async () => {
      await old?.close();
      const { WidgetCore } = await importCore();
      await this.updateComplete;
      const container = this.renderRoot.querySelector<HTMLElement>(".sandbox")!;
      const core = new WidgetCore(this.config(), container, { vfs: () => this.visitorFiles.vfs(), askWrite: (plan, signal) => this.writes.ask(plan, signal) });
      if (this.coreKey === key) this.core = core;
      void core.usesFiles().then((uses) => this.visitorFiles.setAccepts(uses), () => undefined);
      void core.openStorage().then((storage) => {
        this.memoryOnly = storage.kind === "memory";
      });
      return core;
    })();
    this.coreStarting = starting;
    void starting.finally(() => {
      if (this.coreStarting === starting) this.coreStarting = undefined;
    }).catch(() => undefined);
    return starting;
  }

  /** Warm up when the person starts typing: storage, runner and tools (never the model). */
  private warm(): void {
    if (this.busy || !this.canAsk()) return;
    void this.getCore()
      .then((core) => core.prepare())
      .catch(() => undefined); // reported when they ask
  }

  private canAsk(): boolean {
    return this.engineKind !== "webllm" || this.gpu?.available !== false;
  }

  // ── events ────────────────────────────────────────────────────────────────────────────

  private emit<T>(type: string, detail: T): void {
    this.dispatchEvent(new CustomEvent<T>(type, { detail, bubbles: true, composed: true }));
  }

  private emitError(detail: EdgeErrorDetail): void {
    this.emit<EdgeErrorDetail>("edge-error", detail);
  }

  private push(entry: Entry): number {
    this.entries = [...this.entries, entry];
    return this.entries.length - 1;
  }

  private apply(event: TranscriptEvent<WidgetRun>): void {
    this.entries = reduce<WidgetRun, OwnEntry>(this.entries, event);
  }

  // ── asking ────────────────────────────────────────────────────────────────────────────

  private async runAsk(prompt: string): Promise<WidgetRun> {
    if (typeof prompt !== "string" || prompt.trim() === "") {
      const detail: EdgeErrorDetail = { code: "invalid_argument", message: "The prompt is empty." };
      this.emitError(detail);
      throw Object.assign(new Error(detail.message), detail);
    }
    this.apply({ type: "prompt", text: prompt });
    await this.gpuProbed;
    if (!this.canAsk()) {
      const probe = this.gpu as Extract<WebGPUProbe, { available: false }>;
      const detail: EdgeErrorDetail = { code: "webgpu_unavailable", message: probe.message };
      this.apply({ type: "failure", error: { code: detail.code, message: detail.message } });
      this.emitError(detail);
      throw Object.assign(new Error(detail.message), detail);
    }
    this.busy = true;
    const controller = new AbortController();
    this.controller = controller;
    const onEvent = (event: ChatEvent): void => {
      this.apply(event);
      if (event.type === "tool_call") this.statusText = `Running tool ${event.tool_name}…`;
      else if (event.type === "tool_result") this.statusText = "Thinking…";
    };
    try {
      const core = await this.getCore();
      const run = await core.ask(prompt, {
        signal: controller.signal,
        onToken: (delta) => this.apply({ type: "token", delta }),
        onEvent,
        onProgress: (p) => {
          this.progress = p.phase === "ready" ? null : p;
        },
        onStatus: (text) => {
          this.statusText = text;
        },
      });
      this.progress = null;
      this.apply({ type: "run", run });
      if (run.outcome === "answered") {
        this.statusText = run.truncated ? "Answered, but cut off at the token limit." : "Answered.";
      } else if (run.outcome === "return_direct") {
        const call = run.receipt.calls[run.receipt.calls.length - 1];
        this.statusText = `Result from ${call?.tool_name ?? "the tool"}.`;
      } else if (run.outcome === "pending_confirmation" && run.pending_action) {
        this.statusText = `${run.pending_action.tool} needs your confirmation before it runs.`;
      } else {
        this.statusText = `Failed: ${run.error?.code ?? "invalid_argument"}.`;
      }
      this.emit("edge-receipt", run.receipt);
      if (run.pending_action) this.emit<PendingActionDetail>("edge-pending-action", run.pending_action);
      if (!run.ok && run.error && run.outcome !== "pending_confirmation") {
        this.emitError({ code: run.error.code, message: run.error.message, ...(run.error.tool ? { tool: run.error.tool } : {}) });
      }
      return run;
    } catch (err) {
      const detail = errorDetail(err);
      this.progress = null;
      this.apply({ type: "failure", error: { code: detail.code, message: detail.message } });
      this.statusText = `Failed: ${detail.code}.`;
      this.emitError(detail);
      throw err;
    } finally {
      this.busy = false;
      if (this.controller === controller) this.controller = undefined;
      this.visitorFiles.refreshIfOpen(); // built-in writes may have changed them
    }
  }

  private card(id: string): PendingCard {
    return this.cards.get(id) ?? { state: "pending" };
  }

  private async decide(id: string, action: "confirm" | "reject"): Promise<WidgetConfirmOutcome> {
    const known = this.entries.some((e) => e.kind === "pending" && e.action.id === id);
    const setCard = (patch: Partial<PendingCard>): void => {
      if (known) this.cards = new Map(this.cards).set(id, { ...this.card(id), ...patch });
    };
    setCard({ state: "working" });
    this.statusText = action === "confirm" ? "Confirming…" : "Rejecting…";
    try {
      const core = await this.getCore();
      let outcome: WidgetConfirmOutcome;
      if (action === "confirm") {
        const done = await core.confirm(id);
        outcome = done.outcome;
        if (done.receipt) this.emit("edge-receipt", done.receipt);
      } else {
        outcome = await core.reject(id);
      }
      if (outcome.ok) {
        setCard({ state: action === "confirm" ? "done" : "rejected", ...(outcome.result ? { result: outcome.result } : {}) });
        this.statusText = action === "confirm" ? "Confirmed: the tool ran." : "Rejected: it will not run.";
      } else {
        setCard({ state: "failed", ...(outcome.error ? { error: outcome.error } : {}) });
        this.statusText = `Not run: ${outcome.error?.code ?? "failed"}.`;
        if (outcome.error) this.emitError({ code: outcome.error.code, message: outcome.error.message });
      }
      return outcome;
    } catch (err) {
      const detail = errorDetail(err);
      setCard({ state: "failed", error: { code: detail.code, message: detail.message } });
      this.statusText = `Failed: ${detail.code}.`;
      this.emitError(detail);
      throw err;
    }
  }

  /** Runs a model file's load as the element's run: busy, Stop aborts it, its progress shown. */
  private async work(job: (signal: AbortSignal, onProgress: (p: LoadProgress) => void) => Promise<void>): Promise<void> {
    this.busy = true;
    const controller = new AbortController();
    this.controller = controller;
    try {
      await job(controller.signal, (p) => (this.progress = p.phase === "ready" ? null : p));
    } finally {
      this.progress = null;
      this.busy = false;
      if (this.controller === controller) this.controller = undefined;
    }
  }

  /** Add files for the tools (checked whole first: names and limits; one change, or nothing). */
  addFiles(list: readonly File[]): Promise<void> {
    return this.visitorFiles.add(list);
  }

  // ── rendering ─────────────────────────────────────────────────────────────────────────

  private onSubmit(event: Event): void {
    event.preventDefault();
    const input = this.renderRoot.querySelector<HTMLInputElement>("input[part=input]")!;
    const prompt = input.value;
    if (!prompt.trim() || this.busy) return;
    input.value = "";
    this.ask(prompt).catch(() => undefined); // shown in the transcript and as edge-error
  }

  private useDemo(): void {
    this.demoChosen = true;
    this.statusText = `Using the ${SCRIPTED_LABEL}: answers are replayed from a script, no model runs.`;
  }

  protected override updated(): void {
    if (this.logChanged) {
      const log = this.renderRoot.querySelector<HTMLElement>(".log");
      if (log) log.scrollTop = log.scrollHeight;
    }
  }

  override render(): TemplateResult {
    const kind = this.engineKind;
    const scripted = kind === "scripted";
    const gpuMissing = kind === "webllm" && this.gpu !== null && !this.gpu.available;
    const onCpu = kind === "llamacpp" && this.engine !== "llamacpp" && this.gpu !== null;
    const titleId = `${this.uid}-title`;
    const noticeId = `${this.uid}-notice`;
    return html`
      <section class="panel" part="panel" aria-labelledby=${titleId} @dragover=${this.visitorFiles.onDragOver} @drop=${this.visitorFiles.onDrop}>
        <header part="header">
          <h2 id=${titleId}>${this.heading}</h2>
          ${scripted
            ? html`<span class="badge demo" part="badge">${SCRIPTED_LABEL}</span>`
            : html`<span class="badge" part="badge">${kind === "llamacpp" ? `${this.modelFile.name()} · on-device model (llama.cpp, CPU)` : `${this.model ? `${this.model} · ` : ""}on-device model (WebGPU)`}</span>`}
        </header>
        ${gpuMissing ? this.renderGpuNotice(noticeId) : onCpu ? this.renderCpuNotice(noticeId) : nothing}
        ${kind === "llamacpp" ? this.modelFile.render(onCpu) : nothing}
        ${this.memoryOnly
          ? html`<p class="note" part="storage-note">This browser does not let the widget store data here, so receipts and confirmations are kept for this page visit only.</p>`
          : nothing}
        <div class="log" part="log" role="log" aria-live="polite" aria-label="Conversation" tabindex="0">
          ${this.entries.length === 0 ? html`<p class="empty">Ask a question; answers may use this site's tools.</p>` : nothing}
          ${this.entries.map((e) => this.renderEntry(e))}
        </div>
        ${this.progress
          ? html`<div part="progress">
              <progress max="1" .value=${this.progress.progress} aria-label="Loading the model"></progress>
              <span class="muted">${this.progress.text}</span>
            </div>`
          : nothing}
        <p class="live" role="status" aria-live="polite">${this.statusText}</p>
        <form part="form" @submit=${this.onSubmit}>
          <label for="${this.uid}-input">Your question</label>
          <input
            id="${this.uid}-input"
            part="input"
            type="text"
            autocomplete="off"
            enterkeyhint="send"
            placeholder=${this.placeholder}
            aria-describedby=${gpuMissing ? noticeId : nothing}
            ?disabled=${gpuMissing}
            @focus=${this.warm}
          />
          ${this.busy
            ? html`<button type="button" part="button" class="secondary" @click=${this.stop}>Stop</button>`
            : html`<button type="submit" part="button" ?disabled=${gpuMissing}>Send</button>`}
        </form>
        ${this.visitorFiles.render(this.builtins)}
        <div class="sandbox" aria-hidden="true"></div>
      </section>
    `;
  }

  /** "auto" without a usable GPU: the model runs on the CPU, and its first use downloads it. */
  private renderCpuNotice(id: string): TemplateResult {
    const entry = catalogModel(this.model ?? LLAMACPP_CATALOG[0]!.id);
    const why = this.gpu?.available ? "This device's WebGPU adapter is a software fallback" : "WebGPU is not available here";
    // No offline promise: the model may be stored, but the page and its tools file come from the site.
    return html`<div class="notice" part="notice" id=${id}>
      <p>
        ${why}, so the model runs on this device's CPU (llama.cpp). ${this.modelFile.file
          ? html`It runs the model file you picked; nothing is downloaded.`
          : html`The first question downloads ${this.modelFile.name()} (${entry ? `${entry.sizeMB} MB` : "the model file"})${this.modelFile.storage === "none"
              ? "; this browser cannot store it here, so every visit downloads it again. A model file from this device (below) needs no storage"
              : this.modelFile.storage
                ? " once; later visits use the stored copy"
                : ""}.`}
      </p>
      ${this.script
        ? html`<button type="button" class="secondary" @click=${this.useDemo}>Use the ${SCRIPTED_LABEL}</button>`
        : nothing}
    </div>`;
  }

  private renderGpuNotice(id: string): TemplateResult {
    const probe = this.gpu as Extract<WebGPUProbe, { available: false }>;
    return html`<div class="notice" part="notice" id=${id}>
      <p><strong>The on-device model cannot run here: WebGPU is not available.</strong> ${probe.message}</p>
      ${this.script
        ? html`<button type="button" class="secondary" @click=${this.useDemo}>Use the ${SCRIPTED_LABEL}</button>`
        : nothing}
    </div>`;
  }

  private renderEntry(e: Entry): TemplateResult | typeof nothing {
    if (e.kind === "error") return errorMessage(e.title ?? "Not answered", e.code, e.message);
    if (e.kind === "write") return this.writes.render(e.id);
    return renderTranscriptEntry(e, {
      uid: this.uid,
      card: (id) => this.card(id),
      confirm: (id) => void this.confirm(id).catch(() => undefined),
      reject: (id) => void this.reject(id).catch(() => undefined),
    });
  }
}
