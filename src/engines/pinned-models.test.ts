// Edge's pinned model records over web-llm's real prebuilt list.
import { isValidSRI, prebuiltAppConfig } from "@mlc-ai/web-llm";
import { describe, expect, it } from "vitest";
import { fingerprintOf } from "./models.ts";
import { isPinned, PINNED_RECORDS, withPinnedRecords, type PinnedRecord } from "./pinned-models.ts";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const pin: PinnedRecord = {
  model_id: "Qwen2.5-1.5B-Instruct-q4f16_1-MLC",
  model: `https://huggingface.co/mlc-ai/Qwen2.5-1.5B-Instruct-q4f16_1-MLC/resolve/${SHA}/`,
  model_lib: `https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/${SHA}/web-llm-models/v0_2_86/base/Qwen2-1.5B-Instruct-q4f16_1_cs1k-webgpu.wasm`,
  integrity: { config: "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", onFailure: "error" },
};

describe("pinned records", () => {
  it("replace URL, library and integrity of the matching record only; the fingerprint names them", () => {
    const config = withPinnedRecords(prebuiltAppConfig, [pin]);
    const record = config.model_list.find((r) => r.model_id === pin.model_id)!;
    expect(record).toMatchObject({
      model: pin.model,
      model_lib: pin.model_lib,
      integrity: pin.integrity,
      overrides: { context_window_size: 4096 },
    });
    expect(config.model_list.filter((r) => r.model_id !== pin.model_id)).toEqual(
      prebuiltAppConfig.model_list.filter((r) => r.model_id !== pin.model_id),
    );
    expect(fingerprintOf(record, "v0_2_86/base")).toMatchObject({
      modelUrl: pin.model,
      modelLib: pin.model_lib,
      integrity: { config: pin.integrity!.config },
    });
  });

  it("a record on resolve/main or a library on main is not a pin", () => {
    expect(isPinned(pin)).toBe(true);
    expect(
      isPinned({ ...pin, model: "https://huggingface.co/mlc-ai/Qwen2.5-1.5B-Instruct-q4f16_1-MLC/resolve/main/" }),
    ).toBe(false);
    expect(isPinned({ ...pin, model_lib: prebuiltAppConfig.model_list[0]!.model_lib })).toBe(false);
  });

  it("every shipped pin names exact commits and well-formed SRI hashes of a default-model record", () => {
    for (const p of PINNED_RECORDS) {
      expect(isPinned(p), p.model_id).toBe(true);
      expect(prebuiltAppConfig.model_list.some((r) => r.model_id === p.model_id)).toBe(true);
      const sris = [p.integrity?.config, p.integrity?.model_lib, ...Object.values(p.integrity?.tokenizer ?? {})].filter(
        (s): s is string => !!s,
      );
      for (const s of sris) expect(isValidSRI(s), `${p.model_id}: ${s}`).toBe(true);
    }
  });
});
