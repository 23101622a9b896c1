// The model's own chat template (the GGUF's `tokenizer.chat_template`), rendered with
// @huggingface/jinja — the Jinja implementation Hugging Face's own JavaScript tools use — on the
// real message contents. A template's own logic then applies exactly as the model was trained:
// Llama 3 trims every content, Qwen3 drops think blocks from earlier assistant turns and, with
// `enable_thinking=false`, opens the reply after an empty think block (Edge's non-thinking mode: a
// tool call must be the whole reply). Templates that do not know a variable ignore it.
import { Template } from "@huggingface/jinja";
import type { PromptMessage } from "./backend.ts";

export interface ChatTemplateRenderer {
  /** The prompt text for these messages, ending with the template's generation prompt; throws
   *  when the template refuses them (its own raise_exception). */
  render(messages: readonly PromptMessage[]): string;
}

export interface TemplateSpecials {
  bos: string | null;
  eos: string | null;
}

/** A renderer for the model's template, or undefined when there is none or it does not parse. */
export function chatTemplateRenderer(
  source: string | undefined | null,
  specials: TemplateSpecials,
): ChatTemplateRenderer | undefined {
  if (!source) return undefined;
  let template: Template;
  try {
    template = new Template(source);
  } catch {
    return undefined;
  }
  return {
    render: (messages) =>
      template.render({
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        add_generation_prompt: true,
        bos_token: specials.bos ?? "",
        eos_token: specials.eos ?? "",
        enable_thinking: false,
      }),
  };
}
