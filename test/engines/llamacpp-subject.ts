// The llama.cpp engine as a conformance subject, in any environment: give it a backend (node-llama-cpp
// in Node, the wllama worker in Chromium) and the generated test models. Its replies are steered
// by grammars: the call-union grammar for a call (the model picks the arguments — random weights,
// so the suite checks validity, not values), a literal for a text, a fixed-length letter run for a
// long answer. Random weights prove the plumbing (template, tokenizer, grammar, streaming, abort,
// prompt cache), never model quality.
import type { ResponseFormat } from "../../src/engines/engine.ts";
import { toolCallResponseFormat } from "../../src/engines/grammar.ts";
import type { LlamaBackend, ModelSource } from "../../src/engines/llamacpp/backend.ts";
import { LlamaCppEngine } from "../../src/engines/llamacpp/engine.ts";
import { gbnfLiteral } from "../../src/engines/llamacpp/gbnf.ts";
import type { EngineSubject, Reply } from "./conformance.ts";

export interface LlamaSubjectOptions {
  name: string;
  /** One backend for every engine of the run: a failed load must not spoil it. */
  backend: LlamaBackend;
  /** The generated test model. */
  model: ModelSource;
  /** The generated model with a context too small for the tool contract. */
  smallModel: ModelSource;
  /** A file that is not GGUF. */
  notGguf: ModelSource;
  /** 1 on a shared, oversubscribed machine (llama.cpp's thread pool crawls there). */
  threads?: number;
  /** Capabilities["keepsEarlierPrompts"]: true for wllama (llama.cpp's server core). */
  keepsEarlierPrompts?: boolean;
}

function llamaSteer(reply: Reply, tools: Parameters<typeof toolCallResponseFormat>[0]): ResponseFormat {
  if (reply.kind === "call") return toolCallResponseFormat(tools);
  if (reply.kind === "text") return { type: "grammar", grammar: `root ::= ${gbnfLiteral(reply.text)}\n` };
  return { type: "grammar", grammar: `root ::= [a-z ]{${reply.chars}}\n` };
}

export function llamacppSubject(options: LlamaSubjectOptions): EngineSubject {
  const engine = async (model: ModelSource) => {
    const e = new LlamaCppEngine({
      backend: options.backend,
      model,
      ...(options.threads ? { threads: options.threads } : {}),
    });
    await e.load();
    return e;
  };
  return {
    name: options.name,
    capabilities: {
      promptCacheCounts: true,
      contextWindow: true,
      prefixWarm: true,
      keepsEarlierPrompts: options.keepsEarlierPrompts === true,
    },
    create: () => engine(options.model),
    steer: llamaSteer,
    async failingLoad() {
      return {
        engine: new LlamaCppEngine({ backend: options.backend, model: options.notGguf }),
        code: "model_not_gguf",
      };
    },
    smallWindow: () => engine(options.smallModel),
  };
}
