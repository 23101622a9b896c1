// `--model` for `edge chat` and `edge learn run`: a real GGUF model through the llama.cpp engine in
// Node (node-llama-cpp, the optional runtime). The model is a file, an http(s) URL (downloaded once
// into $EDGE_DATA_DIR/models) or a catalog name; `--engine llamacpp` is implied.
import type { ToolSchema } from "../contract/types.ts";
import type { ResponseFormat } from "../engines/engine.ts";
import { toolCallOrTextResponseFormat, toolCallResponseFormat } from "../engines/grammar.ts";
import type { LlamaCppEngine } from "../engines/llamacpp/engine.ts";
import { createNodeLlamaCppEngine } from "../engines/llamacpp/node/index.ts";
import { UsageError, type CliIO } from "./io.ts";

export const MODEL_OPTIONS = {
  model: { type: "string" },
  "model-sha256": { type: "string" },
  "ctx-size": { type: "string" },
  threads: { type: "string" },
  "max-tokens": { type: "string" },
  "tool-choice": { type: "string" },
} as const;

export interface ModelValues {
  model?: string;
  "model-sha256"?: string;
  "ctx-size"?: string;
  threads?: string;
  "max-tokens"?: string;
  "tool-choice"?: string;
}

function positiveInt(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be an integer ≥ 1.`);
  return n;
}

/** The engine the command runs: llama.cpp whenever --model is given. */
export function engineKind(values: ModelValues & { engine?: string }): string {
  const kind = values.engine ?? (values.model !== undefined ? "llamacpp" : "webllm");
  if (kind === "llamacpp" && values.model === undefined) throw new UsageError("--engine llamacpp needs --model FILE.gguf|URL|NAME.");
  if (kind !== "llamacpp" && values.model !== undefined) throw new UsageError(`--model runs the llama.cpp engine; drop --engine ${kind}.`);
  return kind;
}

/**
 * Guided tool calls for `--tool-choice`: auto (default) = exactly one valid call or a plain
 * answer; required = exactly one valid call (every model turn of the run); none = free text.
 */
export function toolChoiceFormat(choice: string | undefined): ((schemas: readonly ToolSchema[]) => ResponseFormat | undefined) | undefined {
  switch (choice ?? "auto") {
    case "auto":
      return toolCallOrTextResponseFormat;
    case "required":
      return toolCallResponseFormat;
    case "none":
      return undefined;
    default:
      throw new UsageError(`--tool-choice must be auto, required or none (got "${choice}").`);
  }
}

/** The answer budget per model turn (--max-tokens), when given. */
export function maxTokensOf(values: ModelValues): number | undefined {
  return positiveInt(values["max-tokens"], "--max-tokens");
}

/** --ctx-size, when given. */
export function contextSizeOf(values: ModelValues): number | undefined {
  return positiveInt(values["ctx-size"], "--ctx-size");
}

/** Load the --model engine; progress goes to stderr (phase changes only) unless `quiet`. */
export async function loadModelEngine(values: ModelValues, io: CliIO, quiet: boolean): Promise<LlamaCppEngine> {
  const contextSize = contextSizeOf(values);
  const threads = positiveInt(values.threads, "--threads");
  const engine = createNodeLlamaCppEngine({
    model: values.model!,
    ...(values["model-sha256"] !== undefined ? { sha256: values["model-sha256"] } : {}),
    ...(contextSize !== undefined ? { contextSize } : {}),
    ...(threads !== undefined ? { threads } : {}),
  });
  let lastPhase = "";
  await engine.load((p) => {
    if (quiet || p.phase === lastPhase) return;
    lastPhase = p.phase;
    io.err(`model: ${p.text}\n`);
  });
  return engine;
}
