// The binding to llama.cpp in Node (what the error table and setup call "the model runtime":
// node-llama-cpp) is an OPTIONAL peer dependency: a plain `npm install` of
// Edge does not pull it in (with its GPU variants it is ~725 MB). It is imported here, lazily, only
// when a model is loaded; missing, it is `model_runtime_missing` with the one command to run.
// The types below are the small part of its API Edge uses, written out so that type-checking
// does not need the package installed.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { EdgeError } from "../../../contract/errors.ts";

const NODE_LLAMA_CPP_VERSION = "3.22.1";
const SETUP_COMMAND = "npm run setup:llama";

export type Token = number;

export interface NlcGrammar {
  readonly grammar: string;
}
export interface NlcGrammarState {
  readonly __brand?: "grammar-state";
}
export interface NlcSequence {
  readonly nextTokenIndex: number;
  readonly contextTokens: Token[];
  adaptStateToTokens(tokens: Token[], allowShift?: boolean): Promise<void>;
  evaluate(
    tokens: Token[],
    options?: { temperature?: number; seed?: number; grammarEvaluationState?: NlcGrammarState },
  ): AsyncGenerator<Token, void, void | Token | Token[]>;
  evaluateWithoutGeneratingNewTokens(tokens: Token[]): Promise<void>;
  /** Evaluates `input`; for an item with `generateNext.logits`, returns the next token's raw logits
   *  of the filtered tokens (and the largest), and Σ exp(logit − largest) over the vocabulary. */
  controlledEvaluate(
    input: (
      | Token
      | [
          Token,
          {
            generateNext: {
              logits: { filter: { tokens: readonly Token[]; includeTop: number } };
              totalLogitWeight: boolean;
            };
          },
        ]
    )[],
  ): Promise<({ next: { logits?: Map<Token, number>; totalLogitWeight?: number } } | undefined)[]>;
  saveStateToFile(filePath: string): Promise<{ fileSize: number }>;
  loadStateFromFile(filePath: string, acceptRisk: { acceptRisk: true }): Promise<void>;
  clearHistory(): Promise<void>;
}
export interface NlcContext {
  readonly contextSize: number;
  getSequence(): NlcSequence;
  dispose(): Promise<void>;
}
export type NlcHistoryItem =
  | { type: "system"; text: string }
  | { type: "user"; text: string }
  | { type: "model"; response: string[] };
export interface NlcChatWrapper {
  readonly wrapperName?: string;
  generateContextState(options: { chatHistory: NlcHistoryItem[] }): {
    contextText: { tokenize(tokenizer: unknown): Token[] };
  };
}
export interface NlcModel {
  readonly trainContextSize: number;
  readonly tokenizer: unknown;
  readonly tokens: { readonly bosString: string | null; readonly eosString: string | null };
  readonly fileInfo: { readonly metadata: { readonly tokenizer?: { readonly chat_template?: string } } };
  tokenize(text: string, specialTokens?: boolean): Token[];
  detokenize(tokens: readonly Token[], specialTokens?: boolean, lastTokens?: readonly Token[]): string;
  isEogToken(token: Token | undefined): boolean;
  createContext(options: { contextSize: number; sequences?: number; threads?: number }): Promise<NlcContext>;
  dispose(): Promise<void>;
}
export interface NlcLlama {
  /** CPU cores useful for math (node-llama-cpp's count). */
  readonly cpuMathCores: number;
  loadModel(options: {
    modelPath: string;
    gpuLayers?: number;
    onLoadProgress?: (progress: number) => void;
    loadSignal?: AbortSignal;
  }): Promise<NlcModel>;
  createGrammar(options: { grammar: string }): Promise<NlcGrammar>;
}
export interface NlcModule {
  getLlama(options: { gpu: false; build: "never"; logLevel?: string; progressLogs?: boolean }): Promise<NlcLlama>;
  resolveChatWrapper(model: NlcModel, options?: { customWrapperSettings?: Record<string, unknown> }): NlcChatWrapper;
  LlamaGrammarEvaluationState: new (options: { model: NlcModel; grammar: NlcGrammar }) => NlcGrammarState;
}

export interface LlamaBinding {
  module: NlcModule;
  llama: NlcLlama;
  /** "node-llama-cpp <version>" */
  name: string;
}

function runtimeMissing(reason: string): EdgeError {
  return new EdgeError(
    "model_runtime_missing",
    { reason, command: SETUP_COMMAND, alternative: `npm install node-llama-cpp@${NODE_LLAMA_CPP_VERSION}` },
    `Running a GGUF model in Node needs the optional runtime node-llama-cpp ${NODE_LLAMA_CPP_VERSION}, which is not installed (${reason}). Install it with: ${SETUP_COMMAND}`,
  );
}

function installedVersion(require: NodeRequire, specifier: string): string | undefined {
  try {
    // The package's exports do not include package.json: find it from the resolved entry.
    let dir = path.dirname(require.resolve(specifier));
    for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
          name?: string;
          version?: string;
        };
        if (pkg.name === specifier) return pkg.version;
      } catch {
        // not this folder
      }
    }
  } catch {
    // not resolvable
  }
  return undefined;
}

/** Import the binding by package name and start its CPU llama (prebuilt binary only, never a
 *  source build). Exported for tests; use llamaBinding(). */
export async function loadLlamaBinding(specifier = "node-llama-cpp"): Promise<LlamaBinding> {
  const version = installedVersion(createRequire(import.meta.url), specifier);
  if (!version) throw runtimeMissing(`the package ${specifier} cannot be found`);
  let module: NlcModule;
  try {
    // A variable specifier: type-checking and bundlers must not try to resolve it.
    module = (await import(/* @vite-ignore */ specifier)) as NlcModule;
  } catch (e) {
    throw runtimeMissing(`importing it failed: ${(e as Error).message}`);
  }
  let llama: NlcLlama;
  try {
    llama = await module.getLlama({ gpu: false, build: "never", logLevel: "error", progressLogs: false });
  } catch (e) {
    throw runtimeMissing(
      `no prebuilt llama.cpp binary for ${process.platform}-${process.arch} could be loaded: ${(e as Error).message}`,
    );
  }
  return { module, llama, name: `node-llama-cpp ${version}` };
}

let binding: Promise<LlamaBinding> | undefined;

/** The binding, loaded once per process. */
export function llamaBinding(): Promise<LlamaBinding> {
  binding ??= loadLlamaBinding();
  // A failed attempt is not cached: installing the runtime and retrying works in the same process.
  binding.catch(() => {
    binding = undefined;
  });
  return binding;
}
