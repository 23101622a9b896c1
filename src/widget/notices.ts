// The <edge-chat> element's notices under its header: WebGPU is missing (the on-device model
// cannot run), or "auto" fell back to the CPU (llama.cpp: what the first question downloads, and
// whether this browser can keep it). Either offers the labelled scripted demo when the page has a
// script. Lit text bindings only.
import { html, nothing, type TemplateResult } from "lit";
import { catalogModel, cpuDefaultModel } from "../engines/llamacpp/catalog.ts";
import { SCRIPTED_LABEL } from "../engines/scripted.ts";
import type { ModelFile } from "./model-file.ts";

export interface NoticeContext {
  /** The notice's id (the question field is described by it). */
  id: string;
  /** The page gave a script: offer the scripted demo. */
  script: boolean;
  useDemo(): void;
}

function demoButton(ctx: NoticeContext): TemplateResult | typeof nothing {
  return ctx.script
    ? html`<button type="button" class="secondary" @click=${() => ctx.useDemo()}>Use the ${SCRIPTED_LABEL}</button>`
    : nothing;
}

export function gpuNotice(ctx: NoticeContext, message: string): TemplateResult {
  return html`<div class="notice" part="notice" id=${ctx.id}>
      <p><strong>The on-device model cannot run here: WebGPU is not available.</strong> ${message}</p>
      ${demoButton(ctx)}
    </div>`;
}

/** "auto" without a usable GPU: the model runs on the CPU, and its first use downloads it. */
export function cpuNotice(
  ctx: NoticeContext,
  fallbackAdapter: boolean,
  model: string | null,
  file: ModelFile,
): TemplateResult {
  const entry = catalogModel(model ?? cpuDefaultModel().id);
  const why = fallbackAdapter ? "This device's WebGPU adapter is a software fallback" : "WebGPU is not available here";
  // No offline promise: the model may be stored, but the page and its tools file come from the site.
  return html`<div class="notice" part="notice" id=${ctx.id}>
      <p>
        ${why}, so the model runs on this device's CPU (llama.cpp). ${
          file.file
            ? html`It runs the model file you picked; nothing is downloaded.`
            : html`The first question downloads ${file.name()} (${entry ? `${entry.sizeMB} MB` : "the model file"})${
                file.storage === "none"
                  ? "; this browser cannot store it here, so every visit downloads it again. A model file from this device (below) needs no storage"
                  : file.storage
                    ? " once; later visits use the stored copy"
                    : ""
              }.`
        }
      </p>
      ${demoButton(ctx)}
    </div>`;
}
