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

export const PINNED_RECORDS: readonly PinnedRecord[] = [];

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
