// What bench/session.bench.ts runs a session on: real models (trained weights from PyPI,
// test/real-models.ts), their random twins (the real file with random weights in the same quant
// types: test/fixtures/random-twin.ts) and real-shape models (a real tokenizer at a catalog
// model's dimensions, random Q4_0/Q8_0 weights: test/fixtures/real-shape.ts), and a real model's
// legacy-quant tensors rewritten as Q8_0 (the same trained weights in a type wllama's wasm
// vectorizes: test/fixtures/requantize.ts). A random subject that stands for a real one is compared
// with it in the same run (session-core.ts, compareWeights).
import { realModel, type RealModelId } from "../test/real-models.ts";
import { ggufTensorTypes } from "../test/fixtures/gguf-table.ts";
import { randomTwin } from "../test/fixtures/random-twin.ts";
import { requantizedQ8_0 } from "../test/fixtures/requantize.ts";
import { realShapeModel, type RealShapeName, type RealShapeQuant } from "../test/fixtures/real-shape.ts";

export interface Subject {
  /** In logs and the JSON: the real model's id, "<id> random twin", or "<shape> shape". */
  name: string;
  weights: "real" | "random";
  path: string;
  sha256: string;
  size: number;
  /** The real model a random subject stands for, and what differs besides the weights. */
  standsFor?: { real: RealModelId; differs: string };
  /** Fields every entry of this subject carries. */
  info: Record<string, unknown>;
}

/** A real shape with the architecture and dimensions of a real model, so the two can be compared
 *  (the shape's Q4_0/Q8_0 against the file's own quant mix, Qwen3's template against Qwen2.5's). */
const SHAPE_STANDS_FOR: Partial<Record<RealShapeName, RealModelId>> = {
  "qwen2.5-0.5b": "qwen2.5-coder-0.5b-instruct-q4_k_m",
};

const mix = (types: Record<string, number>): string =>
  Object.entries(types)
    .sort((a, b) => b[1] - a[1])
    .map(([t, n]) => `${t} ×${n}`)
    .join(", ");

/** A real model, or why it is not there (setup:models not run). */
export function realSubject(id: RealModelId): Subject | { skipped: string } {
  const m = realModel(id);
  if (!m) return { skipped: `${id} is not in .cache/models/ (run npm run setup:models)` };
  const info = {
    model: id,
    label: m.label,
    model_sha256: `sha256:${m.sha256}`,
    model_bytes: m.size,
    tensor_types: mix(ggufTensorTypes(m.path)),
  };
  return { name: id, weights: "real", path: m.path, sha256: m.sha256, size: m.size, info };
}

/** The random twin of a real model (written on first use, ~2 s for 0.5B). */
export function twinSubject(id: RealModelId): Subject | { skipped: string } {
  const m = realModel(id);
  if (!m) return { skipped: `${id} is not in .cache/models/ (run npm run setup:models), so it has no random twin` };
  const t = randomTwin(m);
  const name = `${id} random twin`;
  const info = {
    model: name,
    twin_of: `sha256:${m.sha256}`,
    model_sha256: `sha256:${t.sha256}`,
    model_bytes: t.size,
    tensor_types: mix(t.types),
  };
  return {
    name,
    weights: "random",
    path: t.path,
    sha256: t.sha256,
    size: t.size,
    standsFor: {
      real: id,
      differs: "nothing: the same file (header, tokenizer, template, quant types) with random weights",
    },
    info,
  };
}

/** A real model with its Q4_0/Q4_1/Q5_0/Q5_1 tensors rewritten as Q8_0 (written on first use: ~10 s
 *  for SmolLM2, ~40 s for 0.5B). Trained weights: its speed is a real model's speed. */
export function requantizedSubject(id: RealModelId): Subject | { skipped: string } {
  const m = realModel(id);
  if (!m) return { skipped: `${id} is not in .cache/models/ (run npm run setup:models), so it cannot be requantized` };
  const q = requantizedQ8_0(m);
  const name = `${id} as Q8_0`;
  const info = {
    model: name,
    requantized_from: `sha256:${m.sha256}`,
    model_sha256: `sha256:${q.sha256}`,
    model_bytes: q.size,
    tensor_types: mix(ggufTensorTypes(q.path)),
  };
  return { name, weights: "real", path: q.path, sha256: q.sha256, size: q.size, info };
}

export function shapeSubject(shape: RealShapeName, quant: RealShapeQuant): Subject {
  const m = realShapeModel({ shape, quant });
  const real = SHAPE_STANDS_FOR[shape];
  const info = {
    model: m.name,
    model_shape: shape,
    quant,
    model_sha256: `sha256:${m.sha256}`,
    model_bytes: m.size,
    vocab: m.vocabSource,
  };
  return {
    name: `${shape} shape`,
    weights: "random",
    path: m.path,
    sha256: m.sha256,
    size: m.size,
    ...(real
      ? {
          standsFor: {
            real,
            differs: `quant types (all ${quant.toUpperCase()} against the real file's own mix) and the chat template (the shape's vocabulary package ships Qwen3's)`,
          },
        }
      : {}),
    info,
  };
}
