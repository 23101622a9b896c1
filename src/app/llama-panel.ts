// The llama.cpp part of the engine panel: GGUF models in any browser (llama.cpp in WebAssembly, on
// the CPU; WebGPU where usable). The catalog's models (with download sizes and what to expect) are
// options of the engine picker; this row adds a GGUF file from disk or a URL the person types and
// the models stored on this device with their sizes and a Delete button; the tool choice sits in
// the picker's row. Loading goes through the engine panel's progress bar (EngineLoader). The engine
// code and the store are imported when first needed; wllama itself only ever loads in its worker.
import { errorText, h, replace, setStatus } from "./dom.ts";
import type { App } from "./app.ts";
import type { Engine } from "../engines/engine.ts";
import type { ModelSource } from "../engines/llamacpp/backend.ts";
import { catalogModel, catalogSource, LLAMACPP_CATALOG } from "../engines/llamacpp/catalog.ts";
import { catalogAbout, catalogOptionLabel, sizeText } from "./model-about.ts";
import { isToolChoice, TOOL_CHOICES } from "../engines/tool-turn.ts";
import { toErrorJson, type EdgeError } from "../contract/errors.ts";
import type { ModelStorage } from "../engines/llamacpp/browser/model-store.ts";
import { askPersistence, persistenceText } from "../engines/llamacpp/browser/persistence.ts";

export const LLAMA_PREFIX = "llamacpp:";

/** Makes an engine (imports its code; loads nothing). `onLost` is for engines that report a lost
 *  worker or GPU after loading (web-llm); the engine panel offers a Reload then. */
export type EngineFactory = (onLost: (e: EdgeError) => void) => Promise<Engine>;
/** How the engine panel loads an engine: progress bar, Cancel, freeing the previous model. */
export type EngineLoader = (label: string, create: EngineFactory) => Promise<void>;

/** What the file button's row says about a GGUF from disk: it is read where it is, never copied. */
const FILE_NOT_STORED =
  "A GGUF file from disk is read where it is, not copied into this browser: after a reload, choose it again.";

/** Where downloaded models are kept in this browser (opfs, idb, or none), for what the panel says. */
export async function modelStorageHere(): Promise<ModelStorage> {
  const { modelStorage } = await import("../engines/llamacpp/browser/model-store.ts");
  return modelStorage().catch(() => "none" as const);
}

/** What happens to a model from a URL here, in words (before anything is downloaded). */
export function storageSentence(storage: ModelStorage): string {
  return storage === "none"
    ? "this browser cannot store it here, so it is downloaded again for every load and needs the network; a GGUF file from disk needs no storage"
    : "it downloads once and then works offline";
}

export function llamaCatalogSource(value: string): ModelSource | undefined {
  const entry = catalogModel(value.slice(LLAMA_PREFIX.length));
  return entry ? catalogSource(entry) : undefined;
}

export interface LlamaPanel {
  /** The engine picker's llama.cpp options (catalog models, marked when stored). */
  options(): Promise<HTMLOptGroupElement>;
  /** Re-read the stored models (after a load or a delete). */
  refresh(): Promise<void>;
  /** The engine for a source; a download also asks the browser, without waiting, to keep it. */
  engine(source: ModelSource): Promise<Engine>;
  /** Open the file chooser for a GGUF from disk (a failed download's one action). */
  pickFile(): void;
}

export function mountLlamaPanel(app: App, root: HTMLElement, toolSlot: HTMLElement, load: EngineLoader): LlamaPanel {
  const fileBtn = h(
    "button",
    { type: "button", id: "llama-file", class: "secondary", title: FILE_NOT_STORED },
    "GGUF from file…",
  );
  const fileInput = h("input", {
    type: "file",
    id: "llama-file-input",
    accept: ".gguf",
    hidden: true,
    "aria-label": "GGUF model file",
  });
  const urlInput = h("input", {
    type: "url",
    id: "llama-url",
    placeholder: "https://…/model.gguf",
    "aria-label": "GGUF model URL",
    size: 28,
  });
  const urlBtn = h("button", { type: "button", id: "llama-url-load", class: "secondary" }, "Load URL");
  const choice = toolChoiceSelect(app);
  const stored = h("details", { id: "stored-models", class: "stored-models" });
  const note = h("span", { id: "llama-status", class: "status", role: "status", "aria-live": "polite" });

  replace(
    root,
    h("span", { class: "muted small" }, "GGUF (llama.cpp):"),
    fileBtn,
    fileInput,
    urlInput,
    urlBtn,
    stored,
    note,
  );
  // The label right before its control (it used to sit a row away from it).
  replace(toolSlot, h("label", { for: "tool-choice" }, "Tool choice"), choice);

  const storage = modelStorageHere();
  /** Persistent storage, asked for when a download may start; the answer is shown when it comes. */
  async function askToKeep(): Promise<void> {
    if ((await storage) === "none") return;
    setStatus(note, persistenceText("asking"), "idle");
    const answer = await askPersistence();
    setStatus(note, persistenceText(answer), answer === "persisted" ? "ok" : "idle");
  }
  const loadSource = (label: string, source: ModelSource) =>
    load(label, () => panel.engine(source)).finally(() => void panel.refresh());

  wireSourceInputs({ fileBtn, fileInput, urlInput, urlBtn, note }, loadSource);

  const panel: LlamaPanel = {
    pickFile: () => fileInput.click(),
    async options() {
      return catalogGroup(new Set((await storedRows()).map((r) => r.url)), await storage);
    },
    engine(source) {
      if (source.kind === "url") void askToKeep();
      // The root imports the engine and the browser backend on first use.
      return app.edge.engine({ kind: "llamacpp", model: source }).then((made) => made.engine);
    },
    async refresh() {
      const rows = await storedRows();
      const total = rows.reduce((n, r) => n + r.size, 0);
      replace(
        stored,
        h("summary", {}, `Stored models: ${rows.length}${rows.length ? ` (${sizeText(total)})` : ""}`),
        rows.length ? storedList(rows, remove) : h("p", { class: "muted small" }, noStoredModelsText(await storage)),
      );
    },
  };

  async function remove(key: string, name: string): Promise<void> {
    try {
      const { deleteStoredModel } = await import("../engines/llamacpp/browser/model-store.ts");
      await deleteStoredModel(key);
      setStatus(note, `Deleted ${name} from this device.`, "ok");
    } catch (err) {
      setStatus(note, `Could not delete ${name}: ${errorText(toErrorJson(err))}`, "error");
    }
    await panel.refresh();
  }

  void panel.refresh();
  return panel;
}

/** The tool choice the chat sends with every turn (auto, required, none), in words; a change starts
 *  a new session with it. */
function toolChoiceSelect(app: App): HTMLSelectElement {
  const choice = h("select", { id: "tool-choice", "aria-label": "Tool choice" });
  for (const c of TOOL_CHOICES)
    choice.appendChild(
      h(
        "option",
        { value: c },
        c === "auto"
          ? "auto: a call or an answer"
          : c === "required"
            ? "required: call a tool first"
            : "none: free text",
      ),
    );
  choice.addEventListener("change", () => {
    if (isToolChoice(choice.value)) app.setToolChoice(choice.value);
    void app.newSession().catch(() => undefined);
  });
  return choice;
}

interface SourceInputs {
  fileBtn: HTMLButtonElement;
  fileInput: HTMLInputElement;
  urlInput: HTMLInputElement;
  urlBtn: HTMLButtonElement;
  /** The row's status line. */
  note: HTMLElement;
}

/** A GGUF file from disk (read where it is, never copied) or the URL the person typed, each loaded
 *  with `loadSource`; a URL that is not http(s) is refused before anything loads. */
function wireSourceInputs(
  { fileBtn, fileInput, urlInput, urlBtn, note }: SourceInputs,
  loadSource: (label: string, source: ModelSource) => Promise<void>,
): void {
  fileBtn.addEventListener("click", () => fileInput.click());
  fileInput.addEventListener("change", () => {
    const file = fileInput.files?.[0];
    fileInput.value = "";
    if (!file) return;
    setStatus(note, FILE_NOT_STORED, "idle");
    void loadSource(file.name, { kind: "blob", blob: file, name: file.name });
  });
  urlBtn.addEventListener("click", () => {
    const url = urlInput.value.trim();
    if (!/^https?:\/\//i.test(url)) {
      setStatus(note, "Type the http(s) URL of a .gguf file.", "error");
      return;
    }
    void loadSource(url, { kind: "url", url });
  });
}

interface StoredRow {
  key: string;
  name: string;
  size: number;
  url: string;
}

async function storedRows(): Promise<StoredRow[]> {
  const { listStoredModels } = await import("../engines/llamacpp/browser/model-store.ts");
  return listStoredModels().catch(() => []);
}

/** The picker's group of catalog models, each saying whether it is stored (`have` holds the stored
 *  models' URLs) and what a download does in this browser. */
function catalogGroup(have: ReadonlySet<string>, here: ModelStorage): HTMLOptGroupElement {
  const group = h("optgroup", { label: "llama.cpp models (CPU, any browser)" });
  for (const m of LLAMACPP_CATALOG) {
    const isStored = have.has(m.url);
    group.appendChild(
      h(
        "option",
        { value: `${LLAMA_PREFIX}${m.id}`, "data-about": catalogAbout(m, isStored, here), title: m.measured ?? "" },
        catalogOptionLabel(m, isStored),
      ),
    );
  }
  return group;
}

/** The models stored on this device, each with its size and a Delete button. */
function storedList(
  rows: readonly StoredRow[],
  remove: (key: string, name: string) => Promise<void>,
): HTMLUListElement {
  return h(
    "ul",
    {},
    ...rows.map((r) =>
      h(
        "li",
        { "data-key": r.key },
        `${r.name} — ${sizeText(r.size)} `,
        h(
          "button",
          {
            type: "button",
            class: "link",
            "aria-label": `Delete ${r.name}`,
            onclick: () => void remove(r.key, r.name),
          },
          "Delete",
        ),
      ),
    ),
  );
}

/** What an empty list of stored models says: where a download goes, or that it cannot stay here. */
function noStoredModelsText(storage: ModelStorage): string {
  return storage === "none"
    ? "This browser cannot store models here: a model from a URL is downloaded again for every load. A GGUF file from disk needs no storage."
    : "Models you download are kept here for offline use (a GGUF file from disk is not copied).";
}
