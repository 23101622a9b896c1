// The one script of the scripted demo (src/chat/script.ts), as the CLI and the playground both play
// it: both forms of an output, {{tool_result.KEY}}, replay at a prompt that starts after the last
// output, a conversation-long script played through, and running out inside a prompt.
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../engines/engine.ts";
import { parseScript, ScriptPlayer, substituteToolResult } from "./script.ts";
import { renderToolResult } from "./contract.ts";
import { rejection } from "../../test/fixtures/edge-error.ts";

const ask = (content: string): ChatMessage[] => [
  { role: "system", content: "s" },
  { role: "user", content },
];
const afterTool = (result: unknown): ChatMessage[] => [
  ...ask("q"),
  { role: "assistant", content: "{}" },
  { role: "tool", content: renderToolResult("fee_quote", result) },
];

async function play(player: ScriptPlayer, messages: ChatMessage[]): Promise<string> {
  return (await player.engine.chat({ messages })).text;
}

describe("the script format", () => {
  it("takes strings as they are and any other JSON value (a tool call object) as its JSON text", () => {
    expect(
      parseScript('[{"tool_name": "fee_quote", "arguments": {"amount": 250}}, "The fee is {{tool_result.fee}}."]'),
    ).toEqual(['{"tool_name":"fee_quote","arguments":{"amount":250}}', "The fee is {{tool_result.fee}}."]);
  });

  it("refuses what is not a JSON array, with script_invalid naming the script", () => {
    expect(() => parseScript("[1,", "--script a.json")).toThrow(/--script a\.json is not valid JSON/);
    let err: unknown;
    try {
      parseScript('{"outputs": []}', "--script a.json");
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: "script_invalid" });
    expect((err as Error).message).toContain("--script a.json must be a JSON array of the model's outputs");
  });

  it("puts the last tool result in for {{tool_result}} and {{tool_result.KEY}}", () => {
    const messages = afterTool({ fee: 0.75, tier: "basic", nested: { a: 1 } });
    expect(
      substituteToolResult(
        "{{tool_result.fee}} EUR ({{tool_result.tier}}), {{tool_result.nested}}, {{tool_result.none}}",
        messages,
      ),
    ).toBe('0.75 EUR (basic), {"a":1}, (no tool result)');
    expect(substituteToolResult("got {{tool_result}}", afterTool("plain"))).toBe("got plain");
    expect(substituteToolResult("{{tool_result.fee}}", ask("q"))).toBe("(no tool result)");
  });
});

describe("ScriptPlayer", () => {
  it("replays a one-prompt script (call, answer) for every prompt, substituting each prompt's result", async () => {
    const player = new ScriptPlayer(() =>
      parseScript('[{"tool_name": "fee_quote", "arguments": {}}, "Fee {{tool_result.fee}}."]'),
    );
    await player.engine.load();
    for (const fee of [1, 2, 3]) {
      player.startPrompt();
      expect(await play(player, ask("fee?"))).toBe('{"tool_name":"fee_quote","arguments":{}}');
      expect(await play(player, afterTool({ fee }))).toBe(`Fee ${fee}.`);
    }
  });

  it("plays a conversation-long script through, one prompt after another, then starts again", async () => {
    const player = new ScriptPlayer(() => ["One.", "Two."]);
    await player.engine.load();
    const answers: string[] = [];
    for (let i = 0; i < 3; i++) {
      player.startPrompt();
      answers.push(await play(player, ask(`p${i}`)));
    }
    expect(answers).toEqual(["One.", "Two.", "One."]);
  });

  it("running out inside a prompt is script_exhausted, saying how many outputs the script has", async () => {
    const player = new ScriptPlayer(() => ['{"tool_name": "a", "arguments": {}}']);
    await player.engine.load();
    player.startPrompt();
    await play(player, ask("q"));
    const err = await rejection(player.engine.chat({ messages: afterTool(1) }));
    expect(err.code).toBe("script_exhausted");
    expect(err.message).toContain("The script's 1 output(s) ran out: this prompt used 1 and asked for one more");
  });

  it("an edited script (rewind) plays from its first output", async () => {
    let outputs = ["a", "b", "c"];
    const player = new ScriptPlayer(() => outputs);
    await player.engine.load();
    player.startPrompt();
    expect(await play(player, ask("q"))).toBe("a");
    outputs = ["x", "y"];
    player.rewind();
    player.startPrompt();
    expect(await play(player, ask("q"))).toBe("x");
  });
});
