// Confirmation of commit tools end to end in Node: scripted model → chat → pending action (the
// real Node file store) → confirm with the real Pyodide runner (a process) → confirm receipt.
// Executions are counted by wrapping the real host's call(); nothing is mocked.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatSession } from "../chat/session.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import { createNodeRunnerHost } from "../runner/node.ts";
import type { RunnerHost } from "../runner/host.ts";
import { createNodeReceiptStore } from "../receipts/store-node.ts";
import { memorySource } from "../toolset/inspect.ts";
import { freezeToolset } from "../toolset/freeze.ts";
import { createConfirmationBroker } from "./broker.ts";
import { confirm, purgeExpired, reject } from "./confirm.ts";
import { createNodePendingStore } from "./store-node.ts";
import { bindingSha256, buildPendingAction, newToken } from "./pending.ts";
import type { PendingAction } from "./types.ts";

const EXAMPLE = readFileSync(new URL("../../public/examples/tools.py", import.meta.url), "utf8");
const BAD_COMMIT = `from edgestudio.tools import edge_tool

@edge_tool(execution_level="commit", return_direct=True,
           output_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": False})
def bad_commit(x: str) -> dict:
    return {"ok": "yes"}
`;
const real = createNodeRunnerHost({ spares: 1 });
let executions = 0;
/** The real host; call() is counted (each call is one tool execution in a fresh runner). */
const host: RunnerHost = {
  discover: (job, signal) => real.discover(job, signal),
  call: (job, signal) => {
    executions++;
    return real.call(job, signal);
  },
  close: () => real.close(),
};
afterAll(() => real.close());
beforeAll(() => real.warm(), 120_000);

const call = (name: string, args: object) => JSON.stringify({ tool_name: name, arguments: args });
const T0 = Date.parse("2030-01-01T00:00:00.000Z");

function setup(text: () => string = () => EXAMPLE, t0 = T0) {
  const dir = mkdtempSync(join(tmpdir(), "edge-confirm-"));
  const clock = { t: t0 };
  const now = () => clock.t;
  const store = createNodePendingStore({ dir });
  const receipts = createNodeReceiptStore({ dir });
  const source = memorySource("tools.py", text);
  return {
    dir,
    clock,
    now,
    store,
    receipts,
    source,
    ctx: { store, host, source, receipts, now, confirmedVia: "terminal" as const },
  };
}

async function pendingFromChat(
  env: ReturnType<typeof setup>,
  tool = "submit_order",
  args: object = { draft_id: "D-AB-1-2" },
) {
  const engine = new ScriptedEngine([call(tool, args)]);
  await engine.load();
  const session = await createChatSession({
    engine,
    host,
    tools: { kind: "file", source: env.source },
    confirmations: createConfirmationBroker({ store: env.store, toolsFile: env.source.name, now: env.now }),
  });
  const run = await session.chat("Submit draft D-AB-1-2.");
  expect(run.outcome).toBe("pending_confirmation");
  return { run, ticket: run.pending_action! };
}

function editRecord(env: ReturnType<typeof setup>, id: string, fn: (r: PendingAction) => PendingAction): void {
  const file = env.store.fileOf(id);
  writeFileSync(file, JSON.stringify(fn(JSON.parse(readFileSync(file, "utf8")) as PendingAction)));
}

describe("commit tools in chat", () => {
  it("reaching a commit tool creates a pending action (0600 file, token not stored) and runs nothing", async () => {
    const env = setup();
    const before = executions;
    const { run, ticket } = await pendingFromChat(env);
    expect(executions).toBe(before);
    expect(run).toMatchObject({
      ok: false,
      outcome: "pending_confirmation",
      error: { code: "tool_confirmation_required" },
    });
    expect(run.receipt.calls[0]).toMatchObject({
      tool_name: "submit_order",
      status: "pending_confirmation",
      execution_level: "commit",
    });
    expect(ticket.id).toMatch(/^pa_[0-9a-f]{32}$/);
    expect(ticket.confirmation_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(ticket.expires_at) - T0).toBe(10 * 60 * 1000);
    const file = env.store.fileOf(ticket.id);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(env.store.dir).mode & 0o777).toBe(0o700);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(ticket.confirmation_token);
    const rec = JSON.parse(text) as PendingAction;
    expect(rec).toMatchObject({
      status: "pending",
      tool_name: "submit_order",
      execution_level: "commit",
      arguments: { draft_id: "D-AB-1-2" },
      run_id: run.run_id,
    });
    expect(rec.tools_file_sha256).toBe(run.receipt.tools_file_sha256);
    expect(rec.args_sha256).toBe(run.receipt.calls[0]!.args_sha256);
    expect(rec.binding_sha256).toBe(await bindingSha256(rec));
  });

  it("a commit tool with no approval handler and no confirmation flow is denied (fail-closed)", async () => {
    const env = setup();
    const engine = new ScriptedEngine([call("submit_order", { draft_id: "D-1" })]);
    await engine.load();
    const before = executions;
    const session = await createChatSession({ engine, host, tools: { kind: "file", source: env.source } });
    const run = await session.chat("Submit D-1.");
    expect(run).toMatchObject({ ok: false, outcome: "failed_closed", error: { code: "tool_denied" } });
    expect(run.pending_action).toBeUndefined();
    expect(executions).toBe(before);
    expect(await env.store.list()).toEqual([]);
  });
});

describe("confirm", () => {
  it("runs the action once, returns the validated result, chains a confirm receipt; a second confirm is refused", async () => {
    const env = setup();
    const { ticket } = await pendingFromChat(env);
    const before = executions;
    const out = await confirm(ticket.id, ticket.confirmation_token, env.ctx);
    expect(out).toMatchObject({
      ok: true,
      status: "done",
      result: { order_id: "O-AB-1-2", draft_id: "D-AB-1-2", status: "submitted" },
    });
    expect(executions).toBe(before + 1);
    const receipt = await env.receipts.get(out.receipt_id!);
    expect(receipt).toMatchObject({
      kind: "confirm",
      outcome: "return_direct",
      code: null,
      extra: { pending_action_id: ticket.id },
    });
    expect(receipt!.calls[0]).toMatchObject({
      tool_name: "submit_order",
      execution_level: "commit",
      status: "ok",
      runner_secret_verified: true,
      tools_file_sha256_verified: true,
    });
    const rec = await env.store.get(ticket.id);
    expect(rec).toMatchObject({
      status: "done",
      receipt_id: out.receipt_id,
      result_sha256: receipt!.calls[0]!.result_sha256,
    });

    const again = await confirm(ticket.id, ticket.confirmation_token, env.ctx);
    expect(again).toMatchObject({ ok: false, status: "done", error: { code: "confirmation_already_claimed" } });
    expect(again.result).toBeUndefined();
    expect(executions).toBe(before + 1);
  });

  it("a wrong token, or the token of another action, is refused and leaves the action pending", async () => {
    const env = setup();
    const a = (await pendingFromChat(env)).ticket;
    const b = (await pendingFromChat(env)).ticket;
    const before = executions;
    const wrong = a.confirmation_token.slice(0, -1) + (a.confirmation_token.endsWith("A") ? "B" : "A");
    for (const token of [wrong, b.confirmation_token, "", "x".repeat(10_000)]) {
      expect(await confirm(a.id, token, env.ctx)).toMatchObject({
        ok: false,
        status: null,
        error: { code: "confirmation_token_invalid" },
      });
    }
    expect(await confirm("pa_" + "0".repeat(32), a.confirmation_token, env.ctx)).toMatchObject({
      error: { code: "pending_action_not_found" },
    });
    expect(await confirm("../../etc/passwd", a.confirmation_token, env.ctx)).toMatchObject({
      error: { code: "pending_action_not_found" },
    });
    expect(executions).toBe(before);
    expect((await env.store.get(a.id))!.status).toBe("pending");
    expect(await confirm(a.id, a.confirmation_token, env.ctx)).toMatchObject({ ok: true, status: "done" });
  });

  it("an expired action is refused (fake clock), marked expired and its arguments wiped", async () => {
    const env = setup();
    const { ticket } = await pendingFromChat(env);
    env.clock.t = T0 + 10 * 60 * 1000; // exactly at expires_at
    const before = executions;
    expect(await confirm(ticket.id, ticket.confirmation_token, env.ctx)).toMatchObject({
      ok: false,
      status: "expired",
      error: { code: "confirmation_expired" },
    });
    expect(executions).toBe(before);
    expect(await env.store.get(ticket.id)).toMatchObject({ status: "expired", arguments: null, arguments_wiped: true });
    expect(await confirm(ticket.id, ticket.confirmation_token, env.ctx)).toMatchObject({
      error: { code: "confirmation_expired" },
    });
  });

  it("arguments changed in storage are refused, even with args_sha256 and binding_sha256 recomputed", async () => {
    const env = setup();
    const { ticket } = await pendingFromChat(env);
    const before = executions;
    editRecord(env, ticket.id, (r) => ({ ...r, arguments: { draft_id: "D-EVIL-9" } }));
    expect(await confirm(ticket.id, ticket.confirmation_token, env.ctx)).toMatchObject({
      ok: false,
      error: { code: "confirmation_binding_mismatch" },
    });
    // Someone with write access to storage but without the token recomputes every hash.
    const { sha256Json } = await import("../contract/hash.ts");
    const args = { draft_id: "D-EVIL-9" };
    const argsSha = await sha256Json(args);
    const file = env.store.fileOf(ticket.id);
    const rec = JSON.parse(readFileSync(file, "utf8")) as PendingAction;
    const forged = { ...rec, arguments: args, args_sha256: argsSha };
    forged.binding_sha256 = await bindingSha256(forged);
    writeFileSync(file, JSON.stringify(forged));
    const out = await confirm(ticket.id, ticket.confirmation_token, env.ctx);
    expect(out).toMatchObject({
      ok: false,
      status: "pending",
      error: { code: "confirmation_binding_mismatch", reason: expect.stringContaining("token") },
    });
    expect(executions).toBe(before);
  });

  it("a changed binding (another tool, level or hash in storage) is refused", async () => {
    const env = setup();
    const { ticket } = await pendingFromChat(env);
    for (const edit of [
      (r: PendingAction) => ({ ...r, tool_name: "prepare_order" }),
      (r: PendingAction) => ({ ...r, execution_level: "read" as const }),
      (r: PendingAction) => ({ ...r, binding_sha256: `sha256:${"0".repeat(64)}` as const }),
      (r: PendingAction) => ({ ...r, expires_at: "2099-01-01T00:00:00.000Z" }),
    ]) {
      const saved = readFileSync(env.store.fileOf(ticket.id), "utf8");
      editRecord(env, ticket.id, edit);
      expect(await confirm(ticket.id, ticket.confirmation_token, env.ctx)).toMatchObject({
        ok: false,
        error: { code: "confirmation_binding_mismatch" },
      });
      writeFileSync(env.store.fileOf(ticket.id), saved);
    }
    expect(await confirm(ticket.id, ticket.confirmation_token, env.ctx)).toMatchObject({ ok: true });
  });

  it("a tools file edited after the action was created is refused; a schema change is named", async () => {
    let text = EXAMPLE;
    const env = setup(() => text);
    const { ticket } = await pendingFromChat(env);
    const before = executions;
    text = EXAMPLE.replace('"status": "submitted"}', '"status": "submitted", }');
    expect(await confirm(ticket.id, ticket.confirmation_token, env.ctx)).toMatchObject({
      ok: false,
      status: "pending",
      error: { code: "tools_file_changed", tool_schema_changed: false },
    });
    text = EXAMPLE.replace("def submit_order(draft_id: str)", "def submit_order(draft_id: str, rush: bool = False)");
    expect(await confirm(ticket.id, ticket.confirmation_token, env.ctx)).toMatchObject({
      ok: false,
      error: { code: "tools_file_changed", tool_schema_changed: true },
    });
    expect(executions).toBe(before);
    text = EXAMPLE; // restored byte for byte: the binding holds again
    expect(await confirm(ticket.id, ticket.confirmation_token, env.ctx)).toMatchObject({ ok: true, status: "done" });
  });

  it("a tool schema that differs from the bound one (same file bytes) is refused", async () => {
    const env = setup();
    const toolset = await freezeToolset(env.source, host);
    const { record, token } = await buildPendingAction(
      {
        tool_name: "submit_order",
        arguments: { draft_id: "D-1" },
        execution_level: "commit",
        tools_file: "tools.py",
        tools_file_sha256: toolset.tools_file_sha256,
        active_set_sha256: toolset.active_set_sha256,
        // e.g. bound by an older schema generator
        tool_schema_sha256: toolset.active.find((t) => t.schema.name === "prepare_order")!.schema_sha256,
      },
      { now: env.now },
    );
    await env.store.create(record);
    const before = executions;
    expect(await confirm(record.id, token, env.ctx)).toMatchObject({
      ok: false,
      error: { code: "confirmation_binding_mismatch", reason: "tool_schema" },
    });
    expect(executions).toBe(before);
  });

  it("a rejected action cannot be confirmed; its arguments are wiped", async () => {
    const env = setup();
    const { ticket } = await pendingFromChat(env);
    expect(await reject(ticket.id, env.ctx)).toEqual({ ok: true, id: ticket.id, status: "rejected" });
    expect(await env.store.get(ticket.id)).toMatchObject({
      status: "rejected",
      arguments: null,
      arguments_wiped: true,
    });
    const before = executions;
    expect(await confirm(ticket.id, ticket.confirmation_token, env.ctx)).toMatchObject({
      ok: false,
      status: "rejected",
      error: { code: "confirmation_rejected" },
    });
    expect(await reject(ticket.id, env.ctx)).toMatchObject({ ok: false, error: { code: "confirmation_rejected" } });
    expect(executions).toBe(before);
  });

  it("a result that violates output_schema is not delivered: status failed, the receipt says why", async () => {
    const env = setup(() => BAD_COMMIT);
    const { ticket } = await pendingFromChat(env, "bad_commit", { x: "1" });
    const out = await confirm(ticket.id, ticket.confirmation_token, env.ctx);
    expect(out).toMatchObject({ ok: false, status: "failed", error: { code: "tool_result_schema_mismatch" } });
    expect(out.result).toBeUndefined();
    const receipt = await env.receipts.get(out.receipt_id!);
    expect(receipt).toMatchObject({ kind: "confirm", outcome: "failed_closed", code: "tool_result_schema_mismatch" });
    expect(receipt!.calls[0]).toMatchObject({
      status: "failed_closed",
      code: "tool_result_schema_mismatch",
      result_sha256: null,
    });
    expect(await env.store.get(ticket.id)).toMatchObject({
      status: "failed",
      code: "tool_result_schema_mismatch",
      receipt_id: out.receipt_id,
    });
    // Failed is final: never retried.
    expect(await confirm(ticket.id, ticket.confirmation_token, env.ctx)).toMatchObject({
      error: { code: "confirmation_already_claimed" },
    });
  });

  it("two confirms at the same time (two store instances, like two processes): exactly one runs", async () => {
    const env = setup();
    const { ticket } = await pendingFromChat(env);
    const other = { ...env.ctx, store: createNodePendingStore({ dir: env.dir }) };
    const before = executions;
    const outs = await Promise.all([
      confirm(ticket.id, ticket.confirmation_token, env.ctx),
      confirm(ticket.id, ticket.confirmation_token, other),
    ]);
    expect(executions).toBe(before + 1);
    expect(outs.filter((o) => o.ok)).toHaveLength(1);
    expect(outs.filter((o) => !o.ok).map((o) => o.error!.code)).toEqual(["confirmation_already_claimed"]);
    expect((await env.receipts.list()).filter((r) => r.kind === "confirm")).toHaveLength(1);
  });

  it("a crash after the claim leaves the action claimed, visible, and never run again", async () => {
    const env = setup();
    const { ticket } = await pendingFromChat(env);
    // Simulate the crash: the claim was written, then the process died before anything else.
    await env.store.update(ticket.id, (r) => ({
      ...r,
      status: "claimed",
      claimed_at: new Date(env.now()).toISOString(),
    }));
    const before = executions;
    expect(await confirm(ticket.id, ticket.confirmation_token, env.ctx)).toMatchObject({
      ok: false,
      status: "claimed",
      error: { code: "confirmation_already_claimed" },
    });
    expect(executions).toBe(before);
    // Purging after expiry wipes its arguments but keeps the claimed record (a possible side effect).
    env.clock.t = T0 + 365 * 24 * 3600 * 1000;
    await purgeExpired(env.store, { now: env.now });
    expect(await env.store.get(ticket.id)).toMatchObject({ status: "claimed", arguments: null, arguments_wiped: true });
  });
});

describe("tokens", () => {
  it("are 32 random bytes in base64url, all different, never starting with '-' (a command line would read an option)", () => {
    const tokens = Array.from({ length: 3000 }, newToken);
    expect(new Set(tokens).size).toBe(3000);
    for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
  });
});

describe("purge", () => {
  it("expires pending actions and wipes their arguments, then deletes final records after the retention", async () => {
    const env = setup();
    const a = (await pendingFromChat(env)).ticket;
    const b = (await pendingFromChat(env)).ticket;
    expect(await confirm(b.id, b.confirmation_token, env.ctx)).toMatchObject({ ok: true });
    expect(await purgeExpired(env.store, { now: env.now })).toEqual({ expired: [], wiped: [], deleted: [] });
    env.clock.t = T0 + 10 * 60 * 1000 + 1;
    const first = await purgeExpired(env.store, { now: env.now, retentionMs: 60_000 });
    expect(first.expired).toEqual([a.id]);
    expect(first.wiped.sort()).toEqual([a.id, b.id].sort());
    expect(await env.store.get(a.id)).toMatchObject({ status: "expired", arguments: null, arguments_wiped: true });
    expect(await env.store.get(b.id)).toMatchObject({ status: "done", arguments: null });
    expect(readFileSync(env.store.fileOf(a.id), "utf8")).not.toContain("D-AB-1-2");
    env.clock.t += 60_000;
    expect((await purgeExpired(env.store, { now: env.now, retentionMs: 60_000 })).deleted.sort()).toEqual(
      [a.id, b.id].sort(),
    );
    expect(await env.store.list()).toEqual([]);
  });
});
