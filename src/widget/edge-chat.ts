// <edge-chat>: Edge's chat as a custom element for docs sites. A lit element in Shadow DOM; the
// working part (runner sandbox, engine, session, storage) is in core.ts and loaded on first use,
// so the element itself costs little until someone asks something.
//
// Everything the model or a tool produced is rendered through lit text bindings (escaped), never
// as HTML. The confirmation token of a pending action stays inside the widget.
import { LitElement, html, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from "lit";
import { EdgeError } from "../contract/errors.ts";
import type { ChatEvent } from "../chat/types.ts";
import { reduce, type TranscriptEvent } from "../chat/transcript.ts";
import type { EngineKind } from "../engines/engine.ts";
import { SCRIPTED_LABEL } from "../engines/scripted.ts";
import { probeWebGPU, type WebGPUProbe } from "../engines/webgpu.ts";
import { EdgeChatAttributes } from "./attributes.ts";
import { Confirmations } from "./confirmations.ts";
import { CoreSession, widgetConfig } from "./core-session.ts";
import { errorDetail, failureDetail, type NoteEntry, type WidgetPorts } from "./host.ts";
import { ModelFile } from "./model-file.ts";
import { cpuNotice, gpuNotice } from "./notices.ts";
import { Runs } from "./runs.ts";
import { styles } from "./styles.ts";
import { errorMessage, renderTranscriptEntry, runStatus, type WidgetTranscriptEntry } from "./transcript-view.ts";
import type { EdgeErrorDetail, PendingActionDetail, WidgetConfirmOutcome, WidgetRun } from "./types.ts";
import { VisitorFiles } from "./visitor-files.ts";
import { WriteApprovals, type WriteEntry } from "./write-approvals.ts";

/** The widget's own entries beside the transcript's: a failure outside a question (files, a
 *  model file) and a built-in write waiting for the visitor (its card: write-approvals.ts). */
type OwnEntry = NoteEntry | WriteEntry;

type Entry = WidgetTranscriptEntry | OwnEntry;

let idCounter = 0;

export class EdgeChatElement extends EdgeChatAttributes {
  static override styles = styles;
  static override shadowRootOptions: ShadowRootInit = { ...LitElement.shadowRootOptions, delegatesFocus: false };

  /** The element's own state; its attributes (and their defaults) are EdgeChatAttributes'. */
  static override properties: PropertyDeclarations = {
    entries: { state: true },
    statusText: { state: true },
    gpu: { state: true },
    demoChosen: { state: true },
    memoryOnly: { state: true },
  };

  declare private entries: Entry[];
  declare private statusText: string;
  declare private gpu: WebGPUProbe | null;
  declare private demoChosen: boolean;
  /** The browser refused IndexedDB here (e.g. a cross-site iframe): receipts live in memory. */
  declare private memoryOnly: boolean;

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
  /** Lit reactive controllers, each owning its state: the runs, the visitor's files, the visitor's
   *  model file, the pending actions' cards and the write approvals. */
  private readonly runs = new Runs(this);
  private readonly visitorFiles = new VisitorFiles(this, this.ports);
  private readonly modelFile = new ModelFile(this, {
    ...this.ports,
    model: () => this.model,
    runs: this.runs,
    core: () => this.session.get(),
  });
  private readonly confirmations = new Confirmations(this, {
    ...this.ports,
    core: () => this.session.get(),
    shows: (id) => this.entries.some((e) => e.kind === "pending" && e.action.id === id),
    receipt: (receipt) => this.emit("edge-receipt", receipt),
    error: (detail) => this.emitError(detail),
  });
  private readonly writes = new WriteApprovals(this, {
    ...this.ports,
    place: (entry) => this.push(entry),
  });
  private readonly session: CoreSession = new CoreSession({
    config: () => widgetConfig(this, this.engineKind, this.modelFile.file),
    fileSerial: () => this.modelFile.serial,
    sandbox: async () => {
      await this.updateComplete;
      return this.renderRoot.querySelector<HTMLElement>(".sandbox")!;
    },
    workspace: { vfs: () => this.visitorFiles.vfs(), askWrite: (plan, signal) => this.writes.ask(plan, signal) },
    started: (core) => {
      void core.usesFiles().then(
        (uses) => this.visitorFiles.setAccepts(uses),
        () => undefined,
      );
      void core.openStorage().then((storage) => {
        this.memoryOnly = storage.kind === "memory";
      });
    },
  });
  /** This update changed the log: show its end. */
  private logChanged = false;

  constructor() {
    super();
    this.entries = [];
    this.statusText = "";
    this.gpu = null;
    this.demoChosen = false;
    this.memoryOnly = false;
    for (const controller of [this.runs, this.visitorFiles, this.modelFile, this.confirmations, this.writes])
      this.addController(controller);
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
    return this.runs.enqueue(() => this.runAsk(prompt));
  }

  /** Confirm a pending action this widget created (runs the commit tool once). */
  confirm(id: string): Promise<WidgetConfirmOutcome> {
    return this.confirmations.decide(id, "confirm");
  }

  /** Reject a pending action: it can never run. */
  reject(id: string): Promise<WidgetConfirmOutcome> {
    return this.confirmations.decide(id, "reject");
  }

  /** Stop the run in progress (the running tool is stopped, its result discarded). */
  stop(): void {
    this.runs.stop();
  }

  /** The confirmation token of a pending action, for a host page that confirms elsewhere (e.g.
   *  on its server). The widget never puts it in an event. */
  confirmationToken(id: string): string | undefined {
    return this.session.current?.token(id);
  }

  /** Add files for the tools (checked whole first: names and limits; one change, or nothing). */
  addFiles(list: readonly File[]): Promise<void> {
    return this.visitorFiles.add(list);
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
    super.disconnectedCallback(); // the run in progress stops (runs.ts)
    void this.session.dispose();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // A changed tool source, selection or engine starts a new session on the next question.
    const keys = [
      "toolsSrc",
      "factsSrc",
      "model",
      "tool",
      "toolTag",
      "engine",
      "toolChoice",
      "script",
      "dbName",
      "demoChosen",
      "builtins",
    ] as const;
    if (this.modelFile.changed || keys.some((k) => changed.has(k as keyof EdgeChatElement))) this.session.refresh();
    this.logChanged =
      changed.has("entries" as keyof EdgeChatElement) || this.confirmations.changed || this.writes.changed;
  }

  /** Warm up when the person starts typing: storage, runner and tools (never the model). */
  private warm(): void {
    if (this.runs.busy || !this.canAsk()) return;
    void this.session
      .get()
      .then((core) => core.prepare())
      .catch(() => undefined); // reported when they ask
  }

  private canAsk(): boolean {
    return this.engineKind !== "webllm" || this.gpu?.available !== false;
  }

  private emit<T>(type: string, detail: T): void {
    this.dispatchEvent(new CustomEvent<T>(type, { detail, bubbles: true, composed: true }));
  }

  private emitError(detail: EdgeErrorDetail): void {
    this.emit<EdgeErrorDetail>("edge-error", detail);
  }

  private push(entry: Entry): void {
    this.entries = [...this.entries, entry];
  }

  private apply(event: TranscriptEvent<WidgetRun>): void {
    this.entries = reduce<WidgetRun, OwnEntry>(this.entries, event);
  }

  // ── asking ────────────────────────────────────────────────────────────────────────────

  private async runAsk(prompt: string): Promise<WidgetRun> {
    if (typeof prompt !== "string" || prompt.trim() === "") {
      const err = new EdgeError("empty_prompt");
      this.emitError(errorDetail(err));
      throw err;
    }
    this.apply({ type: "prompt", text: prompt });
    await this.gpuProbed;
    if (!this.canAsk()) {
      const probe = this.gpu as Extract<WebGPUProbe, { available: false }>;
      const err = new EdgeError("webgpu_unavailable", {}, probe.message);
      this.apply({ type: "failure", error: err.toJSON() });
      this.emitError(errorDetail(err));
      throw err;
    }
    const onEvent = (event: ChatEvent): void => {
      this.apply(event);
      if (event.type === "tool_call") this.statusText = `Running tool ${event.tool_name}…`;
      else if (event.type === "tool_result") this.statusText = "Thinking…";
    };
    try {
      return await this.runs.work(async (signal) => {
        try {
          const core = await this.session.get();
          const run = await core.ask(prompt, {
            signal,
            onToken: (delta) => this.apply({ type: "token", delta }),
            onEvent,
            onProgress: this.runs.onProgress,
            onStatus: (text) => void (this.statusText = text),
          });
          this.apply({ type: "run", run });
          this.statusText = runStatus(run);
          this.emit("edge-receipt", run.receipt);
          if (run.pending_action) this.emit<PendingActionDetail>("edge-pending-action", run.pending_action);
          if (!run.ok && run.error && run.outcome !== "pending_confirmation") {
            this.emitError(failureDetail(run.error));
          }
          return run;
        } catch (err) {
          const detail = errorDetail(err);
          this.apply({ type: "failure", error: { code: detail.code, message: detail.message } });
          this.statusText = `Failed: ${detail.code}.`;
          this.emitError(detail);
          throw err;
        }
      });
    } finally {
      this.visitorFiles.refreshIfOpen(); // built-in writes may have changed them
    }
  }

  // ── rendering ─────────────────────────────────────────────────────────────────────────

  private onSubmit(event: Event): void {
    event.preventDefault();
    const input = this.renderRoot.querySelector<HTMLInputElement>("input[part=input]")!;
    const prompt = input.value;
    if (!prompt.trim() || this.runs.busy) return;
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
    const notice = { id: noticeId, script: Boolean(this.script), useDemo: () => this.useDemo() };
    return html`
      <section class="panel" part="panel" aria-labelledby=${titleId} @dragover=${this.visitorFiles.onDragOver} @drop=${this.visitorFiles.onDrop}>
        <header part="header">
          <h2 id=${titleId}>${this.heading}</h2>
          ${
            scripted
              ? html`<span class="badge demo" part="badge">${SCRIPTED_LABEL}</span>`
              : html`<span class="badge" part="badge">${kind === "llamacpp" ? `${this.modelFile.name()} · on-device model (llama.cpp, CPU)` : `${this.model ? `${this.model} · ` : ""}on-device model (WebGPU)`}</span>`
          }
        </header>
        ${
          gpuMissing
            ? gpuNotice(notice, (this.gpu as Extract<WebGPUProbe, { available: false }>).message)
            : onCpu
              ? cpuNotice(notice, this.gpu?.available === true, this.model, this.modelFile)
              : nothing
        }
        ${kind === "llamacpp" ? this.modelFile.render(onCpu) : nothing}
        ${
          this.memoryOnly
            ? html`<p class="note" part="storage-note">This browser does not let the widget store data here, so receipts and confirmations are kept for this page visit only.</p>`
            : nothing
        }
        <div class="log" part="log" role="log" aria-live="polite" aria-label="Conversation" tabindex="0">
          ${this.entries.length === 0 ? html`<p class="empty">Ask a question; answers may use this site's tools.</p>` : nothing}
          ${this.entries.map((e) => this.renderEntry(e))}
        </div>
        ${this.runs.renderProgress()}
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
          ${
            this.runs.busy
              ? html`<button type="button" part="button" class="secondary" @click=${this.stop}>Stop</button>`
              : html`<button type="submit" part="button" ?disabled=${gpuMissing}>Send</button>`
          }
        </form>
        ${this.visitorFiles.render(this.builtins)}
        <div class="sandbox" aria-hidden="true"></div>
      </section>
    `;
  }

  private renderEntry(e: Entry): TemplateResult | typeof nothing {
    if (e.kind === "error") return errorMessage(e.title ?? "Not answered", e.code, e.message);
    if (e.kind === "write") return this.writes.render(e.id);
    return renderTranscriptEntry(e, {
      uid: this.uid,
      card: (id) => this.confirmations.card(id),
      confirm: (id) => void this.confirm(id).catch(() => undefined),
      reject: (id) => void this.reject(id).catch(() => undefined),
    });
  }
}
