// The scripted demo through the real `edge` (bin/edge.cjs as its own process), played as the
// playground plays it (src/chat/script.ts): the playground's object form and {{tool_result.KEY}},
// a script given by bash's process substitution (`--script <(…)`, a pipe named /dev/fd/N), and in
// `chat -i` a one-prompt script replayed for the next prompt instead of running out.
import { closeSync, mkdtempSync, openSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, EXAMPLES, runShell, startNode, writeTestFile } from "../../test/cli.ts";
import { startEdgeSession } from "../../test/terminal-session.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-cli-script-"));
const ENV = { ...process.env, EDGE_DATA_DIR: join(tmp, "data") };
const TOOLS = join(EXAMPLES, "tools.py");
/** The playground's e2e script, as a person copies it from the script box. */
const SCRIPT = [{ tool_name: "fee_quote", arguments: { amount: 250 } }, "The fee for 250 is {{tool_result.fee}} EUR."];

/** `command` run by bash (for its process substitution), to its end. */
const bash = (command: string, env: NodeJS.ProcessEnv) => runShell(command, { shell: "bash", env });

describe("edge chat --engine scripted: one script format and behaviour with the playground", () => {
  it("--script <(…) reads the pipe; tool calls as objects; {{tool_result.KEY}} is the tool's real result", {
    timeout: 90_000,
  }, async () => {
    const r = await bash(
      `exec "${process.execPath}" "${BIN}" chat --tools "${TOOLS}" --tool fee_quote --engine scripted --script <(printf %s "$SCRIPT") --prompt "Fee for 250?" --json`,
      {
        ...ENV,
        SCRIPT: JSON.stringify(SCRIPT),
      },
    );
    expect(r.code, r.out + r.err).toBe(0);
    const run = JSON.parse(r.out);
    expect(run).toMatchObject({ ok: true, outcome: "answered", answer: "The fee for 250 is 0.75 EUR." });
    expect(run.receipt.calls).toMatchObject([{ tool_name: "fee_quote", status: "ok" }]);
  });

  it("a script that is not an array of outputs is script_invalid, naming the file", async () => {
    const bad = writeTestFile(tmp, "bad.json", { outputs: ["x"] });
    const r = await bash(
      `exec "${process.execPath}" "${BIN}" chat --engine scripted --script "${bad}" --prompt q --json`,
      ENV,
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).error).toMatchObject({ code: "script_invalid" });
    expect(JSON.parse(r.out).error.message).toContain(`--script ${bad} must be a JSON array of the model's outputs`);
  });

  it("chat -i replays a one-prompt script for every prompt, as the playground does", { timeout: 120_000 }, async () => {
    const script = writeTestFile(tmp, "fee.json", SCRIPT);
    const s = startEdgeSession(
      [
        "chat",
        "--interactive",
        "--tools",
        TOOLS,
        "--tool",
        "fee_quote",
        "--engine",
        "scripted",
        "--script",
        script,
        "--json",
      ],
      { env: ENV, waitMs: 60_000 },
    );
    s.child.stdin.end("Fee for 250?\nAnd once more?\nA third time?\n");
    expect(await s.exit, s.err()).toBe(0);
    const turns = s
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(turns.map((t) => t.answer)).toEqual(Array(3).fill("The fee for 250 is 0.75 EUR."));
    for (const t of turns) expect(t.receipt.calls).toMatchObject([{ tool_name: "fee_quote", status: "ok" }]);
  });

  it("a descriptor named as the script is read through a close-on-exec copy: no runner can inherit it", {
    timeout: 30_000,
  }, async () => {
    const file = writeTestFile(tmp, "by-fd.json", ["from fd 97"]);
    const fd = openSync(file, "r");
    const probe = `
      const { reopenNamedDescriptors } = await import("./src/cli/named-descriptors.ts");
      const { closeInheritedDescriptors, inheritableDescriptors } = await import("./src/runner/descriptors.ts");
      const argv = reopenNamedDescriptors(["--script", "/dev/fd/97", "--script=/dev/fd/97", "/dev/fd/1"]);
      closeInheritedDescriptors();
      const text = require("node:fs").readFileSync(argv[1], "utf8");
      console.log(JSON.stringify({ argv, left: inheritableDescriptors(), text }));`;
    try {
      const r = await startNode(["--import", "tsx", "--input-type=commonjs", "-e", `(async () => {${probe}})()`], ENV, {
        97: fd,
      }).done;
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.argv[0]).toBe("--script");
      expect(out.argv[1]).toMatch(/^\/dev\/fd\/\d+$/);
      expect(out.argv[1]).not.toBe("/dev/fd/97");
      expect(out.argv[2]).toMatch(/^--script=\/dev\/fd\/\d+$/);
      expect(out.argv[3]).toBe("/dev/fd/1"); // stdio is not closed, so not copied
      expect(out.left).toEqual([]);
      expect(JSON.parse(out.text)).toEqual(["from fd 97"]);
    } finally {
      closeSync(fd);
    }
    // And through the real CLI.
    const fd2 = openSync(file, "r");
    try {
      const r = await startNode(
        [BIN, "chat", "--engine", "scripted", "--script", "/dev/fd/97", "--prompt", "q", "--json"],
        ENV,
        { 97: fd2 },
      ).done;
      expect(JSON.parse(r.stdout), r.stderr).toMatchObject({ ok: true, answer: "from fd 97" });
    } finally {
      closeSync(fd2);
    }
  });
});
