// The three ways eval:tools asks a model for its next turn, on the same weights, greedy, with the
// same answer budget:
//   edge_guided — Edge's contract (the system message the loop sends) and the loop's checked turn
//                 for --tool-choice auto (src/chat/model-turn.ts: a guided call proposed, checked by
//                 the model, else a plain-text answer): what `edge chat --model` runs
//   native      — the anchor: the model's own chat-template tool calling through llama.cpp's native
//                 support, node-llama-cpp's function calling (LlamaChat + functions: the chat
//                 wrapper renders the tools its way, detects a call and constrains its parameters
//                 with their schema; for a template without a tools section it uses its generic
//                 syntax)
//   edge_free   — Edge's contract without a grammar (the loop's parser decides what came out)
//   edge_single — (on request: --modes) Edge's contract and ONE guided generation per turn, a call or
//                 a plain answer under one grammar: what web-llm runs, and what llama.cpp ran before
//                 checked turns — the ablation that says what the check adds
// Each returns what the turn was (a call, an answer or a broken call), its prompt's token count and
// its wall time.
import { EdgeError } from "../src/contract/errors.ts";
import type { JsonObject, ToolSchema } from "../src/contract/types.ts";
import { renderToolContract, renderToolResult } from "../src/chat/contract.ts";
import { parseModelOutput } from "../src/chat/parse.ts";
import { splitThink } from "../src/chat/think.ts";
import type { ChatMessage } from "../src/engines/engine.ts";
import { createNodeLlamaCppEngine } from "../src/engines/llamacpp/node/index.ts";
import type { LlamaCppEngine } from "../src/engines/llamacpp/engine.ts";
import { llamaBinding } from "../src/engines/llamacpp/node/binding.ts";
import { toolTurnPolicy } from "../src/engines/tool-turn.ts";
import { checkedTurn } from "../src/chat/model-turn.ts";
import type { Outcome } from "./score.ts";

export type ModeName = "edge_guided" | "native" | "edge_free" | "edge_single";
/** What a run measures unless --modes says otherwise. */
export const MODES: readonly ModeName[] = ["edge_guided", "native", "edge_free"];
export const ALL_MODES: readonly ModeName[] = [...MODES, "edge_single"];
/** The modes run on Edge's own engine, in order. */
export const EDGE_MODES = ["edge_guided", "edge_single", "edge_free"] as const;
export type EdgeModeName = (typeof EDGE_MODES)[number];

/** An earlier call in this prompt and its result. */
export interface HistoryStep {
  call: { tool_name: string; arguments: JsonObject };
  result: JsonObject;
}

export interface Turn {
  prompt: string;
  history: readonly HistoryStep[];
  schemas: readonly ToolSchema[];
}

export interface TurnResult {
  outcome: Outcome;
  promptTokens: number;
  ms: number;
  /** The model's raw text (for the report; cut to 300 characters there). */
  text: string;
  /** edge_guided: what the check said of the proposed call ("send_email yes", "hello_world no", "cut_off"…). */
  check?: string;
  /** edge_guided under --calibrate: both weighed signals (src/chat/check-calibration.ts). */
  measured?: { callStart?: number; check?: number };
  /** The reply ran to the answer budget (a loop, or a string that never ends). */
  atBudget?: boolean;
}

export interface ModeRunner {
  readonly name: ModeName;
  next(turn: Turn): Promise<TurnResult>;
  /** Prompt tokens of a one-word question with these tools (what the tools cost a prompt). */
  promptTokens(schemas: readonly ToolSchema[]): Promise<number>;
}

export interface EvalModel {
  path: string;
  threads: number;
  /** Answer budget per turn, the same in every mode. */
  maxTokens: number;
}

/** The messages the loop sends for this turn (src/chat/loop.ts): the contract as the system
 *  message, the question, then each earlier call as the model wrote it and its result. */
function edgeMessages(turn: Turn): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: "system", content: renderToolContract(turn.schemas) },
    { role: "user", content: turn.prompt },
  ];
  for (const step of turn.history) {
    // The guided grammar writes calls compact, tool_name first.
    messages.push({
      role: "assistant",
      content: JSON.stringify({ tool_name: step.call.tool_name, arguments: step.call.arguments }),
    });
    messages.push({ role: "tool", content: renderToolResult(step.call.tool_name, step.result) });
  }
  return messages;
}

/** The loop's reading of a reply: think blocks aside, then the contract's parser. */
function outcomeOfEdgeText(text: string): Outcome {
  const parsed = parseModelOutput(splitThink(text).visible);
  switch (parsed.kind) {
    case "call":
      return { kind: "call", tool: parsed.toolName, arguments: parsed.args };
    case "answer":
      // An empty reply is no answer: the loop fails it closed (model_output_empty).
      return parsed.text ? { kind: "answer", text: parsed.text } : { kind: "invalid", reason: "an empty reply", text };
    case "invalid":
      return { kind: "invalid", reason: parsed.reason, text };
    default:
      return { kind: "invalid", reason: `an output of ${parsed.chars} characters`, text };
  }
}

export async function loadEdgeEngine(model: EvalModel): Promise<LlamaCppEngine> {
  const engine = createNodeLlamaCppEngine({
    model: { kind: "file", path: model.path },
    threads: model.threads,
    contextSize: 4096,
  });
  await engine.load();
  return engine;
}

/** One of Edge's modes on a loaded engine. */
export function edgeMode(
  engine: LlamaCppEngine,
  model: EvalModel,
  name: EdgeModeName,
  calibration?: "measure",
): ModeRunner {
  const policy = toolTurnPolicy(engine.info(), "auto");
  const count = async (messages: ChatMessage[]): Promise<number> => (await engine.promptTokens!(messages)).length;
  return {
    name,
    async next(turn) {
      const messages = edgeMessages(turn);
      const sampling = {
        maxTokens: model.maxTokens,
        ...(policy.temperature !== undefined ? { temperature: policy.temperature } : {}),
      };
      const single =
        name === "edge_single"
          ? { responseFormat: policy.responseFormat!(turn.schemas, { index: turn.history.length }) }
          : {};
      const start = performance.now();
      // edge_guided is the loop's checked turn (propose → check → answer); the others one generation.
      const r =
        name === "edge_guided"
          ? await checkedTurn({
              engine,
              messages,
              prompt: turn.prompt,
              schemas: turn.schemas,
              kind: "checked",
              ranCalls: turn.history.map((h) => h.call),
              ...sampling,
              ...(calibration ? { calibration } : {}),
            })
          : { result: await engine.chat({ messages, ...sampling, ...single }), answerOnly: false };
      const ms = performance.now() - start;
      const text = r.result.text;
      const outcome: Outcome = r.answerOnly
        ? { kind: "answer", text: splitThink(text).visible.trim() }
        : outcomeOfEdgeText(text);
      const checked = "check" in r ? r.check : undefined;
      const check = checked ? `${checked.tool_name} ${checked.verdict}` : undefined;
      return {
        outcome,
        promptTokens: await count(messages),
        ms,
        text,
        atBudget: r.result.finishReason === "length",
        ...(check ? { check } : {}),
        ...("measured" in r && r.measured ? { measured: r.measured } : {}),
      };
    },
    promptTokens: (schemas) => count(edgeMessages({ prompt: "Hi", history: [], schemas })),
  };
}

// node-llama-cpp's function calling, typed for what the anchor uses (the runtime is optional, so the
// project does not import its types; src/engines/llamacpp/node/binding.ts does the same).
type NativeFunctions = Record<string, { description?: string; params: JsonObject }>;
type NativeHistoryItem =
  | { type: "user"; text: string }
  | {
      type: "model";
      response: ({ type: "functionCall"; name: string; params: JsonObject; result: JsonObject } | string)[];
    };
interface NativeContextText {
  tokenize(tokenizer: unknown): unknown[];
}
interface NativeChat {
  readonly chatWrapper: {
    readonly wrapperName: string;
    generateContextState(options: {
      chatHistory: NativeHistoryItem[];
      availableFunctions?: NativeFunctions;
      documentFunctionParams?: boolean;
    }): { contextText: NativeContextText };
  };
  generateResponse(
    history: NativeHistoryItem[],
    options: {
      functions: NativeFunctions;
      documentFunctionParams: boolean;
      maxParallelFunctionCalls: number;
      temperature: number;
      maxTokens: number;
    },
  ): Promise<{
    response: string;
    functionCalls?: { functionName: string; params: unknown }[];
    metadata?: { stopReason: string };
  }>;
  dispose(): void;
}
interface NativeModel {
  readonly tokenizer: unknown;
  createContext(options: {
    contextSize: number;
    threads: number;
  }): Promise<{ getSequence(): unknown; dispose(): Promise<void> }>;
  dispose(): Promise<void>;
}
interface NativeModule {
  LlamaChat: new (options: { contextSequence: unknown }) => NativeChat;
}

export interface NativeMode extends ModeRunner {
  /** The chat wrapper node-llama-cpp chose for the model's template ("Qwen", "ChatML"…). */
  readonly wrapper: string;
  close(): Promise<void>;
}

function nativeFunctions(schemas: readonly ToolSchema[]): NativeFunctions {
  return Object.fromEntries(
    schemas.map((s) => [s.name, { ...(s.description ? { description: s.description } : {}), params: s.parameters }]),
  );
}

function nativeHistory(turn: Turn): NativeHistoryItem[] {
  const history: NativeHistoryItem[] = [{ type: "user", text: turn.prompt }];
  const calls = turn.history.map((s) => ({
    type: "functionCall" as const,
    name: s.call.tool_name,
    params: s.call.arguments,
    result: s.result,
  }));
  history.push({ type: "model", response: calls });
  return history;
}

export async function nativeMode(model: EvalModel): Promise<NativeMode> {
  const rt = await llamaBinding();
  const specifier = "node-llama-cpp";
  const module = (await import(/* @vite-ignore */ specifier)) as NativeModule;
  const loaded = (await rt.llama.loadModel({ modelPath: model.path, gpuLayers: 0 })) as NativeModel;
  const context = await loaded.createContext({ contextSize: 4096, threads: model.threads });
  const chat = new module.LlamaChat({ contextSequence: context.getSequence() });
  const tokens = (turn: Turn): number =>
    chat.chatWrapper
      .generateContextState({
        chatHistory: nativeHistory(turn),
        availableFunctions: nativeFunctions(turn.schemas),
        documentFunctionParams: true,
      })
      .contextText.tokenize(loaded.tokenizer).length;
  return {
    name: "native",
    wrapper: chat.chatWrapper.wrapperName,
    async next(turn) {
      const start = performance.now();
      let r: Awaited<ReturnType<NativeChat["generateResponse"]>>;
      try {
        r = await chat.generateResponse(nativeHistory(turn), {
          functions: nativeFunctions(turn.schemas),
          documentFunctionParams: true,
          maxParallelFunctionCalls: 1,
          temperature: 0,
          maxTokens: model.maxTokens,
        });
      } catch (e) {
        // node-llama-cpp throws on a call it cannot parse (an unknown function name, bad params).
        return {
          outcome: { kind: "invalid", reason: String(e), text: "" },
          promptTokens: tokens(turn),
          ms: performance.now() - start,
          text: "",
        };
      }
      const ms = performance.now() - start;
      const call = r.functionCalls?.[0];
      const outcome: Outcome = call
        ? { kind: "call", tool: call.functionName, arguments: (call.params ?? {}) as JsonObject }
        : r.response.trim()
          ? { kind: "answer", text: r.response.trim() }
          : { kind: "invalid", reason: "an empty reply", text: r.response };
      return {
        outcome,
        promptTokens: tokens(turn),
        ms,
        text: r.response,
        atBudget: r.metadata?.stopReason === "maxTokens",
      };
    },
    promptTokens: async (schemas) => tokens({ prompt: "Hi", history: [], schemas }),
    async close() {
      chat.dispose();
      await context.dispose();
      await loaded.dispose();
    },
  };
}

/** An engine failure during one case is that case's outcome, not the end of the eval. */
export function failedTurn(e: unknown): TurnResult {
  const reason = e instanceof EdgeError ? `${e.code}: ${e.message}` : String(e);
  return { outcome: { kind: "invalid", reason, text: "" }, promptTokens: 0, ms: 0, text: "" };
}
