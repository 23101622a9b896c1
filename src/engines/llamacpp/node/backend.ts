// The Node llama.cpp backend: node-llama-cpp (optional, lazily imported) on the CPU.
//
// Generation works on tokens, not on node-llama-cpp's chat session, so Edge controls the prompt
// cache exactly: the conversation is rendered with the model's own chat template
// (../chat-template.ts, on the real contents), tokenized, and only the tokens after the longest
// prefix already in the context are evaluated — a follow-up that extends the previous
// conversation evaluates just the new turn, and `promptTokensEvaluated` says how many that was.
import { EdgeError } from "../../../contract/errors.ts";
import { loadAbortedError, type ChoiceScores, type WarmOptions } from "../../engine.ts";
import { checkAnswerBudget, MIN_ANSWER_TOKENS } from "../answer-budget.ts";
import { choiceTokens, logSumExp, unscorableError } from "../choices.ts";
import { chatTemplateRenderer, type ChatTemplateRenderer } from "../chat-template.ts";
import type { GenerateRequest, GenerateResult, LlamaBackend, LoadedModel, PromptMessage } from "../backend.ts";
import { prepareLocalFile, prepareUrl, type PreparedFile } from "./model-files.ts";
import {
  llamaBinding,
  type NlcChatWrapper,
  type NlcContext,
  type NlcGrammar,
  type NlcHistoryItem,
  type NlcModel,
  type NlcSequence,
  type LlamaBinding,
  type Token,
} from "./binding.ts";

export interface NodeLlamaBackendOptions {
  /** Where downloaded models are cached (the CLI passes $EDGE_DATA_DIR/models). */
  cacheDir: string;
}

const GRAMMAR_CACHE = 8;

/**
 * Below this file size one thread decodes fastest; from it on, every core. Without a count
 * node-llama-cpp takes max(4, math cores) threads — 4 on a 2-core machine, where llama.cpp's
 * spinning thread barriers made the byte-level test model decode at 2.9 tok/s against 242 with
 * one thread. Synchronising threads costs a fixed time per layer and token, which only a large
 * enough model repays (measured here, bench:threads: docs/engines.md).
 */
const MULTI_THREAD_MIN_BYTES = 64 << 20;

/** The CPU threads for a model when the caller names none (measured: bench/threads.bench.ts). */
export function defaultThreads(modelBytes: number, cores: number): number {
  return modelBytes < MULTI_THREAD_MIN_BYTES ? 1 : Math.max(1, cores);
}

/** Streams generated tokens as text: detokenizes only the tokens not yet sent (with the few before
 *  them as context, for tokenizers whose spacing depends on it), and holds back a piece that ends
 *  in an incomplete UTF-8 character until its next bytes arrive. */
class TextStream {
  private sent = "";
  private flushed = 0;
  constructor(
    private readonly llm: NlcModel,
    private readonly onText: (delta: string) => void,
  ) {}
  update(tokens: readonly Token[], final = false): void {
    if (this.flushed >= tokens.length) return;
    const piece = this.llm.detokenize(
      tokens.slice(this.flushed),
      false,
      tokens.slice(Math.max(0, this.flushed - 4), this.flushed),
    );
    if (!final && piece.endsWith("\uFFFD")) return;
    this.flushed = tokens.length;
    if (piece) {
      this.sent += piece;
      this.onText(piece);
    }
  }
  get text(): string {
    return this.sent;
  }
}

class NodeLoadedModel implements LoadedModel {
  readonly device = "CPU";
  readonly runtime: string;
  readonly contextWindow: number;
  readonly trainedContext: number;
  private readonly sequence: NlcSequence;
  private readonly grammars = new Map<string, Promise<NlcGrammar>>();
  private readonly template: ChatTemplateRenderer | undefined;

  constructor(
    private readonly rt: LlamaBinding,
    readonly model: PreparedFile,
    private readonly llm: NlcModel,
    private readonly context: NlcContext,
    private readonly wrapper: NlcChatWrapper,
  ) {
    this.runtime = rt.name;
    this.contextWindow = context.contextSize;
    this.trainedContext = llm.trainContextSize;
    this.sequence = context.getSequence();
    this.template = chatTemplateRenderer(llm.fileInfo.metadata.tokenizer?.chat_template, {
      bos: llm.tokens.bosString,
      eos: llm.tokens.eosString,
    });
  }

  /** Whether a content holds the text of a special token (e.g. a tool result with "<|im_end|>"). */
  private holdsSpecialText(content: string): boolean {
    const plain = this.llm.tokenize(content, false);
    const special = this.llm.tokenize(content, true);
    return plain.length !== special.length || plain.some((t, i) => t !== special[i]);
  }

  private tokens(messages: readonly PromptMessage[]): Token[] {
    // The model's template on the real contents, its markers parsed as special tokens — unless a
    // content itself holds special-token text: that must stay text (a tool result must not end a
    // turn or open a system one), so such a prompt is built by node-llama-cpp's wrapper, which
    // tokenizes contents as plain text. So is one the template refuses or cannot render.
    if (this.template && !messages.some((m) => this.holdsSpecialText(m.content))) {
      try {
        return this.llm.tokenize(this.template.render(messages), true);
      } catch {
        // the wrapper below
      }
    }
    const history: NlcHistoryItem[] = messages.map((m) =>
      m.role === "assistant" ? { type: "model", response: [m.content] } : { type: m.role, text: m.content },
    );
    history.push({ type: "model", response: [] });
    return this.wrapper.generateContextState({ chatHistory: history }).contextText.tokenize(this.llm.tokenizer);
  }

  async promptTokens(messages: PromptMessage[]): Promise<Token[]> {
    return this.tokens(messages);
  }

  private grammar(text: string): Promise<NlcGrammar> {
    let compiled = this.grammars.get(text);
    if (!compiled) {
      compiled = this.rt.llama.createGrammar({ grammar: text }).catch((e: unknown) => {
        this.grammars.delete(text);
        throw EdgeError.withTableFix(
          "response_format_unsupported",
          { reason: "grammar", original: String(e) },
          `llama.cpp refused the grammar (GBNF): ${(e as Error).message}.`,
        );
      });
      if (this.grammars.size >= GRAMMAR_CACHE) this.grammars.delete(this.grammars.keys().next().value!);
      this.grammars.set(text, compiled);
    }
    return compiled;
  }

  async generate(
    request: GenerateRequest,
    onText: (delta: string) => void,
    signal: AbortSignal,
  ): Promise<GenerateResult> {
    const start = performance.now();
    const prompt = this.tokens(request.messages);
    const budget = checkAnswerBudget(
      prompt.length,
      this.contextWindow,
      request.maxTokens,
      request.defaultMaxTokens,
      this.trainedContext,
    );
    const grammarEvaluationState =
      request.grammar !== undefined
        ? new this.rt.module.LlamaGrammarEvaluationState({
            model: this.llm,
            grammar: await this.grammar(request.grammar),
          })
        : undefined;
    const input = await this.uncached(prompt);
    const evalStart = performance.now();
    const generated: Token[] = [];
    const stream = new TextStream(this.llm, onText);
    let firstAt: number | undefined;
    // "length" only when the budget ran out; an end-of-generation token, a completed grammar
    // (the runtime ends the stream) or an abort is "stop".
    let finishReason: GenerateResult["finishReason"] = budget > 0 ? "stop" : "length";
    if (budget > 0 && !signal.aborted) {
      const options = {
        temperature: request.temperature,
        seed: request.seed,
        ...(grammarEvaluationState ? { grammarEvaluationState } : {}),
      };
      for await (const token of this.sequence.evaluate(input, options)) {
        firstAt ??= performance.now();
        if (this.llm.isEogToken(token)) break;
        generated.push(token);
        stream.update(generated);
        if (signal.aborted) break;
        if (generated.length >= budget) {
          finishReason = "length";
          break;
        }
      }
    }
    stream.update(generated, true);
    const end = performance.now();
    firstAt ??= end;
    return {
      text: stream.text,
      finishReason,
      promptTokens: prompt.length,
      promptTokensEvaluated: input.length,
      completionTokens: generated.length,
      timeToFirstTokenMs: firstAt - start,
      promptMs: firstAt - evalStart,
      decodeMs: end - firstAt,
    };
  }

  /** Keeps the cached prefix of `prompt` and returns the tokens still to evaluate. The last prompt
   *  token is always among them: its logits start the answer. */
  private async uncached(prompt: readonly Token[]): Promise<Token[]> {
    const head = prompt.slice(0, -1);
    await this.sequence.adaptStateToTokens(head, false);
    return [...head.slice(this.sequence.nextTokenIndex), prompt[prompt.length - 1]!];
  }

  async choiceLogits(messages: PromptMessage[], choices: readonly (readonly string[])[]): Promise<ChoiceScores> {
    const { tokens, unscorable } = choiceTokens(choices, (s) => this.llm.tokenize(s, false));
    if (unscorable.length > 0) throw unscorableError(unscorable);
    const prompt = this.tokens(messages);
    checkAnswerBudget(prompt.length, this.contextWindow, 1, 1, this.trainedContext);
    const input = await this.uncached(prompt);
    // The choices' raw logits, the largest one and Σ exp(logit − largest): log-probabilities over
    // the whole vocabulary.
    const next = { logits: { filter: { tokens: tokens.flat(), includeTop: 1 } }, totalLogitWeight: true };
    const last = input.length - 1;
    const out = await this.sequence.controlledEvaluate(
      input.map((t, i) => (i < last ? t : [t, { generateNext: next }])),
    );
    const { logits = new Map<Token, number>(), totalLogitWeight = Number.NaN } = out[last]?.next ?? {};
    const norm = Math.max(...logits.values()) + Math.log(totalLogitWeight);
    return {
      logProbs: tokens.map((ts) => logSumExp(ts.map((t) => (logits.get(t) ?? -Infinity) - norm))),
      floor: -Infinity,
    };
  }

  async prefixTokens(messages: PromptMessage[]): Promise<Token[]> {
    // Two renderings that differ only in the next user turn's text share exactly the conversation
    // start (whatever the template puts around the system message, and the next turn's header).
    const a = this.tokens([...messages, { role: "user", content: "A" }]);
    const b = this.tokens([...messages, { role: "user", content: "B" }]);
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    return a.slice(0, n);
  }

  async warmPrefix(messages: PromptMessage[], options?: WarmOptions): Promise<{ tokens: number; evaluated: number }> {
    const start = await this.prefixTokens(messages);
    // The start must leave room for a turn and its answer, as any prompt must.
    checkAnswerBudget(start.length, this.contextWindow, undefined, MIN_ANSWER_TOKENS, this.trainedContext);
    // Keep what the cache holds of the start (an earlier conversation with the same start), drop
    // the rest of that conversation, evaluate what is missing (in one call: node-llama-cpp takes
    // no signal there, so an abort is seen before it, and progress is reported at its end).
    await this.sequence.adaptStateToTokens(start, false);
    const kept = this.sequence.nextTokenIndex;
    if (options?.signal?.aborted) throw new EdgeError("aborted", { stage: "warm_prefix" });
    if (kept < start.length) await this.sequence.evaluateWithoutGeneratingNewTokens(start.slice(kept));
    options?.onProgress?.({ processed: start.length - kept, total: start.length - kept });
    return { tokens: start.length, evaluated: start.length - kept };
  }

  async saveState(messages: PromptMessage[], file: string): Promise<{ tokens: Token[]; bytes: number }> {
    await this.warmPrefix(messages);
    const tokens = [...this.sequence.contextTokens];
    const { fileSize } = await this.sequence.saveStateToFile(file);
    return { tokens, bytes: fileSize };
  }

  async loadState(file: string): Promise<Token[]> {
    try {
      await this.sequence.loadStateFromFile(file, { acceptRisk: true });
    } catch (e) {
      // llama.cpp leaves the sequence empty after a refused state: the next prompt is evaluated whole.
      await this.sequence.clearHistory();
      throw EdgeError.withTableFix(
        "imprint_state_mismatch",
        { reason: "runtime_refused", original: String(e) },
        `llama.cpp refused the saved state (${(e as Error).message}); it was not used.`,
      );
    }
    return [...this.sequence.contextTokens];
  }

  async unload(): Promise<void> {
    await this.context.dispose();
    await this.llm.dispose();
  }
}

async function loadModel(
  rt: LlamaBinding,
  prepared: PreparedFile,
  options: Parameters<LlamaBackend["load"]>[1],
): Promise<NodeLoadedModel> {
  const { signal, onProgress } = options;
  let llm: NlcModel;
  try {
    llm = await rt.llama.loadModel({
      modelPath: prepared.path,
      gpuLayers: 0,
      ...(signal ? { loadSignal: signal } : {}),
      onLoadProgress: (p) =>
        onProgress?.({
          progress: 0.5 + 0.45 * p,
          text: `Loading ${prepared.id} into llama.cpp ${Math.round(p * 100)}%`,
          phase: "compile",
        }),
    });
  } catch (e) {
    if (signal?.aborted) throw loadAbortedError();
    throw new EdgeError(
      "model_load_failed",
      { model: prepared.id, original: String(e) },
      `llama.cpp could not load ${prepared.id}: ${(e as Error).message}`,
    );
  }
  try {
    const context = await llm.createContext({
      contextSize: Math.min(options.contextSize, llm.trainContextSize),
      sequences: 1,
      threads: options.threads ?? defaultThreads(prepared.size, rt.llama.cpuMathCores),
    });
    // The fallback renderer (see tokens()). Qwen3 thinks aloud by default; a tool call must be the whole reply.
    const wrapper = rt.module.resolveChatWrapper(llm, { customWrapperSettings: { qwen: { thoughts: "discourage" } } });
    return new NodeLoadedModel(rt, prepared, llm, context, wrapper);
  } catch (e) {
    await llm.dispose();
    throw new EdgeError(
      "model_load_failed",
      { model: prepared.id, original: String(e) },
      `llama.cpp could not create a ${options.contextSize}-token context for ${prepared.id} (memory?): ${(e as Error).message}`,
    );
  }
}

export function createNodeLlamaBackend(options: NodeLlamaBackendOptions): LlamaBackend {
  return {
    async load(source, loadOptions) {
      const { signal, onProgress } = loadOptions;
      // The runtime first: without it nothing is worth downloading.
      const rt = await llamaBinding();
      if (source.kind === "blob")
        throw new EdgeError("model_source_unsupported", {}, "In Node, load a model from a file path or a URL.");
      const prepared =
        source.kind === "file"
          ? await prepareLocalFile(source, onProgress, signal)
          : await prepareUrl(source, options.cacheDir, onProgress, signal);
      if (signal?.aborted) throw loadAbortedError();
      return loadModel(rt, prepared, loadOptions);
    },
  };
}
