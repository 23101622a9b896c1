// Edge's own model records for the default models (models.ts DEFAULT_MODEL_PREFERENCE). web-llm's
// prebuilt records point at `resolve/main` of each Hugging Face repository and at the `main`
// branch of mlc-ai/binary-mlc-llm-libs, so the files behind a model id can change under a bound
// imprint without anyone noticing. A pinned record names an exact revision and carries web-llm's
// `integrity` (SRI) for what web-llm can verify (config, model library, tokenizer); a changed file
// is then `model_integrity_failed`, and the fingerprint in receipts and imprints names the exact
// files. Values are only what could be verified from published sources (docs/engines.md lists
// which are still missing); a record is replaced only where something real is known.
import type { AppConfig, ModelRecord } from "@mlc-ai/web-llm";

export interface PinnedRecord {
  model_id: string;
  /** Hugging Face repository URL at an exact commit: https://huggingface.co/<repo>/resolve/<sha>/ */
  model?: string;
  /** Model library URL at an exact commit of binary-mlc-llm-libs. */
  model_lib?: string;
  integrity?: ModelRecord["integrity"];
}

/**
 * Empty for now, deliberately. What could be verified offline (docs/engines.md, "Pinned records"):
 * the Hugging Face commits that first uploaded these models (Sep 2024, e.g. Qwen2.5-1.5B-Instruct-
 * q4f16_1-MLC at 4d53aacc85e8f03dcecf9715afbfbcf1e5f62bd3) predate mlc-ai's later "Upload
 * tensor-cache.json" commits, and web-llm 0.2.86 loads weights only through tensor-cache.json — a
 * pin to them would break loading. The commits that added tensor-cache.json, the SRI hashes of
 * mlc-chat-config.json and tokenizer.json, and any binary-mlc-llm-libs commit holding the
 * v0_2_86/base libraries (with their SRI) were not found. Add a record here once its values are
 * read from the real files (`openssl dgst -sha256 -binary FILE | base64`).
 */
export const PINNED_RECORDS: readonly PinnedRecord[] = [];

/** A pin is only a pin if every URL names an exact commit. */
export function isPinned(pin: PinnedRecord): boolean {
  const hf = pin.model === undefined || /\/resolve\/[0-9a-f]{40}\/$/.test(pin.model);
  const lib = pin.model_lib === undefined || /binary-mlc-llm-libs\/[0-9a-f]{40}\//.test(pin.model_lib);
  return hf && lib && (pin.model !== undefined || pin.model_lib !== undefined || pin.integrity !== undefined);
}

/** web-llm's list with the pinned fields applied to the matching records. */
export function withPinnedRecords(appConfig: AppConfig, pins: readonly PinnedRecord[] = PINNED_RECORDS): AppConfig {
  const byId = new Map(pins.map((p) => [p.model_id, p] as const));
  return {
    ...appConfig,
    model_list: appConfig.model_list.map((r) => {
      const pin = byId.get(r.model_id);
      if (!pin) return r;
      return {
        ...r,
        ...(pin.model ? { model: pin.model } : {}),
        ...(pin.model_lib ? { model_lib: pin.model_lib } : {}),
        ...(pin.integrity ? { integrity: { ...pin.integrity } } : {}),
      };
    }),
  };
}
