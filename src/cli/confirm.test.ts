// Node parity of the confirmation flow (issue 5 §6): `edge chat --json` reaching a commit tool
// prints the pending action with the exact confirm command; that command (run as a real child
// process) confirms it once; `edge tools pending list|reject`. Real Node runners throughout.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { EXAMPLES, cli } from "../../test/cli.ts";

const BIN = new URL("../../bin/edge.cjs", import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), "edge-cli-confirm-"));
const DATA = join(tmp, "data");
process.env.EDGE_DATA_DIR = DATA;


function script(name: string, outputs: unknown[]): string {
  const file = join(tmp, name);
  writeFileSync(file, JSON.stringify(outputs.map((o) => (typeof o === "string" ? o : JSON.stringify(o)))));
  return file;
}

async function chatToPending(draft: string): Promise<any> {
  const s = script(`submit-${draft}.json`, [{ tool_name: "submit_order", arguments: { draft_id: draft } }]);
  const r = await cli("chat", "--tools", join(EXAMPLES, "tools.py"), "--engine", "scripted", "--script", s, "--prompt", `Submit ${draft}.`, "--json");
  expect(r.code).toBe(1);
  expect(r.json).toMatchObject({ ok: false, outcome: "pending_confirmation", error: { code: "tool_confirmation_required" } });
  return r.json.pending_action;
}

describe("edge chat → edge tools confirm", () => {
  it("prints the pending action and the exact command, which confirms it once (child process)", async () => {
    const p = await chatToPending("D-AB-1-2");
    expect(Object.keys(p).sort()).toEqual(["confirm_command", "confirmation_token", "expires_at", "id", "pending_action_path"]);
    expect(p.confirm_command).toBe(`npx edge tools confirm ${p.id} --token ${p.confirmation_token} --json`);
    expect(p.pending_action_path).toBe(join(DATA, "pending", `${p.id}.json`));
    expect(statSync(p.pending_action_path).mode & 0o777).toBe(0o600);
    expect(readFileSync(p.pending_action_path, "utf8")).not.toContain(p.confirmation_token);

    const listed = await cli("tools", "pending", "list", "--json");
    expect(listed.json.pending.find((v: any) => v.id === p.id)).toMatchObject({ status: "pending", tool_name: "submit_order", arguments: { draft_id: "D-AB-1-2" } });
    expect(JSON.stringify(listed.json)).not.toContain("token_sha256");

    // The printed command, word for word, minus "npx edge".
    const args = (p.confirm_command as string).split(" ").slice(2);
    const child = await promisify(execFile)(process.execPath, [BIN, ...args], { env: { ...process.env, EDGE_DATA_DIR: DATA } });
    const out = JSON.parse(child.stdout);
    expect(out).toMatchObject({ ok: true, status: "done", result: { order_id: "O-AB-1-2", draft_id: "D-AB-1-2", status: "submitted" } });
    expect(Object.keys(out).sort()).toEqual(["ok", "receipt_id", "result", "status"]);
    const receipt = await cli("receipts", "show", out.receipt_id, "--json");
    expect(receipt.code).toBe(0);
    expect(receipt.out).toContain("confirm");

    const again = await cli("tools", "confirm", p.id, "--token", p.confirmation_token, "--json");
    expect(again.code).toBe(1);
    const claimed = { code: "confirmation_already_claimed", message: expect.any(String) };
    expect(again.json).toEqual({ ok: false, status: "done", error: claimed, errors: [claimed] });
  });

  it("refuses a wrong token and a rejected action; accepts the pending file's path as the id", async () => {
    const p = await chatToPending("D-X-1");
    const wrong = await cli("tools", "confirm", p.id, "--token", "A".repeat(43), "--json");
    expect(wrong).toMatchObject({ code: 1, json: { ok: false, status: null, error: { code: "confirmation_token_invalid" } } });
    // In text, a refused token does not read as if the action were gone: it is still pending.
    const text = await cli("tools", "confirm", p.id, "--token", "A".repeat(43));
    expect(text.err).toContain("confirmation_token_invalid");
    expect(text.err).toContain(`${p.id}: not run, still pending`);
    const dashed = await cli("tools", "confirm", p.id, "--token", "-" + "A".repeat(42), "--json");
    expect(dashed).toMatchObject({ code: 1, json: { error: { code: "confirmation_token_invalid" } } });
    const rejected = await cli("tools", "pending", "reject", p.pending_action_path, "--json");
    expect(rejected).toMatchObject({ code: 0, json: { ok: true, status: "rejected" } });
    const after = await cli("tools", "confirm", p.pending_action_path, "--token", p.confirmation_token, "--json");
    expect(after).toMatchObject({ code: 1, json: { ok: false, status: "rejected", error: { code: "confirmation_rejected" } } });
    const unknown = await cli("tools", "confirm", "pa_" + "f".repeat(32), "--token", p.confirmation_token, "--json");
    expect(unknown.json.error.code).toBe("pending_action_not_found");
    expect((await cli("tools", "confirm", "pa_" + "f".repeat(32), "--token", p.confirmation_token)).err).toContain(`pa_${"f".repeat(32)}: no such action`);
    const usage = await cli("tools", "confirm", p.id, "--json");
    expect(usage.code).toBe(2);
  });
});
