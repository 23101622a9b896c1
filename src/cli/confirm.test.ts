// Node parity of the confirmation flow: `edge chat --json` reaching a commit tool
// prints the pending action with the exact confirm command; that command (run as a real child
// process) confirms it once; `edge tools pending list|reject`. Real Node runners throughout.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLES, cli, runAsPrinted } from "../../test/cli.ts";
import { confirmCommand, thisInstallation } from "../confirm/node-broker.ts";
import { chainReceipt, toJsonLines } from "../receipts/chain.ts";
import type { Receipt } from "../receipts/types.ts";

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
  const r = await cli(
    "chat",
    "--tools",
    join(EXAMPLES, "tools.py"),
    "--engine",
    "scripted",
    "--script",
    s,
    "--prompt",
    `Submit ${draft}.`,
    "--json",
  );
  expect(r.code).toBe(1);
  expect(r.json).toMatchObject({
    ok: false,
    outcome: "pending_confirmation",
    error: { code: "tool_confirmation_required" },
  });
  return r.json.pending_action;
}

describe("edge chat → edge tools confirm", () => {
  it("prints the pending action and the exact command, which confirms it once (child process)", async () => {
    const p = await chatToPending("D-AB-1-2");
    expect(Object.keys(p).sort()).toEqual([
      "confirm_command",
      "confirmation_token",
      "expires_at",
      "id",
      "pending_action_path",
      "reject_command",
    ]);
    expect(p.confirm_command).toBe(confirmCommand(p.id, p.confirmation_token, thisInstallation(DATA)));
    expect(p.pending_action_path).toBe(join(DATA, "pending", `${p.id}.json`));
    expect(statSync(p.pending_action_path).mode & 0o777).toBe(0o600);
    expect(readFileSync(p.pending_action_path, "utf8")).not.toContain(p.confirmation_token);

    const listed = await cli("tools", "pending", "list", "--json");
    expect(listed.json.pending.find((v: any) => v.id === p.id)).toMatchObject({
      status: "pending",
      tool_name: "submit_order",
      arguments: { draft_id: "D-AB-1-2" },
    });
    expect(JSON.stringify(listed.json)).not.toContain("token_sha256");

    // The printed command, word for word, in a shell elsewhere (a program adds --json).
    const child = await runAsPrinted(`${p.confirm_command} --json`);
    expect(child.code, child.err).toBe(0);
    const out = JSON.parse(child.out);
    expect(out).toMatchObject({
      ok: true,
      status: "done",
      result: { order_id: "O-AB-1-2", draft_id: "D-AB-1-2", status: "submitted" },
    });
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
    expect(wrong).toMatchObject({
      code: 1,
      json: { ok: false, status: null, error: { code: "confirmation_token_invalid" } },
    });
    // In text, a refused token does not read as if the action were gone: it is still pending.
    const text = await cli("tools", "confirm", p.id, "--token", "A".repeat(43));
    expect(text.err).toContain("confirmation_token_invalid");
    expect(text.err).toContain(`${p.id}: not run, still pending`);
    const dashed = await cli("tools", "confirm", p.id, "--token", "-" + "A".repeat(42), "--json");
    expect(dashed).toMatchObject({ code: 1, json: { error: { code: "confirmation_token_invalid" } } });
    const rejected = await cli("tools", "pending", "reject", p.pending_action_path, "--json");
    expect(rejected).toMatchObject({ code: 0, json: { ok: true, status: "rejected" } });
    const after = await cli("tools", "confirm", p.pending_action_path, "--token", p.confirmation_token, "--json");
    expect(after).toMatchObject({
      code: 1,
      json: { ok: false, status: "rejected", error: { code: "confirmation_rejected" } },
    });
    const unknown = await cli("tools", "confirm", "pa_" + "f".repeat(32), "--token", p.confirmation_token, "--json");
    expect(unknown.json.error.code).toBe("pending_action_not_found");
    expect((await cli("tools", "confirm", "pa_" + "f".repeat(32), "--token", p.confirmation_token)).err).toContain(
      `pa_${"f".repeat(32)}: no such action`,
    );
    const usage = await cli("tools", "confirm", p.id, "--json");
    expect(usage.code).toBe(2);
  });

  it("a pending file restored from an older copy cannot replay its token: the receipt chain says it ran (confirmation_replayed)", async () => {
    const p = await chatToPending("D-R-1");
    const before = readFileSync(p.pending_action_path);
    const first = await cli("tools", "confirm", p.id, "--token", p.confirmation_token, "--json");
    expect(first.json).toMatchObject({ ok: true, status: "done", receipt_id: `confirm_${p.id}` });
    // A backup, a sync conflict or a restored CI cache puts the pending record back as it was.
    writeFileSync(p.pending_action_path, before);
    expect((await cli("tools", "pending", "show", p.id, "--json")).json.pending.status).toBe("pending");
    const again = await cli("tools", "confirm", p.id, "--token", p.confirmation_token, "--json");
    expect(again.code).toBe(1);
    expect(again.json).toMatchObject({
      ok: false,
      status: "done",
      error: { code: "confirmation_replayed", message: expect.stringContaining(`confirm receipt confirm_${p.id}`) },
    });
    // Nothing ran twice: one confirm receipt for the action, and the record says so again.
    const receipts = (await cli("receipts", "list", "--json")).json.receipts as Receipt[];
    expect(receipts.filter((r) => r.kind === "confirm" && r.extra?.pending_action_id === p.id)).toHaveLength(1);
    expect(receipts.find((r) => r.id === first.json.receipt_id)).toMatchObject({ confirmed_via: "terminal" });
    expect((await cli("tools", "pending", "show", p.id, "--json")).json.pending).toMatchObject({
      status: "done",
      receipt_id: first.json.receipt_id,
    });
  });

  it("receipts verify flags two confirm receipts for one pending action (receipt_confirm_duplicated), though every link holds", async () => {
    const p = await chatToPending("D-R-2");
    expect((await cli("tools", "confirm", p.id, "--token", p.confirmation_token, "--json")).json.ok).toBe(true);
    const stored = (await cli("receipts", "list", "--json")).json.receipts as Receipt[];
    const ran = stored.find((r) => r.id === `confirm_${p.id}`)!;
    // The chain an earlier Edge could write when a restored pending file ran again: a second confirm
    // receipt for the same action, under its own id, correctly chained.
    const { seq: _s, prev_receipt_sha256: _p, receipt_sha256: _h, ...body } = ran;
    const replay = await chainReceipt({ ...body, id: "confirm_0123456789abcdef01234567" }, stored.at(-1)!);
    const file = join(tmp, "replayed.jsonl");
    writeFileSync(file, toJsonLines([...stored, replay]));
    const verified = await cli("receipts", "verify", file, "--json");
    expect(verified.code).toBe(1);
    expect(verified.json).toMatchObject({
      ok: false,
      error: { code: "receipt_confirm_duplicated" },
      first_broken: { reason: "duplicate_confirm", seq: replay.seq, id: replay.id },
    });
    const text = await cli("receipts", "verify", file);
    expect(text.out).toContain(`receipt_confirm_duplicated at receipt #${replay.seq}`);
    expect(text.out).toContain(`pending action ${p.id} (the first is seq ${ran.seq}, id ${ran.id})`);
    // The same chain without the replay verifies.
    writeFileSync(file, toJsonLines(stored));
    expect((await cli("receipts", "verify", file, "--json")).json).toMatchObject({ ok: true });
  });
});
