// The <edge-chat> element's model file, a lit reactive controller: a GGUF file the visitor picks
// on this device is used instead of the site's llama.cpp model. It loads at once — checked (GGUF
// header, sha256), never uploaded, never stored — after any run in progress; Stop cancels it, and
// a file that does not load leaves the site's model in place. It also knows where this browser
// keeps a downloaded model, and renders the file input.
import { html, nothing, type ReactiveControllerHost, type TemplateResult } from "lit";
import { catalogModel, cpuDefaultModel } from "../engines/llamacpp/catalog.ts";
import type { ModelStorage } from "../engines/llamacpp/browser/model-store.ts";
import type { WidgetCore } from "./core.ts";
import { warmStatusText } from "../chat/warm-start.ts";
import { ChangeTracker, errorDetail, type WidgetPorts } from "./host.ts";
import type { Runs } from "./runs.ts";

export interface ModelFilePorts extends WidgetPorts {
  /** The site's model: the `model` attribute. */
  model(): string | null;
  /** The element's runs: a load waits for any run in progress, is busy, and Stop cancels it. */
  runs: Runs;
  core(): Promise<WidgetCore>;
}

/** `changed`: the file changed since the element's last update (a new session on the next question). */
export class ModelFile extends ChangeTracker {
  /** The GGUF file the visitor picked (null: the site's model), and its sha256 once loaded. */
  file: File | null = null;
  private sha: string | null = null;
  /** Tells one picked file from the next in the config key (a File has no JSON of its own). */
  serial = 0;
  /** Where a downloaded llama.cpp model is kept here (null until known). */
  storage: ModelStorage | null = null;

  constructor(
    host: ReactiveControllerHost,
    private readonly ports: ModelFilePorts,
  ) {
    super(host);
  }

  /** Asks once where this browser keeps a downloaded model (what the CPU notice promises). */
  probeStorage(): void {
    if (this.storage !== null) return;
    void import("../engines/llamacpp/browser/model-store.ts")
      .then((m) => m.modelStorage())
      .then(
        (kind) => {
          this.storage = kind;
          this.host.requestUpdate();
        },
        () => undefined,
      );
  }

  /** The llama.cpp model's name: the visitor's file, the catalog label, or the GGUF URL's file name. */
  name(): string {
    if (this.file) return this.file.name;
    const model = this.ports.model();
    const entry = catalogModel(model ?? cpuDefaultModel().id);
    return entry?.label ?? (model ?? "").split(/[?#]/)[0]!.split("/").pop() ?? "";
  }

  /** Use a GGUF file the visitor picked instead of the site's model (null: the site's again). */
  use(file: File | null): Promise<void> {
    return this.ports.runs.enqueue(() => (file ? this.load(file) : this.useSiteModel()));
  }

  private set(file: File | null): void {
    this.serial += 1;
    this.file = file;
    this.touch();
  }

  private useSiteModel(): void {
    this.set(null);
    this.sha = null;
    this.ports.status(`Back to ${this.name()}: the next question loads it.`);
  }

  private load(file: File): Promise<void> {
    this.set(file);
    this.sha = null;
    this.ports.status(`Loading ${file.name} from this device…`);
    return this.ports.runs.work(async (signal) => {
      try {
        const core = await this.ports.core();
        const info = await core.loadModel({ signal, onProgress: this.ports.runs.onProgress });
        this.sha = info.fingerprint?.sha256 ?? null;
        this.host.requestUpdate();
        this.ports.status(`${info.label} is ready; ask a question.`);
        // Read the tools into the model while the visitor types; a question takes the status line.
        void core
          .warmAhead(
            (s, tools) => s.state !== "idle" && !this.ports.runs.busy && this.ports.status(warmStatusText(s, tools)),
          )
          .catch(() => undefined);
      } catch (err) {
        const detail = errorDetail(err);
        this.set(null);
        this.ports.fail(
          {
            kind: "error",
            code: detail.code,
            message: `${file.name}: ${detail.message}`,
            title: "Model file not loaded",
          },
          `${file.name} was not loaded (${detail.code}); the site's model stays in use.`,
          detail,
        );
      }
    });
  }

  private readonly onInput = (event: Event): void => {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = "";
    if (file) void this.use(file);
  };

  /** llama.cpp only: a labelled file input (keyboard: Tab, then Enter or Space opens the chooser). */
  render(noticeShown: boolean): TemplateResult {
    const id = `${this.ports.uid}-model-file`;
    const file = this.file;
    const hint = file
      ? html`Using <code>${file.name}</code> (${(file.size / 1e6).toFixed(1)} MB) from this device${this.sha ? html`, <code>${this.sha}</code>` : nothing}: read here, never uploaded, never stored.`
      : this.storage === "none" && !noticeShown
        ? "This browser cannot store a downloaded model here, so every visit downloads it again; a model file from this device needs no storage and is never uploaded."
        : "Read on this device: never uploaded, never stored.";
    return html`<div class="model-file" part="model-file">
      <label for=${id}>Use a GGUF model file from this device</label>
      <input id=${id} part="model-file-input" type="file" accept=".gguf" aria-describedby="${id}-hint" @change=${this.onInput} />
      ${file ? html`<button type="button" class="secondary" ?disabled=${this.ports.runs.busy} @click=${() => void this.use(null)}>Use the site's model</button>` : nothing}
      <p class="muted" id="${id}-hint">${hint}</p>
    </div>`;
  }
}
