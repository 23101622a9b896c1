// What the real-vocabulary fidelity tests compare an engine with: the model's own chat template
// rendered by @huggingface/jinja (a reference Jinja implementation, not a template copied by
// hand), tokenized by the tokenizer package's own tokenizer. Node-only (reads the packages).
import { Template } from "@huggingface/jinja";
import type { ChatMessage } from "../../src/engines/engine.ts";
import { toPromptMessages } from "../../src/engines/llamacpp/engine.ts";
import {
  loadVocabulary,
  referenceTokenizer,
  type ReferenceTokenizer,
  type VocabFamily,
} from "../fixtures/real-vocab.ts";

/** Text a tokenizer gets wrong first: code, JSON, Chinese, emoji (ZWJ sequences, skin tones),
 *  whitespace runs, digits, accents, CRLF. */
export const TOKENIZER_CORPUS: readonly string[] = [
  'def calculate_fee(amount: float, tier: Literal["basic", "pro"] = "basic") -> dict:\n    return {"fee": amount * (0.003 if tier == "basic" else 0.002)}\n',
  '{"tool_name": "fee_quote", "arguments": {"amount": 250.5, "tier": "pro", "note": null, "tags": ["a", "b"]}}',
  "请帮我计算 250 欧元的费用。专业版的费率是多少？谢谢！",
  "emoji 🙂👍🏽 ZWJ 👩‍💻 family 👨‍👩‍👧 flag 🇨🇭 and ❤️",
  "tabs\t\tand   spaces     then\n\n\n\nnewlines   \n  trailing",
  "café naïve Ωmega 東京タワー 12345678901234567890 ''' \"\"\" <<>> ...",
  "    indented\n        deeper\r\n\ttabbed\u00a0nbsp",
];

/** The engine's rendering choice the reference must share: Qwen3 in non-thinking mode (Edge
 *  discourages thinking: a tool call must be the whole reply), which the template spells
 *  `enable_thinking=false` (an empty think block after the assistant header). */
const TEMPLATE_KWARGS: Record<VocabFamily, Record<string, unknown>> = {
  qwen3: { enable_thinking: false },
  "qwen2.5": { enable_thinking: false },
  llama3: {},
};

export interface Reference {
  tokenizer: ReferenceTokenizer;
  /** The template's rendering of what the engine sends for these messages (tool turns as the
   *  loop's user turns), with the generation prompt. */
  render(messages: readonly ChatMessage[]): string;
  tokens(messages: readonly ChatMessage[]): number[];
}

export async function reference(family: VocabFamily): Promise<Reference> {
  const vocab = loadVocabulary(family);
  const template = new Template(vocab.chatTemplate);
  const tokenizer = await referenceTokenizer(family);
  const specials = { bos_token: vocab.tokens[vocab.bosId], eos_token: vocab.tokens[vocab.eosId] };
  const render = (messages: readonly ChatMessage[]) =>
    template.render({
      messages: toPromptMessages(messages),
      add_generation_prompt: true,
      ...specials,
      ...TEMPLATE_KWARGS[family],
    });
  return { tokenizer, render, tokens: (messages) => tokenizer.encode(render(messages), { add_special_tokens: false }) };
}

/** Where two token sequences first differ, with both sides decoded there (for a failure message). */
export function firstDifference(
  tokenizer: ReferenceTokenizer,
  actual: readonly number[],
  expected: readonly number[],
): string | null {
  let i = 0;
  while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
  if (i === actual.length && i === expected.length) return null;
  const show = (t: readonly number[]) => JSON.stringify(tokenizer.decode(t.slice(Math.max(0, i - 3), i + 6)));
  return `differ at token ${i} of ${actual.length} (engine) / ${expected.length} (reference): engine ${show(actual)} [${actual.slice(i, i + 6).join(",")}] vs reference ${show(expected)} [${expected.slice(i, i + 6).join(",")}]`;
}
