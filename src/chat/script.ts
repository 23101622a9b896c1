// The scripted demo's one script, as every front door reads and plays it (the CLI's --script, the
// playground's script box, `edge learn run`, the widget's `script`): a JSON array of the model's
// successive outputs, each a string (the text as the model would write it) or any other JSON value
// (a tool call written as an object), which is sent as its JSON text. In an output,
// `{{tool_result}}` / `{{tool_result.KEY}}` become the last tool result of the conversation, so a
// scripted answer can quote what the tool really returned.
//
// How it plays: in order, across prompts, and a prompt that starts after the last output was used
// plays the script again from its first. So a one-prompt script (call, then answer: the playground's
// default) replays for every prompt, and a script written for a whole conversation (a different
// answer per prompt) plays through it. Running out in the middle of a prompt is script_exhausted.
import { EdgeError, fixOf } from "../contract/errors.ts";
import { canonicalJson } from "../contract/hash.ts";
import type { ChatMessage } from "../engines/engine.ts";
import { ScriptedEngine, type ScriptedEngineOptions } from "../engines/scripted.ts";
import { toolResultOf } from "./contract.ts";

/** The outputs of a script's text; `what` names it in the message ("--script FILE", "The script"). */
export function parseScript(text: string, what = "The script"): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw EdgeError.withTableFix("script_invalid", {}, `${what} is not valid JSON: ${(err as Error).message}.`);
  }
  return scriptOutputs(value, what);
}

/** The outputs of an already parsed script. */
function scriptOutputs(value: unknown, what = "The script"): string[] {
  if (!Array.isArray(value)) {
    throw EdgeError.withTableFix(
      "script_invalid",
      {},
      `${what} must be a JSON array of the model's outputs (strings, or tool calls as objects), not ${value === null ? "null" : typeof value}.`,
    );
  }
  return value.map((item) => (typeof item === "string" ? item : JSON.stringify(item)));
}

function lastToolResult(messages: readonly ChatMessage[]): unknown {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "tool") return toolResultOf(m.content);
  }
  return undefined;
}

/** `{{tool_result}}` / `{{tool_result.KEY}}` in `text` replaced with the conversation's last tool result. */
export function substituteToolResult(text: string, messages: readonly ChatMessage[]): string {
  if (!text.includes("{{tool_result")) return text;
  const result = lastToolResult(messages);
  return text.replace(/\{\{tool_result(?:\.([A-Za-z0-9_]+))?\}\}/g, (_m, key: string | undefined) => {
    const value =
      key === undefined
        ? result
        : result && typeof result === "object"
          ? (result as Record<string, unknown>)[key]
          : undefined;
    if (value === undefined) return "(no tool result)";
    return typeof value === "string" ? value : canonicalJson(value);
  });
}

/** A ScriptedEngine that plays a script as described above. `outputs` is read at every turn (the
 *  playground's script box can change between prompts). */
export class ScriptPlayer {
  readonly engine: ScriptedEngine;
  /** The index of the next output. */
  private next = 0;
  /** Outputs this prompt has used so far (for the message when it runs out). */
  private usedThisPrompt = 0;

  constructor(
    private readonly outputs: () => readonly string[],
    options: ScriptedEngineOptions = {},
  ) {
    this.engine = new ScriptedEngine((messages) => this.output(messages), options);
  }

  /** Call before each prompt: after the last output, the script starts again. */
  startPrompt(): void {
    if (this.next >= this.outputs().length) this.next = 0;
    this.usedThisPrompt = 0;
  }

  /** Start from the first output at the next turn (the playground, when the script is edited). */
  rewind(): void {
    this.next = 0;
    this.usedThisPrompt = 0;
  }

  private output(messages: readonly ChatMessage[]): string {
    const list = this.outputs();
    const out = list[this.next];
    if (out === undefined) {
      throw new EdgeError(
        "script_exhausted",
        { turn: this.next, scripted: list.length },
        `The script's ${list.length} output(s) ran out: this prompt used ${this.usedThisPrompt} and asked for one more (a call's result goes back to the model, which needs the next output to answer). No model runs; a prompt that starts after the last output plays the script again from its first. ${fixOf("script_exhausted")}`,
      );
    }
    this.next++;
    this.usedThisPrompt++;
    return substituteToolResult(out, messages);
  }
}
