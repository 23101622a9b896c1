// The confirm command `edge tools call`, `edge chat` and `edge chat -i` print with a pending action
// runs as printed: pasted into a shell, in a folder outside the checkout, with no EDGE_DATA_DIR set
// (`npx edge` would find another package there, or none, and the default data folder). The same
// command `edge mcp serve` prints (src/cli/mcp.stdio.test.ts). Real CLI processes, real runners.
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, EXAMPLES, edgeCliIn, runAsPrinted, writeTestFile } from "../../test/cli.ts";
import { shellQuote } from "../platform/shell.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-cli-printed-"));
// A data folder whose name needs quoting (a space and a quote).
const DATA = join(tmp, "Edge's data");
// Where the person ran the command that printed it: not the checkout either.
const CWD = join(tmp, "work");
mkdirSync(CWD);
const ENV = { ...process.env, EDGE_DATA_DIR: DATA };
const TOOLS = join(EXAMPLES, "tools.py");

/** The command printed under "ID needs confirmation before it runs (expires …):". */
function printedCommand(out: string): { command: string; id: string } {
  const m = /(pa_[0-9a-f]{32}) needs confirmation before it runs \(expires [^)]+\):\n {2}(.+)\n/.exec(out);
  expect(m, out).not.toBeNull();
  return { id: m![1]!, command: m![2]! };
}

async function confirmsAsPrinted(out: string, draft: string): Promise<void> {
  const { id, command } = printedCommand(out);
  expect(command).toMatch(
    new RegExp(
      `^EDGE_DATA_DIR=${escapeRe(shellQuote(DATA))} ${escapeRe(shellQuote(process.execPath))} ${escapeRe(shellQuote(BIN))} tools confirm ${id} --token [A-Za-z0-9_-]+$`,
    ),
  );
  const ran = await runAsPrinted(command);
  expect(ran.code, ran.err).toBe(0);
  expect(ran.out).toContain(`"order_id": "O-${draft.slice(2)}"`);
  expect(ran.err).toContain(`${id}: done, receipt confirm_${id}`);
  // Once: the same command again is refused.
  const again = await runAsPrinted(command);
  expect(again.code).toBe(1);
  expect(again.err).toContain("confirmation_already_claimed");
}

const escapeRe = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const submit = (draft: string): string =>
  writeTestFile(tmp, `submit-${draft}.json`, [{ tool_name: "submit_order", arguments: { draft_id: draft } }]);

describe("the printed confirm command runs as printed from any folder", () => {
  it("edge tools call", { timeout: 120_000 }, async () => {
    const r = await edgeCliIn(CWD, ENV, "tools", "call", TOOLS, "submit_order", "--args", '{"draft_id": "D-PC-1-1"}');
    expect(r.code, r.err).toBe(1);
    await confirmsAsPrinted(r.out, "D-PC-1-1");
  });

  it("edge chat", { timeout: 120_000 }, async () => {
    const r = await edgeCliIn(
      CWD,
      ENV,
      "chat",
      "--tools",
      TOOLS,
      "--engine",
      "scripted",
      "--script",
      submit("D-PC-2-1"),
      "--prompt",
      "Submit D-PC-2-1.",
    );
    expect(r.code, r.err).toBe(1);
    await confirmsAsPrinted(r.out, "D-PC-2-1");
  });

  it("edge chat --interactive (input not a terminal: the command is printed, nothing asked)", {
    timeout: 120_000,
  }, async () => {
    const r = await edgeCliIn(
      CWD,
      ENV,
      "chat",
      "--interactive",
      "--tools",
      TOOLS,
      "--engine",
      "scripted",
      "--script",
      submit("D-PC-3-1"),
      "--prompt",
      "Submit D-PC-3-1.",
    );
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toContain("[y/N]");
    await confirmsAsPrinted(r.out, "D-PC-3-1");
  });

  it("edge chat --json gives the same command in pending_action.confirm_command", { timeout: 120_000 }, async () => {
    const r = await edgeCliIn(
      CWD,
      ENV,
      "chat",
      "--tools",
      TOOLS,
      "--engine",
      "scripted",
      "--script",
      submit("D-PC-4-1"),
      "--prompt",
      "Submit D-PC-4-1.",
      "--json",
    );
    const p = r.json.pending_action;
    expect(p.confirm_command).toBe(
      `EDGE_DATA_DIR=${shellQuote(DATA)} ${shellQuote(process.execPath)} ${shellQuote(BIN)} tools confirm ${p.id} --token ${p.confirmation_token}`,
    );
    const ran = await runAsPrinted(p.confirm_command);
    expect(ran.code, ran.err).toBe(0);
  });
});
