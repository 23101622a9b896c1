// The engine panel's view, the one place to choose and load a model: the picker (Auto, the scripted
// demo, the llama.cpp catalog, web-llm's list) with Load, Cancel and Reload, the progress bar, the
// tool choice and the WebGPU pill on one row; under it what the picked model is (size, what to
// expect), the status line (a failed load is one short line with one action: load-error.ts), the
// other model sources (llama-panel.ts) and, when no GPU model runs, why (one line, the rest on a
// click). What they do is the panel's controller (engine-panel.ts).
import { SCRIPTED_LABEL } from "../engines/scripted.ts";
import type { ModelOption } from "../engines/models.ts";
import { isUsableWebGPU, type WebGPUProbe } from "../engines/webgpu.ts";
import { h, replace, setStatus } from "./dom.ts";

export const SCRIPTED_VALUE = "scripted";
export const AUTO_VALUE = "auto";
/** The picker's option for a model loaded from a file or a URL. */
const LOADED_VALUE = "loaded";
/** The load button's words (its accessible name, which the browser tests press). */
export const LOAD_LABEL = "Load model";

export type EngineView = ReturnType<typeof mountEngineView>;

function sizeLabel(m: ModelOption): string {
  const parts: string[] = [];
  if (m.estimatedDownloadMB !== undefined)
    parts.push(
      `~${m.estimatedDownloadMB >= 1000 ? `${(m.estimatedDownloadMB / 1000).toFixed(1)} GB` : `${m.estimatedDownloadMB} MB`} download`,
    );
  if (m.vramMB !== undefined) parts.push(`${(m.vramMB / 1000).toFixed(1)} GB GPU memory`);
  parts.push(m.precision);
  if (m.recommended) parts.push("recommended");
  if (m.supported === false) parts.push("needs shader-f16");
  return `${m.id} — ${parts.join(", ")}`;
}

export function mountEngineView(root: HTMLElement) {
  const gpuStatus = h(
    "span",
    { id: "gpu-status", class: "pill", role: "status", "data-state": "busy" },
    "WebGPU: checking…",
  );
  const { gpuText, gpuExplain, explain } = gpuExplainer();
  const select = h("select", { id: "engine-select", "aria-describedby": "model-about engine-status" });
  const autoOption = h("option", { value: AUTO_VALUE }, "Auto: the best engine for this device");
  select.append(autoOption, h("option", { value: SCRIPTED_VALUE }, SCRIPTED_LABEL));
  const listBtn = h("button", { type: "button", id: "list-models", class: "secondary" }, "List web-llm models");
  const loadBtn = h("button", { type: "button", id: "load-engine", class: "primary" }, LOAD_LABEL);
  const cancelBtn = h("button", { type: "button", id: "cancel-load", class: "secondary", hidden: true }, "Cancel");
  const reloadBtn = h("button", { type: "button", id: "reload-engine", hidden: true }, "Reload model");
  const progress = h("progress", {
    id: "load-progress",
    max: 1,
    value: 0,
    hidden: true,
    "aria-label": "Model download and compile progress",
  });
  // What the picked option is: its download size and what to expect (model-about.ts).
  const about = h("p", { id: "model-about", class: "model-about" });
  const status = h("div", { id: "engine-status", class: "status model-status", role: "status", "aria-live": "polite" });
  const toolChoiceSlot = h("span", { class: "model-field" });
  const llamaRow = h("div", { class: "model-sources", id: "llama-panel" });
  const more = moreSources(llamaRow, listBtn);
  const { showModels, pick } = pickerOptions(select, listBtn);
  const { showLoading, showLoadEnded, showProgress } = loadDisplay({
    select,
    loadBtn,
    cancelBtn,
    reloadBtn,
    progress,
    status,
  });

  // The WebGPU pill sits in the page's header where it has a place for it (index.html).
  const pillSlot = document.getElementById("gpu-slot");
  if (pillSlot) replace(pillSlot, gpuStatus);
  replace(
    root,
    h("h2", { id: "model-h", class: "visually-hidden" }, "Model"),
    pillSlot ? null : gpuStatus,
    h(
      "div",
      { class: "model-row" },
      h("label", { for: "engine-select", class: "model-label" }, "Model"),
      select,
      loadBtn,
      cancelBtn,
      reloadBtn,
      progress,
      toolChoiceSlot,
    ),
    about,
    status,
    more,
    gpuExplain,
  );

  return {
    gpuStatus,
    gpuText,
    gpuExplain,
    explain,
    select,
    autoOption,
    listBtn,
    loadBtn,
    cancelBtn,
    reloadBtn,
    progress,
    about,
    status,
    toolChoiceSlot,
    llamaRow,
    more,
    showModels,
    showLoading,
    showLoadEnded,
    showProgress,
    pick,
  };
}

/** Why no GPU model runs, and what runs instead: one line, the full text on a click (it used to be
 *  a paragraph beside the picker, repeating what a failed load's message says). */
function gpuExplainer() {
  const gpuSummary = h("summary", {});
  const gpuText = h("p", {});
  const gpuExplain = h("details", { id: "gpu-explain", class: "explain", hidden: true }, gpuSummary, gpuText);
  const explain = (summary: string, text: string): void => {
    gpuSummary.textContent = summary;
    gpuText.textContent = text;
    gpuExplain.hidden = false;
  };
  return { gpuText, gpuExplain, explain };
}

/** More ways to get a model (a GGUF file or URL, web-llm's list, the stored models): one line on a
 *  wide screen; behind "More model sources" on a phone, where the question box comes first. */
function moreSources(llamaRow: HTMLElement, listBtn: HTMLButtonElement): HTMLDetailsElement {
  const more = h(
    "details",
    { id: "model-more", class: "model-more" },
    h("summary", {}, "More model sources: a GGUF file or URL, web-llm, stored models"),
    h("div", { class: "model-more-body" }, llamaRow, listBtn),
  );
  const wide = window.matchMedia("(min-width: 601px)");
  const followWidth = (): void => void (more.open = wide.matches || more.open);
  followWidth();
  wide.addEventListener("change", followWidth);
  return more;
}

/** The options the picker gains after it is built: web-llm's list, and the model in use when it came
 *  from a file or a URL. */
function pickerOptions(select: HTMLSelectElement, listBtn: HTMLButtonElement) {
  const modelGroup = h("optgroup", { label: "web-llm models (WebGPU)" });

  /** web-llm's models as options of their own group in the picker; the List button goes. */
  function showModels(rows: readonly ModelOption[]): void {
    replace(modelGroup);
    for (const m of rows) {
      const opt = h("option", { value: m.id, disabled: m.supported === false }, sizeLabel(m));
      modelGroup.appendChild(opt);
    }
    if (!modelGroup.parentNode) select.appendChild(modelGroup);
    listBtn.hidden = true;
  }

  /** Show an engine in the picker: its own option `value`, else one added for a file or URL model
   *  (named `label`). Returns the picker's value now. */
  function pick(value: string | undefined, label: string): string {
    if (value && [...select.options].some((o) => o.value === value)) {
      select.value = value;
      return value;
    }
    let own = select.querySelector<HTMLOptionElement>(`option[value="${LOADED_VALUE}"]`);
    if (!own) select.appendChild((own = h("option", { value: LOADED_VALUE })));
    own.textContent = label;
    own.dataset.about = `The model in use: ${label}, from a GGUF file or a URL.`;
    select.value = LOADED_VALUE;
    return LOADED_VALUE;
  }

  return { showModels, pick };
}

interface LoadControls {
  select: HTMLSelectElement;
  loadBtn: HTMLButtonElement;
  cancelBtn: HTMLButtonElement;
  reloadBtn: HTMLButtonElement;
  progress: HTMLProgressElement;
  status: HTMLElement;
}

/** How the picker's row and the status line follow a load: under way, its progress, ended. */
function loadDisplay({ select, loadBtn, cancelBtn, reloadBtn, progress, status }: LoadControls) {
  /** A load under way: the picker and the load button wait, the progress bar and Cancel show. */
  function showLoading(label: string): void {
    status.classList.remove("failed");
    loadBtn.disabled = true;
    select.disabled = true;
    reloadBtn.hidden = true;
    cancelBtn.hidden = false;
    progress.hidden = false;
    progress.value = 0;
    setStatus(status, `Loading ${label}…`, "busy");
  }

  function showLoadEnded(): void {
    loadBtn.disabled = false;
    select.disabled = false;
    cancelBtn.hidden = true;
    progress.hidden = true;
  }

  function showProgress(p: { progress: number; phase: string; text: string }): void {
    progress.value = p.progress;
    progress.setAttribute("aria-valuetext", `${p.phase} ${Math.round(p.progress * 100)}%`);
    setStatus(
      status,
      `${p.phase === "download" ? "Downloading" : p.phase === "compile" ? "Loading" : "Ready"} ${Math.round(p.progress * 100)}% — ${p.text}`,
      "busy",
    );
  }

  return { showLoading, showLoadEnded, showProgress };
}

/** The WebGPU pill for an adapter that is there: its name, shader-f16, and a software one explained. */
export function showGpu(view: EngineView, probe: Extract<WebGPUProbe, { available: true }>): void {
  const a = probe.adapter;
  const name = [a.vendor, a.architecture].filter(Boolean).join(" ") || a.description || "GPU";
  const usable = isUsableWebGPU(probe);
  setStatus(view.gpuStatus, `WebGPU: ${name}${usable ? "" : " (software)"}`, usable ? "ok" : "warn");
  view.gpuStatus.title = `shader-f16: ${probe.shaderF16 ? "yes" : "no (f32 models only)"}`;
  if (!usable) {
    view.explain(
      "Software WebGPU only: models would run very slowly.",
      "This WebGPU adapter is a software fallback: models will run very slowly. The scripted demo shows the tool loop without a model.",
    );
  }
}

/** Why no GPU model runs here (the probe's `message`), and that llama.cpp on the CPU still does;
 *  `storage` says what happens to a downloaded model in this browser. */
export function explainNoGpu(view: EngineView, message: string, storage: string): void {
  view.explain(
    `No usable GPU: until you load a model, the chat uses the “${SCRIPTED_LABEL}” engine.`,
    `${message} Models still run here on the CPU with llama.cpp: pick “Auto” or a llama.cpp model and press “${LOAD_LABEL}” (${storage}). Until then the playground uses the “${SCRIPTED_LABEL}” engine: it replays a script you can edit, so the whole tool loop (checks, sandboxed Python runner, receipts, confirmations) still runs for real.`,
  );
}
