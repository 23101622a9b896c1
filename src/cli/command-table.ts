// The command table's shared parts: what a command is, its handler loaded on first use, and the
// option texts several commands' usages share. The table itself is commands.ts (in three parts:
// commands-tools.ts, commands-facts.ts, commands-stores.ts).
import { LLAMACPP_CATALOG } from "../engines/llamacpp/catalog.ts";
import type { CliIO } from "./io.ts";

export interface Command {
  /** The words after `edge` (and after an optional `demo`), e.g. ["tools", "validate"]. */
  readonly path: readonly string[];
  readonly summary: string;
  /** The full usage: synopsis lines first, then what the options do. */
  readonly usage: string;
  run(argv: string[], io: CliIO): Promise<number>;
}

/** A handler loaded on first use: `load` imports its module, `pick` names the function. */
export function lazy<M>(load: () => Promise<M>, pick: (m: M) => Command["run"]): Command["run"] {
  return async (argv, io) => pick(await load())(argv, io);
}

export const SELECT =
  "--tool NAME (repeatable) and --tool-tag TAG (repeatable) narrow a tools.py's active set (at most 8 tools).";
export const MODEL = `--model runs a GGUF model with llama.cpp (needs \`npm run setup:llama\` once): a file path, an
http(s) URL (downloaded once into $EDGE_DATA_DIR/models) or a catalog name
(${LLAMACPP_CATALOG.map((m) => m.id).join(", ")}). MODEL OPTIONS:
[--model-sha256 HEX] (pin the file) [--ctx-size N] (default 4096) [--threads N] [--max-tokens N]
[--tool-choice auto|required|none] (auto, the default: a call or an answer; required: the first
turn must call a tool; none: free text).`;
export const SCRIPTED = `--engine scripted --script OUTPUTS.json: the model's outputs as in the playground (strings or tool-call
objects, {{tool_result.KEY}}; docs/cli.md). web-llm needs a browser's WebGPU (npm start opens the playground).`;
export const JSON_OUT = "--json prints one JSON document on stdout.";
export const PROJECT = `--tools-root DIR: the tools project (default: the folder of FILE), mounted read-only at /tools,
the working directory and first on sys.path, so FILE imports its sibling modules and opens its data
files as in CPython. Every file is hashed into tools_bundle_sha256; an edit after the freeze fails
closed (tools_file_changed, naming the file). Hidden names, __pycache__, node_modules, virtualenvs
and Edge's own data are skipped; at most 1000 files and 16 MiB (docs/tools-projects.md).
--tools-root FILE (the tools file itself) mounts it alone.`;
