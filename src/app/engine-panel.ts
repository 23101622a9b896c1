// The engine panel's controller: "Auto" loads web-llm on a usable GPU, else llama.cpp on the CPU;
// web-llm's list with sizes is loaded lazily; the llama.cpp catalog and GGUF files or URLs are
// llama-panel.ts; the scripted demo is the starting engine until a model is chosen. A load runs with
// the progress bar and Cancel, and switching models frees the previous one first (engine-switch.ts);
// a web-llm model lost after loading (worker crash, GPU reset) is announced with a Reload button.
// The view (the WebGPU status in plain words, the picker, the buttons) is engine-view.ts.
import { errorText, setStatus } from "./dom.ts";
import type { App } from "./app.ts";
import type { PlaygroundScript } from "./scripted.ts";
import { SCRIPTED_LABEL } from "../engines/scripted.ts";
import { isUsableWebGPU, probeWebGPU, type WebGPUProbe } from "../engines/webgpu.ts";
import type { Engine } from "../engines/engine.ts";
import { toErrorJson, type EdgeError } from "../contract/errors.ts";
import { cpuDefaultModel } from "../engines/llamacpp/catalog.ts";
import {
  LLAMA_PREFIX,
  llamaCatalogSource,
  modelStorageHere,
  mountLlamaPanel,
  storageSentence,
  type EngineFactory,
  type LlamaPanel,
} from "./llama-panel.ts";
import { switchEngine } from "./engine-switch.ts";
import {
  AUTO_VALUE,
  explainNoGpu,
  LOAD_LABEL,
  mountEngineView,
  SCRIPTED_VALUE,
  showGpu,
  type EngineView,
} from "./engine-view.ts";
import { isCorsOrNetwork, showLoadError } from "./load-error.ts";
import { aboutSelected, SCRIPTED_ABOUT } from "./model-about.ts";

export interface EnginePanel {
  probe: WebGPUProbe | null;
  /** Resolves once the initial engine (scripted) is set. */
  ready: Promise<void>;
}

export function mountEnginePanel(app: App, script: PlaygroundScript, root: HTMLElement): EnginePanel {
  const view = mountEngineView(root);
  const { select, listBtn, loadBtn, cancelBtn, status, gpuText, gpuExplain } = view;

  const panel: EnginePanel = { probe: null, ready: Promise.resolve() };
  // The explanation ends "until then the playground uses the scripted demo": true only while it does.
  app.on((change) => {
    if (change === "engine" && gpuText.textContent) gpuExplain.hidden = app.engine !== script.engine;
  });
  let loading: AbortController | undefined;
  /** The picker's value of the engine in use: a failed load puts the picker back on it. */
  let inUse = SCRIPTED_VALUE;

  async function useScripted(): Promise<void> {
    await script.engine.load();
    select.value = inUse = SCRIPTED_VALUE;
    showChoice();
    await useEngine(app, script, view, script.engine);
  }

  /** Show the engine in use in the picker: its own option, or one added for a file or URL model. */
  function showInPicker(engine: Engine, value?: string): void {
    inUse = view.pick(engine === script.engine ? SCRIPTED_VALUE : value, engine.info().label);
  }

  /** Load an engine with the progress bar and Cancel; the model in use is freed first (two would
   *  not fit in memory: engine-switch.ts), and a failure leaves the scripted demo in use. `value`
   *  is its picker option. */
  async function loadEngine(label: string, create: EngineFactory, value?: string): Promise<void> {
    loading = new AbortController();
    const signal = loading.signal;
    view.showLoading(label);
    let freed = false;
    try {
      // Made (code imported, nothing loaded) before the model in use is freed.
      const made: Engine = await create((e) => {
        if (app.engine === made) offerReload(view, made, e);
      });
      const engine = await switchEngine({
        previous: app.engine,
        keep: script.engine,
        onFreed: () => {
          freed = true;
          app.setEngine(script.engine);
        },
        create: () => made,
        load: (e) => e.load(view.showProgress, signal),
      });
      await useEngine(app, script, view, engine);
      showInPicker(engine, value);
      showChoice();
    } catch (err) {
      // The previous model is gone: continue on the scripted demo rather than on nothing. Either
      // way the picker shows the engine the chat really uses, never the model that failed.
      if (freed) await useScripted();
      select.value = inUse;
      showChoice();
      const e = toErrorJson(err);
      // One action: a server that will not share the file → the file from disk; else try again.
      const action = isCorsOrNetwork(e)
        ? { label: "Choose a GGUF file…", run: () => llama.pickFile() }
        : { label: "Try again", run: () => void loadEngine(label, create, value) };
      showLoadError(status, label, e, app.engine?.info().label ?? SCRIPTED_LABEL, action);
    } finally {
      view.showLoadEnded();
      loading = undefined;
    }
  }

  const llama = mountLlamaPanel(app, view.llamaRow, view.toolChoiceSlot, loadEngine);
  /** The line under the picker and the load button's words follow the picked option. */
  function showChoice(): void {
    view.about.textContent = aboutSelected(select);
    view.loadBtn.textContent = select.value === SCRIPTED_VALUE ? "Use the demo" : LOAD_LABEL;
  }
  select.addEventListener("change", showChoice);

  async function loadSelected(): Promise<void> {
    const value = select.value;
    if (value === SCRIPTED_VALUE) {
      await useScripted();
      return;
    }
    if (value === AUTO_VALUE && isUsableWebGPU(panel.probe))
      return loadEngine("web-llm's default model for this GPU", webllmEngine(app));
    const llamaValue = value === AUTO_VALUE ? `${LLAMA_PREFIX}${cpuDefaultModel().id}` : value;
    const source = llamaValue.startsWith(LLAMA_PREFIX) ? llamaCatalogSource(llamaValue) : undefined;
    if (source) {
      await loadEngine(llamaValue.slice(LLAMA_PREFIX.length), () => llama.engine(source), llamaValue);
      await llama.refresh();
      return;
    }
    if (!panel.probe?.available) {
      setStatus(
        status,
        `This model needs WebGPU, which is not available here. ${panel.probe && !panel.probe.available ? panel.probe.message : ""}`,
        "error",
      );
      return;
    }
    await loadEngine(value, webllmEngine(app, value), value);
  }

  listBtn.addEventListener("click", () => void listModels(view, panel.probe));
  loadBtn.addEventListener("click", () => void loadSelected());
  cancelBtn.addEventListener("click", () => loading?.abort());

  panel.ready = start(app, script, view, llama, panel).then(showChoice);
  return panel;
}

/** Use a loaded engine: the previous one (not the scripted demo) is unloaded, a new session starts. */
async function useEngine(app: App, script: PlaygroundScript, view: EngineView, engine: Engine): Promise<void> {
  const previous = app.engine;
  app.setEngine(engine);
  if (previous && previous !== engine && previous !== script.engine) await previous.unload().catch(() => undefined);
  try {
    await app.newSession();
    setStatus(view.status, `${engine.info().label} ready; new session started.`, "ok");
  } catch (err) {
    setStatus(view.status, `Engine ready, but the session could not start: ${errorText(toErrorJson(err))}`, "error");
  }
}

/** web-llm's model list (the library is downloaded once), for this GPU's shader-f16. */
async function listModels(view: EngineView, probe: WebGPUProbe | null): Promise<void> {
  view.listBtn.disabled = true;
  setStatus(view.status, "Loading web-llm's model list (this downloads the web-llm library once)…", "busy");
  try {
    const { listModels: list } = await import("../engines/webllm.ts");
    const rows = await list(probe?.available ? { shaderF16: probe.shaderF16 } : {});
    view.showModels(rows);
    const rec = rows.find((r) => r.recommended);
    setStatus(
      view.status,
      `${rows.length} models listed${rec ? `; recommended for this GPU: ${rec.id}` : ""}. Pick one and press “${LOAD_LABEL}” to download it.`,
      "idle",
    );
  } catch (err) {
    setStatus(view.status, `Could not list models: ${errorText(toErrorJson(err))}`, "error");
    view.listBtn.disabled = false;
  }
}

/** The web-llm engine for a model (web-llm's default for this GPU without one), made by the root. */
function webllmEngine(app: App, modelId?: string): EngineFactory {
  return async (onLost) => (await app.edge.engine({ kind: "webllm", ...(modelId ? { modelId } : {}), onLost })).engine;
}

/** The loaded model's worker or GPU was lost: say so, and offer to load it again. */
function offerReload(view: EngineView, engine: Engine, e: EdgeError): void {
  const { status, reloadBtn, progress } = view;
  setStatus(status, `${errorText(e.toJSON())}`, "error");
  reloadBtn.hidden = false;
  reloadBtn.onclick = async () => {
    reloadBtn.hidden = true;
    progress.hidden = false;
    setStatus(status, `Reloading ${engine.info().modelId}…`, "busy");
    try {
      await engine.load(view.showProgress);
      setStatus(status, `${engine.info().label} reloaded; the conversation continues.`, "ok");
    } catch (err) {
      reloadBtn.hidden = false;
      setStatus(status, `Could not reload: ${errorText(toErrorJson(err))}`, "error");
    } finally {
      progress.hidden = true;
    }
  };
}

/** Probe WebGPU and say what it found, offer the llama.cpp models, and start on the scripted demo. */
async function start(
  app: App,
  script: PlaygroundScript,
  view: EngineView,
  llama: LlamaPanel,
  panel: EnginePanel,
): Promise<void> {
  const probe = await probeWebGPU();
  panel.probe = probe;
  if (probe.available) {
    showGpu(view, probe);
  } else {
    setStatus(view.gpuStatus, "WebGPU: not available", "error");
    explainNoGpu(view, probe.message, storageSentence(await modelStorageHere()));
  }
  const models = await llama.options();
  view.select.appendChild(models);
  if (isUsableWebGPU(panel.probe)) {
    view.autoOption.textContent = "Auto: web-llm on this GPU";
    view.autoOption.dataset.about =
      "web-llm's default model for this GPU: a download of about 1–2 GB once, then it works offline; answers stream from the GPU.";
  } else {
    const fallback = cpuDefaultModel();
    view.autoOption.textContent = `Auto: llama.cpp on this CPU — ${fallback.label}`;
    const own = models.querySelector<HTMLOptionElement>(`option[value="${LLAMA_PREFIX}${fallback.id}"]`);
    view.autoOption.dataset.about = own?.dataset.about ?? "";
  }
  view.select.querySelector<HTMLOptionElement>(`option[value="${SCRIPTED_VALUE}"]`)!.dataset.about = SCRIPTED_ABOUT;
  // The scripted demo is the starting engine everywhere: nothing is downloaded without a click.
  // (main.ts starts the first session once the tools are inspected.)
  await script.engine.load();
  view.select.value = SCRIPTED_VALUE;
  app.setEngine(script.engine);
}
