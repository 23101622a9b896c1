// Model choice against web-llm's real prebuilt model list. The only stand-in is the adapter
// descriptor ({shaderF16}), the input of these pure functions.
import { prebuiltAppConfig, type ModelRecord } from "@mlc-ai/web-llm";
import { describe, expect, it } from "vitest";
import type { EdgeError } from "../contract/errors.ts";
import {
  chooseDefaultModel,
  estimateDownloadMB,
  f32VariantId,
  fingerprintOf,
  listModelOptions,
  needsShaderF16,
  resolveModel,
} from "./models.ts";

const list = prebuiltAppConfig.model_list;

describe("default model choice", () => {
  it("picks Qwen2.5-1.5B-Instruct in f16 when the adapter has shader-f16", () => {
    expect(chooseDefaultModel(list, { shaderF16: true }).model_id).toBe("Qwen2.5-1.5B-Instruct-q4f16_1-MLC");
  });

  it("picks the q4f32 variant when the adapter lacks shader-f16 (e.g. SwiftShader)", () => {
    const r = chooseDefaultModel(list, { shaderF16: false });
    expect(r.model_id).toBe("Qwen2.5-1.5B-Instruct-q4f32_1-MLC");
    expect(needsShaderF16(r)).toBe(false);
  });

  it("falls through the preference list when a family is missing from a custom list", () => {
    const custom = list.filter((r) => !r.model_id.startsWith("Qwen2.5-1.5B"));
    expect(chooseDefaultModel(custom, { shaderF16: false }).model_id).toBe("Qwen3-1.7B-q4f32_1-MLC");
  });

  it("a custom list with only f16 models cannot serve an f32-only adapter", () => {
    const onlyF16 = list.filter((r) => r.model_id === "Qwen2.5-1.5B-Instruct-q4f16_1-MLC");
    const err = (() => {
      try {
        chooseDefaultModel(onlyF16, { shaderF16: false });
      } catch (e) {
        return e as EdgeError;
      }
      return undefined;
    })();
    expect(err?.code).toBe("model_load_failed");
    expect(err?.message).toMatch(/shader-f16/);
  });

  it("a self-hosted record that is not in the preference list is used", () => {
    const own: ModelRecord = {
      model: "/models/my-model/",
      model_id: "My-Model-q4f32_1-MLC",
      model_lib: "/models/my-model/lib.wasm",
    };
    expect(chooseDefaultModel([own], { shaderF16: false }).model_id).toBe("My-Model-q4f32_1-MLC");
  });
});

describe("explicit model ids", () => {
  it("refuses an f16 model on an adapter without shader-f16, naming the f32 sibling, before any download", () => {
    try {
      resolveModel(list, "Qwen3-1.7B-q4f16_1-MLC", { shaderF16: false });
      expect.unreachable();
    } catch (e) {
      const err = e as EdgeError;
      expect(err.code).toBe("model_load_failed");
      expect(err.details).toMatchObject({ reason: "shader_f16_missing", f32Variant: "Qwen3-1.7B-q4f32_1-MLC" });
      expect(err.message).toContain("Qwen3-1.7B-q4f32_1-MLC");
    }
    // Qwen3's record has no required_features: the id's quantization still marks it f16.
    expect(list.find((r) => r.model_id === "Qwen3-1.7B-q4f16_1-MLC")?.required_features).toBeUndefined();
  });

  it("accepts the same f16 model when the adapter has shader-f16", () => {
    expect(resolveModel(list, "Qwen3-1.7B-q4f16_1-MLC", { shaderF16: true }).model_id).toBe("Qwen3-1.7B-q4f16_1-MLC");
  });

  it("an unknown id is unknown_model; an embedding model is not a chat model", () => {
    expect(() => resolveModel(list, "Nope-1B", { shaderF16: true })).toThrow(/No model "Nope-1B"/);
    const embedding = list.find((r) => Number(r.model_type) === 1);
    expect(embedding).toBeDefined();
    expect(() => resolveModel(list, embedding!.model_id, { shaderF16: true })).toThrow(/not a chat model/);
  });
});

describe("picker rows", () => {
  it("lists chat models with size, precision and support on this adapter", () => {
    const rows = listModelOptions(list, { shaderF16: false });
    const f32 = rows.find((r) => r.id === "Qwen2.5-1.5B-Instruct-q4f32_1-MLC")!;
    const f16 = rows.find((r) => r.id === "Qwen2.5-1.5B-Instruct-q4f16_1-MLC")!;
    expect(f32).toMatchObject({
      precision: "f32",
      needsShaderF16: false,
      supported: true,
      recommended: true,
      vramMB: 1888.97,
    });
    expect(f16).toMatchObject({ precision: "f16", needsShaderF16: true, supported: false, recommended: false });
    expect(rows.filter((r) => r.recommended)).toHaveLength(1);
    expect(rows.some((r) => /embed/i.test(r.id))).toBe(false);
  });

  it("without an adapter, rows carry no support verdict", () => {
    const rows = listModelOptions(list);
    expect(rows.every((r) => r.supported === undefined && !r.recommended)).toBe(true);
  });

  it("estimates download size from the id", () => {
    expect(estimateDownloadMB("Qwen2.5-1.5B-Instruct-q4f16_1-MLC")).toBe(750);
    expect(estimateDownloadMB("Qwen2.5-0.5B-Instruct-q0f32-MLC")).toBe(2000);
    expect(estimateDownloadMB("SmolLM2-360M-Instruct-q4f16_1-MLC")).toBe(180);
    expect(estimateDownloadMB("my-model")).toBeUndefined();
    expect(f32VariantId("Llama-3.2-1B-Instruct-q4f16_1-MLC")).toBe("Llama-3.2-1B-Instruct-q4f32_1-MLC");
    expect(f32VariantId("Qwen2.5-0.5B-Instruct-q0f16-MLC")).toBe("Qwen2.5-0.5B-Instruct-q0f32-MLC");
    expect(f32VariantId("Qwen2.5-0.5B-Instruct-q0f32-MLC")).toBeUndefined();
  });
});

describe("fingerprint", () => {
  it("holds id, library URL, weight URL and SRI pins when present", () => {
    const record: ModelRecord = {
      model: "https://models.example.org/qwen/",
      model_id: "Qwen-self-hosted-q4f32_1-MLC",
      model_lib: "https://models.example.org/qwen/lib.wasm",
      integrity: {
        config: "sha256-Y29uZmln",
        model_lib: "sha256-bGli",
        tokenizer: { "tokenizer.json": "sha256-dG9r" },
        onFailure: "error",
      },
    };
    expect(fingerprintOf(record, "v0_2_86/base")).toEqual({
      modelId: "Qwen-self-hosted-q4f32_1-MLC",
      modelLib: "https://models.example.org/qwen/lib.wasm",
      modelUrl: "https://models.example.org/qwen/",
      shaderF16: false,
      runtimeVersion: "v0_2_86/base",
      integrity: {
        config: "sha256-Y29uZmln",
        model_lib: "sha256-bGli",
        tokenizer: { "tokenizer.json": "sha256-dG9r" },
      },
    });
  });

  it("a prebuilt record without pins has no integrity field", () => {
    const fp = fingerprintOf(chooseDefaultModel(list, { shaderF16: true }));
    expect(fp.integrity).toBeUndefined();
    expect(fp.modelLib).toMatch(/^https:\/\/raw\.githubusercontent\.com\/mlc-ai\/binary-mlc-llm-libs\/.+\.wasm$/);
    expect(fp.modelUrl).toBe("https://huggingface.co/mlc-ai/Qwen2.5-1.5B-Instruct-q4f16_1-MLC");
  });
});
