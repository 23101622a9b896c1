// Model choice over web-llm's model list. Pure functions over `ModelRecord`s (type-only import:
// nothing from web-llm is loaded by this file), so the picker logic is unit-tested in Node with
// the real prebuilt list, and the page loads the list lazily.
import type { ModelRecord } from "@mlc-ai/web-llm";
import { EdgeError } from "../contract/errors.ts";
import type { ModelFingerprint } from "./engine.ts";

/** Small instruct models that follow a JSON call format well, best first. Each is tried as its
 *  f16 variant when the adapter has `shader-f16`, else as its f32 variant. */
const DEFAULT_MODEL_PREFERENCE: readonly string[] = [
  "Qwen2.5-1.5B-Instruct",
  "Qwen3-1.7B",
  "Llama-3.2-1B-Instruct",
  "Qwen2.5-0.5B-Instruct",
];

export interface AdapterFeatures {
  /** Whether the WebGPU adapter offers `shader-f16`. */
  shaderF16: boolean;
}

export interface ModelOption {
  id: string;
  /** web-llm's declared GPU memory need, when the record has one. */
  vramMB?: number;
  /** Download size estimated from the id (parameters × quantization bits), when parseable. */
  estimatedDownloadMB?: number;
  precision: "f16" | "f32";
  needsShaderF16: boolean;
  lowResource: boolean;
  /** Whether this adapter can run it (undefined when no adapter was probed). */
  supported?: boolean;
  /** The model the default choice would pick on this adapter. */
  recommended: boolean;
}

const QUANT = /-q(\d)f(16|32)(?:_\d)?(?:-|$)/;

/** Chat models only: web-llm's model_type is absent or 0 (LLM); embeddings (1) and VLMs (2) are not. */
function isChatModel(record: ModelRecord): boolean {
  return record.model_type === undefined || record.model_type === null || Number(record.model_type) === 0;
}

export function needsShaderF16(record: ModelRecord): boolean {
  if (record.required_features?.includes("shader-f16")) return true;
  const m = QUANT.exec(record.model_id);
  return m?.[2] === "16";
}

/** The f32 sibling id of an f16 variant (q4f16_1 → q4f32_1), or undefined. */
export function f32VariantId(modelId: string): string | undefined {
  const swapped = modelId.replace(/-q(\d)f16(_\d)?(?=-|$)/, "-q$1f32$2");
  return swapped === modelId ? undefined : swapped;
}

export function estimateDownloadMB(modelId: string): number | undefined {
  const params = /-(\d+(?:\.\d+)?)([BM])-/i.exec(`-${modelId}-`);
  const quant = QUANT.exec(modelId);
  if (!params || !quant) return undefined;
  const count = Number(params[1]) * (params[2]!.toUpperCase() === "B" ? 1e9 : 1e6);
  // q0 means unquantized: 16 or 32 bits per weight.
  const bits = quant[1] === "0" ? Number(quant[2]) : Number(quant[1]);
  return Math.round((count * bits) / 8 / 1e6);
}

/** Pick the default model for an adapter: the first preferred family present in the list, in the
 *  precision the adapter supports (q4f16_1 with shader-f16, else q4f32_1). */
export function chooseDefaultModel(modelList: readonly ModelRecord[], adapter: AdapterFeatures): ModelRecord {
  const byId = new Map(modelList.filter(isChatModel).map((r) => [r.model_id, r] as const));
  for (const family of DEFAULT_MODEL_PREFERENCE) {
    const order = adapter.shaderF16 ? ["q4f16_1", "q4f32_1"] : ["q4f32_1"];
    for (const quant of order) {
      const hit = byId.get(`${family}-${quant}-MLC`);
      if (hit) return hit;
    }
  }
  // A custom list without any preferred family: its first chat model the adapter can run.
  const fallback = [...byId.values()].find((r) => adapter.shaderF16 || !needsShaderF16(r));
  if (fallback) return fallback;
  throw new EdgeError(
    "model_load_failed",
    { reason: "no_runnable_model", shaderF16: adapter.shaderF16 },
    adapter.shaderF16
      ? "The model list has no chat model; add one to the appConfig."
      : "This GPU has no shader-f16 support and the model list has no f32 chat model; add a q4f32 variant to the appConfig.",
  );
}

/** Resolve an explicitly requested model id, refusing variants this adapter cannot run (before
 *  any download) and naming the f32 sibling when there is one. */
export function resolveModel(
  modelList: readonly ModelRecord[],
  modelId: string | undefined,
  adapter: AdapterFeatures,
): ModelRecord {
  if (modelId === undefined) return chooseDefaultModel(modelList, adapter);
  const record = modelList.find((r) => r.model_id === modelId);
  if (!record) {
    throw new EdgeError(
      "unknown_model",
      { modelId },
      `No model "${modelId}" in the model list (appConfig.model_list).`,
    );
  }
  if (!isChatModel(record)) {
    throw new EdgeError(
      "unknown_model",
      { modelId },
      `"${modelId}" is not a chat model (embedding or vision model). Pick a chat model.`,
    );
  }
  if (needsShaderF16(record) && !adapter.shaderF16) {
    const sibling = f32VariantId(modelId);
    const hasSibling = sibling !== undefined && modelList.some((r) => r.model_id === sibling);
    throw new EdgeError(
      "model_load_failed",
      { modelId, reason: "shader_f16_missing", f32Variant: hasSibling ? sibling : undefined },
      `"${modelId}" needs the WebGPU feature shader-f16, which this GPU lacks.` +
        (hasSibling ? ` Pick its f32 variant "${sibling}" instead.` : " Pick an f32 (q4f32) model instead."),
    );
  }
  return record;
}

/** The picker's rows: every chat model with size, precision and (given an adapter) whether it runs. */
export function listModelOptions(modelList: readonly ModelRecord[], adapter?: AdapterFeatures): ModelOption[] {
  let recommendedId: string | undefined;
  if (adapter) {
    try {
      recommendedId = chooseDefaultModel(modelList, adapter).model_id;
    } catch {
      recommendedId = undefined;
    }
  }
  return modelList.filter(isChatModel).map((r) => {
    const f16 = needsShaderF16(r);
    const option: ModelOption = {
      id: r.model_id,
      precision: f16 ? "f16" : "f32",
      needsShaderF16: f16,
      lowResource: r.low_resource_required === true,
      recommended: r.model_id === recommendedId,
    };
    if (typeof r.vram_required_MB === "number") option.vramMB = r.vram_required_MB;
    const estimate = estimateDownloadMB(r.model_id);
    if (estimate !== undefined) option.estimatedDownloadMB = estimate;
    if (adapter) option.supported = adapter.shaderF16 || !f16;
    return option;
  });
}

/** What identifies the model for receipts and imprints: id, library and weight URLs, SRI pins. */
export function fingerprintOf(record: ModelRecord, runtimeVersion?: string): ModelFingerprint {
  const fp: ModelFingerprint = {
    modelId: record.model_id,
    modelLib: record.model_lib,
    modelUrl: record.model,
    shaderF16: needsShaderF16(record),
  };
  if (runtimeVersion) fp.runtimeVersion = runtimeVersion;
  const integrity = record.integrity;
  if (integrity && (integrity.config || integrity.model_lib || integrity.tokenizer)) {
    fp.integrity = {};
    if (integrity.config) fp.integrity.config = integrity.config;
    if (integrity.model_lib) fp.integrity.model_lib = integrity.model_lib;
    if (integrity.tokenizer) fp.integrity.tokenizer = { ...integrity.tokenizer };
  }
  return fp;
}
