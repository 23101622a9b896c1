// `edge chat --interactive` as a person (or a script) uses it: the real CLI as a child process,
// prompts written to its stdin one by one, Ctrl-C sent as SIGINT. Scripted engine; real Node
// runners for the Python tools.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, writeTestFile } from "../../test/cli.ts";
import { startEdgeSession, type EdgeSession } from "../../test/terminal-session.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-cli-interactive-"));
const DATA = join(tmp, "data");
process.env.EDGE_DATA_DIR = DATA;

const TOOLS_PY = `from edgestudio.tools import edge_tool

@edge_tool(description="Add two numbers.")
def add(a: int, b: int) -> int:
    return a + b

@edge_tool(description="Works until stopped.")
def spin() -> str:
    while True:
        pass

@edge_tool(
    description="Send a note.",
    execution_level="commit",
    return_direct=True,
    output_schema={"type": "object", "properties": {"sent": {"type": "string"}}, "required": ["sent"], "additionalProperties": False},
)
def send_note(text: str) -> dict:
    return {"sent": text}
`;
/** Each test its own copy: one of them changes its file on disk. */
const toolsFile = (name: string): string => writeTestFile(tmp, name, TOOLS_PY);

/** Generous: a Python runner boots under load from other work on the machine. */
const WAIT_MS = 40_000;

const call = (tool_name: string, args: object): string => JSON.stringify({ tool_name, arguments: args });

/** `tty`: run edge on a pseudo-terminal, as a person at a terminal does. */
function start(args: string[], outputs: string[], tty = false): EdgeSession {
  const script = writeTestFile(tmp, `script-${Math.random().toString(36).slice(2)}.json`, outputs);
  return startEdgeSession(["chat", "--interactive", "--engine", "scripted", "--script", script, ...args], {
    env: { ...process.env, EDGE_DATA_DIR: DATA },
    waitMs: WAIT_MS,
    tty,
  });
}

/** The JSON Lines of a --json session, one document per turn. */
const turns = (s: EdgeSession): any[] =>
  s
    .out()
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe("edge chat --interactive", () => {
  it("keeps the history across turns, /reset forgets it, /help lists the commands, EOF exits 0", async () => {
    const s = start(["--ctx-size", "4096", "--json"], ["Hello, Ada.", "Your name is Ada.", "I do not know your name."]);
    s.child.stdin.write("My name is Ada.\n");
    await s.waitFor(/Hello, Ada\./);
    s.child.stdin.write("What is my name?\n/help\n/reset\nWhat is my name?\n");
    s.child.stdin.end();
    expect(await s.exit).toBe(0);
    const [first, second, afterReset] = turns(s);
    expect([first.answer, second.answer, afterReset.answer]).toEqual([
      "Hello, Ada.",
      "Your name is Ada.",
      "I do not know your name.",
    ]);
    // The model saw the first turn in the second prompt (the loop counts what it sends), and
    // nothing of it after /reset: the same question costs what a first question costs.
    const tokens = [first, second, afterReset].map((t) => t.receipt.context.prompt_tokens);
    expect(tokens[1]).toBeGreaterThan(tokens[0] + 10);
    expect(tokens[2]).toBeLessThan(tokens[1]);
    expect(tokens[2] - tokens[0]).toBeLessThan(8);
    expect(s.err()).toMatch(/\/reset +forget the conversation/);
    expect(s.err()).toContain("history cleared");
    for (const t of [first, second, afterReset])
      expect(t.receipt).toMatchObject({ kind: "chat", outcome: "answered", id: t.run_id });
  });

  it("/exit leaves at once with exit 0 (later lines are not run); --prompt is the first turn", async () => {
    const s = start(["--prompt", "First."], ["One.", "Two.", "Three."]);
    s.child.stdin.end("Second.\n/exit\nThird.\n");
    expect(await s.exit).toBe(0);
    expect(s.out()).toBe("One.\nTwo.\n");
  });

  it("tools: a call with its receipt, Ctrl-C stops a running tool and the session goes on, a commit tool is pending, a second Ctrl-C leaves", async () => {
    const TOOLS = toolsFile("tools.py");
    const s = start(
      ["--tools", TOOLS, "--timeout-ms", "60000"],
      [call("add", { a: 2, b: 3 }), "2 + 3 = 5.", call("spin", {}), call("send_note", { text: "hi" }), "Still here."],
    );
    await s.waitFor(/tools frozen for this session: add, spin, send_note/);
    s.child.stdin.write("Add 2 and 3.\n");
    await s.waitFor(/2 \+ 3 = 5\.\n[\s\S]*receipt: run_/);
    expect(s.err()).toMatch(/→ add \{"a":2,"b":3\}\n← add: ok/);
    expect(s.err()).toMatch(/outcome: answered, tool calls: 1, receipt: run_\w+/);

    s.child.stdin.write("Spin.\n");
    await s.waitFor(/→ spin/);
    s.child.kill("SIGINT");
    await s.waitFor(
      /outcome: failed_closed, tool calls: 1, receipt: run_\w+\n(?![\s\S]*outcome: answered, tool calls: 1)/,
    );
    expect(s.err()).toMatch(/stopping this turn[\s\S]*← spin: aborted \(aborted\)[\s\S]*failed closed: +aborted/);

    // The session goes on after the abort; a commit tool's call becomes a pending action, printed
    // (stdin is not a terminal: nothing is asked).
    s.child.stdin.write("Send a note.\n");
    await s.waitFor(
      /needs confirmation before it runs[\s\S]*EDGE_DATA_DIR='[^']+' '[^']+' '[^']+\/bin\/edge\.cjs' tools confirm pa_\w+ --token \S+\n/,
    );
    expect(s.err()).toMatch(/→ send_note \{"text":"hi"\}\n← send_note: pending_confirmation/);
    expect(s.err()).not.toContain("[y/N]");

    // The tools file changes on disk: the session says so and keeps the set it froze.
    writeFileSync(TOOLS, "# emptied\n");
    s.child.stdin.write("Are you there?\n");
    await s.waitFor(/Still here\.\n[\s\S]*outcome: answered, tool calls: 0/);
    expect(s.err()).toMatch(/tools\.py changed on disk since this session started[\s\S]*tools_file_changed/);

    s.child.kill("SIGINT");
    await s.waitFor(/Ctrl-C again, \/exit or Ctrl-D to leave/);
    s.child.kill("SIGINT");
    expect(await s.exit).toBe(130);

    // Every turn wrote its receipt, as one-shot chat does; the stopped one records the abort.
    const ids = [...s.err().matchAll(/receipt: (run_\w+)/g)].map((m) => m[1]!);
    const receipts = await Promise.all(ids.map(async (id) => (await cli("receipts", "show", id, "--json")).json));
    expect(receipts.map((r) => [r.outcome, r.code, r.calls.map((c: any) => `${c.tool_name}:${c.status}`)])).toEqual([
      ["answered", null, ["add:ok"]],
      ["failed_closed", "aborted", ["spin:aborted"]],
      ["pending_confirmation", "tool_confirmation_required", ["send_note:pending_confirmation"]],
      ["answered", null, []],
    ]);
    expect(receipts[0].calls[0]).toMatchObject({ tools_file_sha256_verified: true, runner_secret_verified: true });
    // The same frozen tools for the whole session, also after the file changed on disk.
    expect(new Set(receipts.map((r) => r.active_set_sha256)).size).toBe(1);
  }, 240_000); // several runner boots and the first snapshot, one after another, on a loaded machine

  it("on a terminal: a commit tool's pending action is asked y/N inline (no rejects it, yes runs it once); Ctrl-C twice at the prompt leaves", async () => {
    const s = start(
      ["--tools", toolsFile("tty_tools.py")],
      [call("send_note", { text: "no" }), call("send_note", { text: "yes" }), "Bye."],
      true,
    );
    await s.waitFor(/you> /);
    s.child.stdin.write("Send no.\r");
    await s.waitFor(/Run send_note now\? \[y\/N\] /);
    s.child.stdin.write("n\r");
    await s.waitFor(/not run: pending action pa_\w+ rejected/);
    s.child.stdin.write("Send yes.\r");
    await s.waitFor(/Arguments: \{"text":"yes"\}[\s\S]*Run send_note now\? \[y\/N\] /);
    s.child.stdin.write("y\r");
    await s.waitFor(/"sent": "yes"[\s\S]*pa_\w+: done, receipt (confirm_\w+)/);
    const confirmId = /pa_\w+: done, receipt (confirm_\w+)/.exec(s.out())![1]!;
    expect((await cli("receipts", "show", confirmId, "--json")).json).toMatchObject({
      kind: "confirm",
      outcome: "return_direct",
    });
    s.child.stdin.write("Bye?\r");
    await s.waitFor(/Bye\.[\s\S]*outcome: answered[\s\S]*you> /);
    // Ctrl-C as a keypress (readline in raw mode), not a signal.
    s.child.stdin.write("\x03");
    await s.waitFor(/Ctrl-C again, \/exit or Ctrl-D to leave/);
    s.child.stdin.write("\x03");
    expect(await s.exit).toBe(130);
    expect(s.out()).not.toContain('"sent": "no"');
  }, 240_000);
});
