// `--model` for `edge chat` and `edge learn run`: a real GGUF model through the llama.cpp engine in
// Node (node-llama-cpp, the optional runtime). The model is a file, an http(s) URL (downloaded once
// into $EDGE_DATA_DIR/models) or a catalog name; `--engine llamacpp` is implied.
import path from "node:path";
import type { Engine, ProgressListener } from "../engines/engine.ts";
import type { ModelSource } from "../engines/llamacpp/backend.ts";
import { catalogModel, catalogSource, LLAMACPP_CATALOG } from "../engines/llamacpp/catalog.ts";
import { isToolChoice, type ToolChoice } from "../engines/tool-turn.ts";
import { makeNodeEngine, type NodeEngineChoice } from "../assembly/node.ts";
import { nodeStartStates, START_STATES_MAX_BYTES } from "../imprint/start-states-node.ts";
import { switchedOff } from "../runner/keeper-wire.ts";
import { UsageError, type CliIO } from "./io.ts";
import { resolveModelArg } from "./model-arg.ts";

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
  if (kind === "llamacpp" && values.model === undefined)
    throw new UsageError("--engine llamacpp needs --model FILE.gguf|URL|NAME.");
  if (kind !== "llamacpp" && values.model !== undefined)
    throw new UsageError(`--model runs the llama.cpp engine; drop --engine ${kind}.`);
  return kind;
}

/** `--tool-choice` (src/engines/tool-turn.ts): auto (default), required, none. */
export function toolChoiceOf(choice: string | undefined): ToolChoice {
  const value = choice ?? "auto";
  if (!isToolChoice(value)) throw new UsageError(`--tool-choice must be auto, required or none (got "${choice}").`);
  return value;
}

/** The answer budget per model turn (--max-tokens), when given. */
export function maxTokensOf(values: ModelValues): number | undefined {
  return positiveInt(values["max-tokens"], "--max-tokens");
}

/** A --model value as a model source: a GGUF path or URL, or a catalog name (refusals name what can
 *  run: resolveModelArg). A path that does not exist is reported when the model is loaded. */
function modelSourceOf(value: string, sha256: string | undefined): ModelSource {
  const arg = resolveModelArg(value, { catalog: LLAMACPP_CATALOG.map((m) => m.id) });
  const pin = sha256 !== undefined ? { sha256 } : {};
  if (arg.kind === "catalog") {
    if (sha256 !== undefined)
      throw new UsageError("--model-sha256 pins a file or a URL; a catalog model is pinned already.");
    return catalogSource(catalogModel(arg.id)!);
  }
  return arg.kind === "gguf_url"
    ? { kind: "url", url: arg.url, ...pin }
    : { kind: "file", path: path.resolve(arg.path), ...pin };
}

/** --ctx-size, when given. */
export function contextSizeOf(values: ModelValues): number | undefined {
  return positiveInt(values["ctx-size"], "--ctx-size");
}

/** The --model engine, as the Node root makes it. */
export function modelChoiceOf(values: ModelValues): NodeEngineChoice {
  const contextSize = contextSizeOf(values);
  const threads = positiveInt(values.threads, "--threads");
  return {
    kind: "llamacpp",
    model: modelSourceOf(values.model!, values["model-sha256"]),
    ...(contextSize !== undefined ? { contextSize } : {}),
    ...(threads !== undefined ? { threads } : {}),
  };
}

/** Load progress on stderr (phase changes only), unless `quiet`. */
export function printProgress(io: CliIO, quiet: boolean): ProgressListener {
  let lastPhase = "";
  return (p) => {
    if (quiet || p.phase === lastPhase) return;
    lastPhase = p.phase;
    io.err(`model: ${p.text}\n`);
  };
}

/** Load the --model engine (`edge learn run`). */
export async function loadModelEngine(values: ModelValues, io: CliIO, quiet: boolean): Promise<Engine> {
  const { engine } = await makeNodeEngine(modelChoiceOf(values));
  await engine.load(printProgress(io, quiet));
  return engine;
}

/**
 * `edge chat --model`: keep the evaluated conversation start (the tool contract) across runs, as a
 * saved llama.cpp state in $EDGE_DATA_DIR/start-states (src/imprint/start-states-node.ts), unless
 * --no-start-state or EDGE_START_STATE=0 (off, false, no); EDGE_START_STATE_MAX_MB caps the folder.
 */
export function keepStartStates(engine: Engine, off: boolean, env: NodeJS.ProcessEnv = process.env): void {
  if (off || switchedOff(env.EDGE_START_STATE)) return;
  const mb = env.EDGE_START_STATE_MAX_MB;
  const maxBytes = mb === undefined || mb === "" ? START_STATES_MAX_BYTES : Number(mb) * 1024 * 1024;
  if (!Number.isFinite(maxBytes) || maxBytes < 0)
    throw new UsageError(
      `EDGE_START_STATE_MAX_MB must be a number of MiB ≥ 0 (got "${mb}"); unset it for the default, ${START_STATES_MAX_BYTES / 1024 / 1024}.`,
    );
  const store = nodeStartStates(engine, { maxBytes });
  if (store) engine.startStates = store;
}
