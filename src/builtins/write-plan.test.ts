// Built-in writes approved by their diff, through a real chat session: the plan the person sees
// is what is applied (bash is not run twice), a rejection writes nothing, a read-only script
// needs no approval, a plan made stale by another change is refused, and the receipt records each
// built-in call with its level, hashes and status.
import { describe, expect, it } from "vitest";
import { createChatSession } from "../chat/session.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import { createToolRuntime } from "../runtime/index.ts";
import { createBuiltinWritePlanner, registerBuiltins, writeApproval, type WritePlan } from "./index.ts";
import { openVfs, type EdgeVfs } from "./vfs/core.ts";

const call = (tool: string, args: Record<string, unknown>) => JSON.stringify({ tool_name: tool, arguments: args });
const text = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);

async function chatWith(vfs: EdgeVfs, outputs: string[], decide: (plan: WritePlan) => boolean | Promise<boolean>) {
  const runtime = createToolRuntime();
  const planner = createBuiltinWritePlanner({ vfs });
  await registerBuiltins(runtime, { vfs, tools: ["read_file", "write_file", "edit_file", "bash"], planner });
  const asked: WritePlan[] = [];
  const engine = new ScriptedEngine(outputs);
  await engine.load();
  const session = await createChatSession({
    engine,
    runtime,
    approval: writeApproval({ planner, ask: async (plan) => (asked.push(plan), decide(plan)) }),
  });
  return { run: await session.chat("go"), asked };
}

describe("built-in writes approved by their diff", () => {
  it("write_file: the person sees before/after and the approved content is written", async () => {
    const vfs = await openVfs();
    await vfs.writeBatch([{ path: "/workspace/notes.txt", data: new TextEncoder().encode("old\n") }]);
    const { run, asked } = await chatWith(
      vfs,
      [call("write_file", { path: "notes.txt", content: "new\n" }), "Done."],
      () => true,
    );
    expect(run.outcome).toBe("answered");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.changes.map((c) => [c.path, text(c.before), text(c.after)])).toEqual([
      ["/workspace/notes.txt", "old\n", "new\n"],
    ]);
    expect(text(vfs.readBytesIfFile("/workspace/notes.txt"))).toBe("new\n");
    const c = run.receipt.calls[0]!;
    expect(c).toMatchObject({ tool_name: "write_file", execution_level: "commit", status: "ok" });
    expect(c.args_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(c.result_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(c.tool_schema_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("a rejected edit_file writes nothing and fails closed with builtin_write_rejected", async () => {
    const vfs = await openVfs();
    await vfs.writeBatch([{ path: "/workspace/a.txt", data: new TextEncoder().encode("alpha beta") }]);
    const { run } = await chatWith(
      vfs,
      [call("edit_file", { path: "a.txt", old_string: "beta", new_string: "gamma" })],
      () => false,
    );
    expect(run).toMatchObject({ outcome: "failed_closed", error: { code: "builtin_write_rejected" } });
    expect(run.receipt.calls[0]).toMatchObject({
      tool_name: "edit_file",
      status: "failed_closed",
      code: "builtin_write_rejected",
    });
    expect(text(vfs.readBytesIfFile("/workspace/a.txt"))).toBe("alpha beta");
  });

  it("bash: a read-only script runs without asking; a writing one applies exactly the approved plan", async () => {
    const vfs = await openVfs();
    await vfs.writeBatch([{ path: "/workspace/data.csv", data: new TextEncoder().encode("a\nb\n") }]);
    const ro = await chatWith(vfs, [call("bash", { command: "wc -l data.csv" }), "ok"], () => true);
    expect(ro.asked).toHaveLength(0);
    expect(ro.run.outcome).toBe("answered");
    // $RANDOM differs per run: the file must hold what the person approved, not a second run's value.
    const rw = await chatWith(
      vfs,
      [call("bash", { command: "mkdir -p out && echo $RANDOM$RANDOM > out/r.txt && rm data.csv" }), "ok"],
      () => true,
    );
    expect(rw.run.outcome).toBe("answered");
    const plan = rw.asked[0]!;
    expect(plan.changes.map((c) => [c.path, c.type])).toEqual([
      ["/workspace/data.csv", "file"],
      ["/workspace/out", "directory"],
      ["/workspace/out/r.txt", "file"],
    ]);
    expect(text(vfs.readBytesIfFile("/workspace/out/r.txt"))).toBe(text(plan.changes[2]!.after));
    expect(await vfs.exists("/workspace/data.csv")).toBe(false);
  });

  it("a plan made stale while it waited is refused (write_preview_stale); a looping script fails with its code", async () => {
    const vfs = await openVfs();
    await vfs.writeBatch([{ path: "/workspace/x.txt", data: new TextEncoder().encode("1") }]);
    const { run } = await chatWith(vfs, [call("write_file", { path: "x.txt", content: "2" })], async () => {
      await vfs.writeBytes("/workspace/x.txt", new TextEncoder().encode("changed meanwhile"));
      return true;
    });
    expect(run).toMatchObject({ outcome: "failed_closed", error: { code: "write_preview_stale" } });
    expect(text(vfs.readBytesIfFile("/workspace/x.txt"))).toBe("changed meanwhile");
    const loop = await chatWith(vfs, [call("bash", { command: "while true; do echo x >> y.txt; done" })], () => true);
    expect(loop.run).toMatchObject({ outcome: "failed_closed" });
    expect(["bash_limit_exceeded", "vfs_quota_exceeded"]).toContain(loop.run.error?.code);
    expect(await vfs.exists("/workspace/y.txt")).toBe(false);
  });
});
