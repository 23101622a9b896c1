// The scripted demo engine as the playground offers it ("Scripted demo (no model)"): the person
// edits the model's successive outputs as a JSON array, played as every front door plays a script
// (src/chat/script.ts: the same format, `{{tool_result.KEY}}`, and a prompt that starts after the
// last output plays it again from its first). No model runs.
import { parseScript, ScriptPlayer } from "../chat/script.ts";
import type { ScriptedEngine } from "../engines/scripted.ts";
import type { FrozenTool } from "../toolset/freeze.ts";
import { exampleArgs } from "./schema-form.ts";

export class PlaygroundScript {
  private source = "[]";
  private readonly player = new ScriptPlayer(() => this.outputs(), { chunkSize: 3, chunkDelayMs: 8 });
  readonly engine: ScriptedEngine = this.player.engine;

  /** The script box's text; an edited script plays from its first output. */
  get text(): string {
    return this.source;
  }
  set text(value: string) {
    if (value !== this.source) this.player.rewind();
    this.source = value;
  }

  /** Call before each prompt. */
  startPrompt(): void {
    this.player.startPrompt();
  }

  /** Parse the script; throws script_invalid with a readable message. */
  outputs(): string[] {
    return parseScript(this.source);
  }
}

/** A sensible default script for the active tools: call the first read tool that takes arguments
 *  (else the first tool) with example arguments, then answer by quoting its result. */
export function defaultScript(active: readonly FrozenTool[]): string {
  const pick =
    active.find(
      (t) =>
        t.schema.execution_level === "read" &&
        Object.keys((t.schema.parameters["properties"] ?? {}) as object).length > 0,
    ) ??
    active.find((t) => t.schema.execution_level === "read") ??
    active[0];
  if (!pick) return JSON.stringify(["Hello! No tools are active, so this is a plain scripted answer."], null, 2);
  const call = { tool_name: pick.schema.name, arguments: exampleArgs(pick.schema.parameters) };
  const answer = pick.schema.return_direct ? null : `${pick.schema.name} returned {{tool_result}}`;
  return JSON.stringify(answer === null ? [call] : [call, answer], null, 2);
}
