// Header: WebGPU status in plain words, the engine/model picker ("Auto": web-llm on a usable GPU,
// else llama.cpp on the CPU; web-llm's list with sizes, loaded lazily; the llama.cpp catalog and
// GGUF files or URLs, llama-panel.ts), a real progress bar for download and compile, and the
// scripted demo — offered only under its own label, the starting engine until a model is chosen.
// Switching models frees the previous one first (engine-switch.ts); a web-llm model lost after
// loading (worker crash, GPU reset) is announced with a Reload button.
import { errorText, h, replace, setStatus } from "./dom.ts";
import type { App } from "./app.ts";
import type { PlaygroundScript } from "./scripted.ts";
import { SCRIPTED_LABEL } from "../engines/scripted.ts";
import { isUsableWebGPU, probeWebGPU, type WebGPUProbe } from "../engines/webgpu.ts";
import type { ModelOption } from "../engines/models.ts";
import type { Engine } from "../engines/engine.ts";
import { toErrorJson, type EdgeError } from "../contract/errors.ts";
import { LLAMACPP_CATALOG } from "../engines/llamacpp/catalog.ts";
import { catalogLabel, LLAMA_PREFIX, llamaCatalogSource, modelStorageHere, mountLlamaPanel, storageSentence, type EngineFactory } from "./llama-panel.ts";
import { switchEngine } from "./engine-switch.ts";

const SCRIPTED_VALUE = "scripted";
const AUTO_VALUE = "auto";
/** The picker's option for a model loaded from a file or a URL. */
const LOADED_VALUE = "loaded";

export interface EnginePanel {
  probe: WebGPUProbe | null;
  /** Resolves once the initial engine (scripted) is set. */
  ready: Promise<void>;
}

function sizeLabel(m: ModelOption): string {
  const parts: string[] = [];
  if (m.estimatedDownloadMB !== undefined) parts.push(`~${m.estimatedDownloadMB >= 1000 ? `${(m.estimatedDownloadMB / 1000).toFixed(1)} GB` : `${m.estimatedDownloadMB} MB`} download`);
  if (m.vramMB !== undefined) parts.push(`${(m.vramMB / 1000).toFixed(1)} GB GPU memory`);
  parts.push(m.precision);
  if (m.recommended) parts.push("recommended");
  if (m.supported === false) parts.push("needs shader-f16");
  return `${m.id} — ${parts.join(", ")}`;
}

export function mountEnginePanel(app: App, script: PlaygroundScript, root: HTMLElement): EnginePanel {
  const gpuStatus = h("span", { id: "gpu-status", class: "pill", role: "status", "data-state": "busy" }, "WebGPU: checking…");
  // Why no GPU model runs, and what runs instead: one summary line, the full text on a click. On a
  // wide screen it starts open; on a phone it starts closed (fourteen lines above the editor).
  const gpuSummary = h("summary", {});
  const gpuText = h("p", {});
  const gpuExplain = h("details", { id: "gpu-explain", class: "explain", hidden: true }, gpuSummary, gpuText);
  gpuExplain.open = !window.matchMedia("(max-width: 980px)").matches;
  const explain = (summary: string, text: string): void => {
    gpuSummary.textContent = summary;
    gpuText.textContent = text;
    gpuExplain.hidden = false;
  };
  const select = h("select", { id: "engine-select", "aria-describedby": "engine-status" });
  const autoOption = h("option", { value: AUTO_VALUE }, "Auto: the best engine for this device");
  select.append(autoOption, h("option", { value: SCRIPTED_VALUE }, SCRIPTED_LABEL));
  const modelGroup = h("optgroup", { label: "web-llm models (WebGPU)" });
  const listBtn = h("button", { type: "button", id: "list-models", class: "secondary" }, "List web-llm models");
  const loadBtn = h("button", { type: "button", id: "load-engine" }, "Use engine");
  const cancelBtn = h("button", { type: "button", id: "cancel-load", class: "secondary", hidden: true }, "Cancel");
  const reloadBtn = h("button", { type: "button", id: "reload-engine", hidden: true }, "Reload model");
  const progress = h("progress", { id: "load-progress", max: 1, value: 0, hidden: true, "aria-label": "Model download and compile progress" });
  const status = h("span", { id: "engine-status", class: "status", role: "status", "aria-live": "polite" });
  const llamaRow = h("div", { class: "engine-row llama-row", id: "llama-panel" });

  replace(
    root,
    h(
      "div",
      { class: "engine-row" },
      gpuStatus,
      h("label", { for: "engine-select" }, "Engine"),
      select,
      loadBtn,
      listBtn,
      cancelBtn,
      reloadBtn,
      progress,
      status,
    ),
    llamaRow,
    gpuExplain,
  );

  const panel: EnginePanel = { probe: null, ready: Promise.resolve() };
  // The explanation ends "until then the playground uses the scripted demo": true only while it does.
  app.on((change) => {
    if (change === "engine" && gpuText.textContent) gpuExplain.hidden = app.engine !== script.engine;
  });
  let loading: AbortController | undefined;

  async function useEngine(engine: Engine): Promise<void> {
    const previous = app.engine;
    app.engine = engine;
    app.emit("engine");
    if (previous && previous !== engine && previous !== script.engine) await previous.unload().catch(() => undefined);
    try {
      await app.newSession();
      setStatus(status, `${engine.info().label} ready; new session started.`, "ok");
    } catch (err) {
      setStatus(status, `Engine ready, but the session could not start: ${errorText(toErrorJson(err))}`, "error");
    }
  }

  async function useScripted(): Promise<void> {
    await script.engine.load();
    select.value = inUse = SCRIPTED_VALUE;
    await useEngine(script.engine);
  }

  async function listModels(): Promise<void> {
    listBtn.disabled = true;
    setStatus(status, "Loading web-llm's model list (this downloads the web-llm library once)…", "busy");
    try {
      const { listModels: list } = await import("../engines/webllm.ts");
      const probe = panel.probe;
      const rows = await list(probe?.available ? { shaderF16: probe.shaderF16 } : {});
      replace(modelGroup);
      for (const m of rows) {
        const opt = h("option", { value: m.id, disabled: m.supported === false }, sizeLabel(m));
        modelGroup.appendChild(opt);
      }
      if (!modelGroup.parentNode) select.appendChild(modelGroup);
      listBtn.hidden = true;
      const rec = rows.find((r) => r.recommended);
      setStatus(status, `${rows.length} models listed${rec ? `; recommended for this GPU: ${rec.id}` : ""}. Pick one and press “Use engine” to download it.`, "idle");
    } catch (err) {
      setStatus(status, `Could not list models: ${errorText(toErrorJson(err))}`, "error");
      listBtn.disabled = false;
    }
  }

  /** A usable (non-fallback) WebGPU adapter: what "Auto" needs to pick web-llm. */
  const usableGpu = () => isUsableWebGPU(panel.probe);

  /** The picker's value of the engine in use: a failed load puts the picker back on it. */
  let inUse = SCRIPTED_VALUE;

  /** Show the engine in use in the picker: its own option, or one added for a file or URL model. */
  function showInPicker(engine: Engine, value?: string): void {
    if (engine === script.engine) value = SCRIPTED_VALUE;
    if (value && [...select.options].some((o) => o.value === value)) {
      select.value = inUse = value;
      return;
    }
    let own = select.querySelector<HTMLOptionElement>(`option[value="${LOADED_VALUE}"]`);
    if (!own) select.appendChild((own = h("option", { value: LOADED_VALUE })));
    own.textContent = engine.info().label;
    select.value = inUse = LOADED_VALUE;
  }

  /** Load an engine with the progress bar and Cancel; the model in use is freed first (two would
   *  not fit in memory: engine-switch.ts), and a failure leaves the scripted demo in use. `value`
   *  is its picker option. */
  async function loadEngine(label: string, create: EngineFactory, value?: string): Promise<void> {
    loading = new AbortController();
    const signal = loading.signal;
    loadBtn.disabled = true;
    select.disabled = true;
    reloadBtn.hidden = true;
    cancelBtn.hidden = false;
    progress.hidden = false;
    progress.value = 0;
    setStatus(status, `Loading ${label}…`, "busy");
    let freed = false;
    try {
      // Made (code imported, nothing loaded) before the model in use is freed.
      const made: Engine = await create((e) => announceLost(made, e));
      const engine = await switchEngine({
        previous: app.engine,
        keep: script.engine,
        onFreed: () => {
          freed = true;
          app.engine = script.engine;
          app.emit("engine");
        },
        create: () => made,
        load: (e) => e.load(showProgress, signal),
      });
      await useEngine(engine);
      showInPicker(engine, value);
    } catch (err) {
      // The previous model is gone: continue on the scripted demo rather than on nothing. Either
      // way the picker shows the engine the chat really uses, never the model that failed.
      if (freed) await useScripted();
      select.value = inUse;
      setStatus(status, `Could not load ${label}: ${errorText(toErrorJson(err))} The chat uses ${app.engine?.info().label ?? SCRIPTED_LABEL}.`, "error");
    } finally {
      loadBtn.disabled = false;
      select.disabled = false;
      cancelBtn.hidden = true;
      progress.hidden = true;
      loading = undefined;
    }
  }

  function showProgress(p: { progress: number; phase: string; text: string }): void {
    progress.value = p.progress;
    progress.setAttribute("aria-valuetext", `${p.phase} ${Math.round(p.progress * 100)}%`);
    setStatus(status, `${p.phase === "download" ? "Downloading" : p.phase === "compile" ? "Loading" : "Ready"} ${Math.round(p.progress * 100)}% — ${p.text}`, "busy");
  }

  /** The loaded model's worker or GPU was lost: say so, and offer to load it again. */
  function announceLost(engine: Engine, e: EdgeError): void {
    if (app.engine !== engine) return;
    setStatus(status, `${errorText(e.toJSON())}`, "error");
    reloadBtn.hidden = false;
    reloadBtn.onclick = async () => {
      reloadBtn.hidden = true;
      progress.hidden = false;
      setStatus(status, `Reloading ${engine.info().modelId}…`, "busy");
      try {
        await engine.load(showProgress);
        setStatus(status, `${engine.info().label} reloaded; the conversation continues.`, "ok");
      } catch (err) {
        reloadBtn.hidden = false;
        setStatus(status, `Could not reload: ${errorText(toErrorJson(err))}`, "error");
      } finally {
        progress.hidden = true;
      }
    };
  }
  const llama = mountLlamaPanel(app, llamaRow, loadEngine);
  const webllmEngine =
    (modelId?: string): EngineFactory =>
    async (onLost) =>
      new (await import("../engines/webllm.ts")).WebLLMEngine({ ...(modelId ? { modelId } : {}), onLost });

  async function loadSelected(): Promise<void> {
    const value = select.value;
    if (value === SCRIPTED_VALUE) {
      await useScripted();
      return;
    }
    if (value === AUTO_VALUE && usableGpu()) return loadEngine("web-llm's default model for this GPU", webllmEngine());
    const llamaValue = value === AUTO_VALUE ? `${LLAMA_PREFIX}${LLAMACPP_CATALOG[0]!.id}` : value;
    const source = llamaValue.startsWith(LLAMA_PREFIX) ? llamaCatalogSource(llamaValue) : undefined;
    if (source) {
      await loadEngine(llamaValue.slice(LLAMA_PREFIX.length), () => llama.engine(source), llamaValue);
      await llama.refresh();
      return;
    }
    if (!panel.probe?.available) {
      setStatus(status, `This model needs WebGPU, which is not available here. ${panel.probe && !panel.probe.available ? panel.probe.message : ""}`, "error");
      return;
    }
    await loadEngine(value, webllmEngine(value), value);
  }

  listBtn.addEventListener("click", () => void listModels());
  loadBtn.addEventListener("click", () => void loadSelected());
  cancelBtn.addEventListener("click", () => loading?.abort());

  panel.ready = (async () => {
    const probe = await probeWebGPU();
    panel.probe = probe;
    if (probe.available) {
      const a = probe.adapter;
      const name = [a.vendor, a.architecture].filter(Boolean).join(" ") || a.description || "GPU";
      const usable = isUsableWebGPU(probe);
      setStatus(gpuStatus, `WebGPU: ${name}${usable ? "" : " (software)"}`, usable ? "ok" : "warn");
      gpuStatus.title = `shader-f16: ${probe.shaderF16 ? "yes" : "no (f32 models only)"}`;
      if (!usable) {
        explain("Software WebGPU only: models would run very slowly.", "This WebGPU adapter is a software fallback: models will run very slowly. The scripted demo shows the tool loop without a model.");
      }
    } else {
      setStatus(gpuStatus, "WebGPU: not available", "error");
      explain(
        `No usable GPU: until you load a model, the chat uses the “${SCRIPTED_LABEL}” engine.`,
        `${probe.message} Models still run here on the CPU with llama.cpp: pick “Auto” or a llama.cpp model and press “Use engine” (${storageSentence(await modelStorageHere())}). Until then the playground uses the “${SCRIPTED_LABEL}” engine: it replays a script you can edit, so the whole tool loop (checks, sandboxed Python runner, receipts, confirmations) still runs for real.`,
      );
    }
    const first = LLAMACPP_CATALOG[0]!;
    autoOption.textContent = usableGpu() ? "Auto: web-llm on this GPU" : `Auto: llama.cpp on this CPU — ${catalogLabel(first, false).split(" — ")[0]}`;
    select.appendChild(await llama.options());
    // The scripted demo is the starting engine everywhere: nothing is downloaded without a click.
    // (main.ts starts the first session once the tools are inspected.)
    await script.engine.load();
    select.value = SCRIPTED_VALUE;
    app.engine = script.engine;
    app.emit("engine");
  })();
  return panel;
}
