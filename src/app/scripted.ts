// The scripted demo engine as the playground offers it ("Scripted demo (no model)"): the person
// edits the model's successive outputs as a JSON array; each prompt replays the array from its
// start. `{{tool_result}}` / `{{tool_result.KEY}}` in an output are replaced with the last tool
// result, so a demo answer can quote what the tool really returned. No model runs.
import { EdgeError } from "../contract/errors.ts";
import { canonicalJson } from "../contract/hash.ts";
import { toolResultOf } from "../chat/contract.ts";
import type { ChatMessage } from "../engines/engine.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import type { FrozenTool } from "../toolset/freeze.ts";
import { exampleArgs } from "./schema-form.ts";

export class PlaygroundScript {
  text = "[]";
  /** engine.turnsUsed when the current prompt started: every prompt replays from output 0. */
  private base = 0;
  readonly engine: ScriptedEngine;

  constructor() {
    this.engine = new ScriptedEngine((messages, turn) => this.output(messages, turn - this.base), { chunkSize: 3, chunkDelayMs: 8 });
  }

  /** Call before each prompt. */
  startPrompt(): void {
    this.base = this.engine.turnsUsed;
  }

  /** Parse the script; throws with a readable message. */
  outputs(): string[] {
    let value: unknown;
    try {
      value = JSON.parse(this.text);
    } catch (err) {
      throw EdgeError.withTableFix("script_invalid", {}, `The script is not valid JSON: ${(err as Error).message}.`);
    }
    if (!Array.isArray(value)) throw EdgeError.withTableFix("script_invalid", {}, `The script must be a JSON array of outputs.`);
    return value.map((item) => (typeof item === "string" ? item : JSON.stringify(item)));
  }

  private output(messages: readonly ChatMessage[], index: number): string | undefined {
    const list = this.outputs();
    const out = list[index];
    return out === undefined ? undefined : substitute(out, messages);
  }
}

function lastToolResult(messages: readonly ChatMessage[]): unknown {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "tool") return toolResultOf(m.content);
  }
  return undefined;
}

function substitute(text: string, messages: readonly ChatMessage[]): string {
  if (!text.includes("{{tool_result")) return text;
  const result = lastToolResult(messages);
  return text.replace(/\{\{tool_result(?:\.([A-Za-z0-9_]+))?\}\}/g, (_m, key: string | undefined) => {
    const value = key === undefined ? result : result && typeof result === "object" ? (result as Record<string, unknown>)[key] : undefined;
    if (value === undefined) return "(no tool result)";
    return typeof value === "string" ? value : canonicalJson(value);
  });
}

/** A sensible default script for the active tools: call the first read tool that takes arguments
 *  (else the first tool) with example arguments, then answer by quoting its result. */
export function defaultScript(active: readonly FrozenTool[]): string {
  const pick =
    active.find((t) => t.schema.execution_level === "read" && Object.keys((t.schema.parameters["properties"] ?? {}) as object).length > 0) ??
    active.find((t) => t.schema.execution_level === "read") ??
    active[0];
  if (!pick) return JSON.stringify(["Hello! No tools are active, so this is a plain scripted answer."], null, 2);
  const call = { tool_name: pick.schema.name, arguments: exampleArgs(pick.schema.parameters) };
  const answer = pick.schema.return_direct ? null : `${pick.schema.name} returned {{tool_result}}`;
  return JSON.stringify(answer === null ? [call] : [call, answer], null, 2);
}
