// `--model VALUE` before anything is loaded: what this build can run. In Node that is a GGUF file
// (a path, or an http(s) URL ending in .gguf) run by llama.cpp, or a name from a catalog of GGUF
// models the caller passes. Edge Studio's model ids (MLX builds for Apple Silicon, such as
// `qwen3.5-9b-4bit`) and web-llm's MLC ids name models this build cannot run here: unknown_model,
// with the list of what it can run, so a command copied from Edge Studio's docs says what to change.
import { EdgeError } from "../contract/errors.ts";

export type ModelArg =
  | { kind: "gguf_file"; path: string }
  | { kind: "gguf_url"; url: string }
  | { kind: "catalog"; id: string };

export interface ModelArgOptions {
  /** Named GGUF models this build can fetch and run (none are built in today). */
  catalog?: readonly string[];
}

// MLX quantisation suffixes Edge Studio's ids end with (qwen3.5-9b-4bit, …-8bit, …-bf16), or an
// mlx-community repository.
const MLX_ID = /(?:^mlx-community\/)|(?:-(?:[2-8]bit|bf16|fp16|mlx)$)/i;
// web-llm's prebuilt ids: Qwen2.5-1.5B-Instruct-q4f16_1-MLC.
const MLC_ID = /-q\d+f(?:16|32)(?:_\d+)?-MLC(?:-[\w-]+)?$/i;

function isGgufName(pathname: string): boolean {
  return pathname.toLowerCase().endsWith(".gguf");
}

function runnable(options: ModelArgOptions): string {
  const named = options.catalog?.length ? `; or one of: ${options.catalog.join(", ")}` : "";
  return `a GGUF model file: a path ending in .gguf, or an http(s) URL of one${named}`;
}

/** Resolve a --model value, or throw unknown_model naming what this build can run. */
export function resolveModelArg(value: string, options: ModelArgOptions = {}): ModelArg {
  const text = value.trim();
  if (options.catalog?.includes(text)) return { kind: "catalog", id: text };
  if (/^https?:\/\//i.test(text)) {
    let url: URL | null = null;
    try {
      url = new URL(text);
    } catch {
      url = null;
    }
    if (url && isGgufName(url.pathname)) return { kind: "gguf_url", url: url.href };
  } else if (text !== "" && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && isGgufName(text)) {
    // A path (another URL scheme, ftp:// or file://, is not fetched).
    return { kind: "gguf_file", path: text };
  }
  const why = MLX_ID.test(text)
    ? `"${text}" is an Edge Studio model id (an MLX build for Apple Silicon), which Edge Web cannot run.`
    : MLC_ID.test(text)
      ? `"${text}" is a web-llm model: it runs in the browser (the playground, WebGPU), not in Node.`
      : `"${text}" is not a model this build can run.`;
  throw new EdgeError(
    "unknown_model",
    { model: text, runnable: [...(options.catalog ?? []), "*.gguf (file path)", "http(s)://…/*.gguf"] },
    `${why} Pass ${runnable(options)} (for example --model ./qwen2.5-1.5b-instruct-q4_k_m.gguf), or use --engine scripted --script OUTPUTS.json.`,
  );
}
