// Built-in tools on the workspace VFS, through the real ToolRuntime (and a chat session where
// the confirmation rules matter): each bad input is a test here.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createChatSession } from "../chat/session.ts";
import { EdgeError } from "../contract/errors.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import { createToolRuntime, defineTool, timeoutPolicy, type ToolRuntime } from "../runtime/index.ts";
import { goalsPath, registerBuiltins, type BuiltinsOptions } from "./index.ts";
import { openVfs, type EdgeVfs } from "./vfs/core.ts";
import type { VfsPersistence } from "./vfs/store.ts";
import { openNodeVfs } from "./vfs/store-node.ts";

const PNG_1PX = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

async function setup(options: Partial<BuiltinsOptions> = {}, limits = {}) {
  const vfs = options.vfs ?? (await openVfs({ limits }));
  const runtime = createToolRuntime();
  runtime.onAroundDispatch(timeoutPolicy({}));
  await registerBuiltins(runtime, { vfs, ...options });
  let n = 0;
  const call = (name: string, args: Record<string, unknown>) =>
    runtime.execute({ id: `c${n++}`, name, args: args as never });
  return { vfs, runtime, call };
}

describe("workspace VFS", () => {
  it("reads, writes, lists, moves, copies and removes like a file system", async () => {
    const vfs = await openVfs();
    await vfs.mkdir("/a/b", { recursive: true });
    await vfs.writeFile("/a/b/x.txt", "héllo");
    expect(await vfs.readFile("/a/b/x.txt")).toBe("héllo");
    expect((await vfs.stat("/a/b/x.txt")).size).toBe(6);
    await vfs.cp("/a", "/c", { recursive: true });
    await vfs.mv("/c/b/x.txt", "/c/y.txt");
    expect(await vfs.readdir("/c")).toEqual(["b", "y.txt"]);
    await expect(vfs.rm("/a")).rejects.toMatchObject({ code: "vfs_not_empty" });
    await vfs.rm("/a", { recursive: true });
    expect(await vfs.exists("/a/b/x.txt")).toBe(false);
    await expect(vfs.readFile("/nope")).rejects.toMatchObject({
      code: "vfs_not_found",
      message: "ENOENT: no such file or directory, open '/nope'",
    });
    await expect(vfs.writeFile("/c/y.txt/z", "x")).rejects.toMatchObject({ code: "vfs_not_directory" });
    await expect(vfs.symlink("/c", "/l")).rejects.toMatchObject({ code: "vfs_not_supported" });
    // `..` cannot climb out: there is nothing above the root.
    expect(vfs.resolvePath("/workspace", "../../../etc/passwd")).toBe("/etc/passwd");
  });

  it("refuses writes beyond the total, per-file and entry limits, changing nothing", async () => {
    const vfs = await openVfs({ limits: { maxTotalBytes: 1000, maxFileBytes: 600, maxEntries: 5 } });
    await vfs.writeFile("/a", "x".repeat(500));
    await expect(vfs.writeFile("/b", "x".repeat(700))).rejects.toMatchObject({ code: "vfs_quota_exceeded" });
    await expect(vfs.writeFile("/b", "x".repeat(501))).rejects.toMatchObject({
      code: "vfs_quota_exceeded",
      details: { limit: 1000 },
    });
    expect(await vfs.exists("/b")).toBe(false);
    // Replacing a file only counts the difference.
    await vfs.writeFile("/a", "y".repeat(600));
    for (const p of ["/c", "/d", "/e", "/f"]) await vfs.writeFile(p, "");
    await expect(vfs.writeFile("/g", "")).rejects.toMatchObject({ code: "vfs_quota_exceeded" });
    expect(vfs.usage()).toMatchObject({ bytes: 600, entries: 5 });
  });

  it("persists through the Node adapter and survives reopening; a failed commit is undone in memory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edge-vfs-"));
    const vfs = await openNodeVfs({ dir });
    await vfs.writeBytes("/workspace/notes/a.txt", new TextEncoder().encode("one"), { parents: true });
    await vfs.writeBytes("/workspace/bin.dat", Uint8Array.of(0, 255, 7));
    const again = await openNodeVfs({ dir });
    expect(await again.readFile("/workspace/notes/a.txt")).toBe("one");
    expect([...(await again.readFileBuffer("/workspace/bin.dat"))]).toEqual([0, 255, 7]);

    const failing: VfsPersistence = {
      load: async () => [],
      commit: async () => Promise.reject(new Error("disk full")),
    };
    const broken = await openVfs({ persistence: failing });
    await expect(broken.writeFile("/x", "data")).rejects.toMatchObject({ code: "storage_failed" });
    expect(await broken.exists("/x")).toBe(false);
    expect(broken.usage().bytes).toBe(0);
  });
});

describe("file tools", () => {
  it("write_file then read_file (relative paths live in /workspace), with line ranges", async () => {
    const { call } = await setup();
    const w = await call("write_file", { path: "docs/a.txt", content: "l1\nl2\nl3\n" });
    expect(w.result).toEqual({ path: "/workspace/docs/a.txt", bytes: 9, created: true });
    expect((await call("read_file", { path: "/workspace/docs/a.txt" })).result).toMatchObject({
      content: "l1\nl2\nl3\n",
      total_lines: 3,
    });
    expect((await call("read_file", { path: "docs/a.txt", offset: 2, limit: 1 })).result).toMatchObject({
      content: "l2",
      from_line: 2,
    });
    expect((await call("read_file", { path: "missing.txt" })).error).toMatchObject({ code: "vfs_not_found" });
  });

  it("edit_file replaces exactly one occurrence, and refuses ambiguous or missing old strings", async () => {
    const { call, vfs } = await setup();
    await call("write_file", { path: "f.txt", content: "alpha beta alpha" });
    const twice = await call("edit_file", { path: "f.txt", old_string: "alpha", new_string: "x" });
    expect(twice).toMatchObject({ status: "failed", error: { code: "edit_not_unique" } });
    expect(twice.error!.message).toMatch(/occurs 2 times/);
    expect((await call("edit_file", { path: "f.txt", old_string: "gamma", new_string: "x" })).error).toMatchObject({
      code: "edit_not_found",
    });
    expect(await vfs.readFile("/workspace/f.txt")).toBe("alpha beta alpha");
    expect(
      (await call("edit_file", { path: "f.txt", old_string: "alpha beta", new_string: "omega" })).result,
    ).toMatchObject({ replacements: 1 });
    expect(await vfs.readFile("/workspace/f.txt")).toBe("omega alpha");
  });

  it("read_image returns MIME type and base64; a text file is not_an_image; size is bounded", async () => {
    const { call, vfs } = await setup({ imageMaxBytes: 100 });
    await vfs.writeBytes("/workspace/dot.png", PNG_1PX);
    const r = await call("read_image", { path: "dot.png" });
    expect(r.result).toMatchObject({ mime_type: "image/png", bytes: PNG_1PX.length });
    expect(Uint8Array.from(atob((r.result as { base64: string }).base64), (c) => c.charCodeAt(0))).toEqual(PNG_1PX);
    await call("write_file", { path: "t.txt", content: "just text" });
    expect((await call("read_image", { path: "t.txt" })).error).toMatchObject({ code: "not_an_image" });
    const big = new Uint8Array(200);
    big.set(PNG_1PX);
    await vfs.writeBytes("/workspace/big.png", big);
    expect((await call("read_image", { path: "big.png" })).error).toMatchObject({ code: "image_too_large" });
  });
});

describe("goals", () => {
  it("create, get, update per session; stored in the workspace so they survive reopening", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edge-goals-"));
    const { call } = await setup({
      vfs: await openNodeVfs({ dir }),
      tools: ["create_goal", "get_goal", "update_goal"],
      sessionId: "s1",
    });
    const created = (
      await call("create_goal", { objective: "Summarise the logs", success_criteria: "a 3-line summary" })
    ).result as { goal: { goal_id: string; status: string } };
    expect(created.goal.status).toBe("active");
    expect((await call("get_goal", {})).result).toMatchObject({ goal: { goal_id: created.goal.goal_id } });
    expect(
      (await call("update_goal", { goal_id: created.goal.goal_id, status: "completed", note: "done" })).result,
    ).toMatchObject({ goal: { status: "completed", notes: ["done"] } });
    expect((await call("update_goal", { goal_id: "goal_nope", status: "blocked" })).error).toMatchObject({
      code: "goal_not_found",
    });

    const reopened = await setup({ vfs: await openNodeVfs({ dir }), tools: ["get_goal"], sessionId: "s1" });
    expect((await reopened.call("get_goal", { goal_id: created.goal.goal_id })).result).toMatchObject({
      goal: { status: "completed" },
    });
    const other = await setup({ vfs: await openNodeVfs({ dir }), tools: ["get_goal"], sessionId: "s2" });
    expect((await other.call("get_goal", {})).result).toEqual({ goal: null, goals: 0 });
    expect(goalsPath("s1")).toBe("/.edge/goals/s1.json");
  });
});

describe("web_search", () => {
  it("is web_search_unavailable without a provider (and is not registered by default)", async () => {
    const { call, runtime } = await setup({ tools: ["web_search"] });
    expect((await call("web_search", { query: "edge" })).error).toMatchObject({ code: "web_search_unavailable" });
    const plain = await setup();
    expect(plain.runtime.get("web_search")).toBeUndefined();
    expect(runtime.get("fetch")).toBeUndefined();
  });

  it("uses the host's provider, bounds its results, and refuses a malformed answer", async () => {
    const seen: string[] = [];
    const { call } = await setup({
      webSearch: async (q, { maxResults }) => {
        seen.push(q);
        return Array.from({ length: 20 }, (_, i) => ({
          title: `t${i}`,
          url: `https://e.x/${i}`,
          snippet: "s".repeat(5000),
        })).slice(0, maxResults + 5);
      },
    });
    const r = (await call("web_search", { query: "edge web", max_results: 3 })).result as {
      results: { snippet: string }[];
    };
    expect(seen).toEqual(["edge web"]);
    expect(r.results).toHaveLength(3);
    expect(r.results[0]!.snippet).toHaveLength(1000);
    const bad = await setup({ webSearch: async () => [{ title: 1 }] as never });
    expect((await bad.call("web_search", { query: "x" })).error).toMatchObject({ code: "web_search_failed" });
  });
});

describe("bash (just-bash on the VFS)", () => {
  it("runs a pipeline over files written by write_file, and the shell's writes are seen by read_file", async () => {
    const { call } = await setup();
    await call("write_file", { path: "logs/a.log", content: "ERROR disk\nINFO ok\nERROR net\n" });
    await call("write_file", { path: "logs/b.log", content: "ERROR disk\nWARN slow\n" });
    const r = await call("bash", {
      command: "cat logs/*.log | grep ERROR | sort | uniq -c | sort -rn > summary.txt && cat summary.txt",
    });
    expect(r.status).toBe("ok");
    expect(r.result).toEqual({ exit_code: 0, stdout: "   2 ERROR disk\n   1 ERROR net\n", stderr: "" });
    expect((await call("read_file", { path: "summary.txt" })).result).toMatchObject({
      content: "   2 ERROR disk\n   1 ERROR net\n",
    });
  });

  it("stops an infinite loop and a fork-bomb-style recursion at their limits (bash_limit_exceeded)", async () => {
    const { call } = await setup();
    const loop = await call("bash", { command: "while true; do :; done" });
    expect(loop).toMatchObject({ status: "failed", error: { code: "bash_limit_exceeded" } });
    const bomb = await call("bash", { command: ":(){ :|:& };:" });
    expect(bomb).toMatchObject({ status: "failed", error: { code: "bash_limit_exceeded" } });
  });

  it("has no network: curl is not a command", async () => {
    const { call } = await setup();
    const r = await call("bash", { command: "curl -s https://example.com" });
    expect(r.result).toMatchObject({ exit_code: 127 });
    expect((r.result as { stderr: string }).stderr).toMatch(/curl: command not found/);
  });

  it("cannot read outside the VFS (host files do not exist in it)", async () => {
    const { call } = await setup();
    const hostFile = new URL("../../package.json", import.meta.url).pathname;
    expect(readFileSync(hostFile, "utf8")).toContain("edge-web");
    const r = await call("bash", { command: `cat ${hostFile}; cat /etc/passwd; cat ../../../etc/hostname` });
    expect((r.result as { stdout: string }).stdout).toBe("");
    expect((r.result as { stderr: string }).stderr.match(/No such file or directory/g)).toHaveLength(3);
  });

  it("writing 1 GB is stopped by the output limit (bash_limit_exceeded)", async () => {
    const { call, vfs } = await setup();
    await call("write_file", { path: "chunk", content: "x".repeat(1024 * 1024) });
    const r = await call("bash", { command: "for i in $(seq 1 1024); do cat chunk >> big; done" });
    expect(r).toMatchObject({ status: "failed", error: { code: "bash_limit_exceeded" } });
    expect(vfs.usage().bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
  });

  it("writing 1 GB with a raised output limit fills the workspace and fails closed with vfs_quota_exceeded", async () => {
    const { call, vfs } = await setup(
      { bashLimits: { maxOutputSize: 2 * 1024 * 1024 * 1024 } },
      { maxTotalBytes: 4 * 1024 * 1024 },
    );
    await call("write_file", { path: "chunk", content: "x".repeat(1024 * 1024) });
    // 1024 appends of 1 MiB = 1 GiB; the quota stops it after a few.
    const r = await call("bash", { command: "for i in $(seq 1 1024); do cat chunk >> big; done" });
    expect(r).toMatchObject({ status: "failed", error: { code: "vfs_quota_exceeded" } });
    expect(vfs.usage().bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it("a script that runs past the time limit is stopped", async () => {
    const { call } = await setup({
      bashLimits: { maxExecutionTimeMs: 300, maxLoopIterations: 1e9, maxCommandCount: 1e9 },
    });
    const t = Date.now();
    const r = await call("bash", { command: "while true; do echo x > /dev/null; done" });
    expect(r).toMatchObject({ status: "failed", error: { code: "bash_limit_exceeded" } });
    expect(r.error!.message).toMatch(/deadline \(300ms\)/);
    expect(Date.now() - t).toBeLessThan(30_000); // the loop never ends by itself: any bound tells, loaded or not
  });
});

describe("spill", () => {
  it("large built-in output goes to /.edge/spill/ and is replaced by a head/tail preview", async () => {
    const { call, vfs } = await setup({ spill: { inlineLimitBytes: 1000 } });
    const r = await call("bash", { command: "seq 1 2000" });
    const spilled = r.result as { spilled: boolean; path: string; bytes: number; head: string; tail: string };
    expect(spilled.spilled).toBe(true);
    expect(spilled.path).toMatch(/^\/\.edge\/spill\/bash-/);
    const full = JSON.parse(await vfs.readFile(spilled.path)) as { stdout: string };
    expect(full.stdout.split("\n")).toHaveLength(2001);
    expect(spilled.tail).toContain("2000");
    // Small output stays inline; images are never spilled.
    expect((await call("bash", { command: "echo hi" })).result).toMatchObject({ stdout: "hi\n" });
    await vfs.writeBytes("/workspace/dot.png", PNG_1PX);
    expect((await call("read_image", { path: "dot.png" })).result).toMatchObject({ mime_type: "image/png" });
  });
});

describe("registration and confirmation", () => {
  it("built-ins count toward the 8 active tools", async () => {
    const runtime = createToolRuntime();
    for (let i = 0; i < 4; i++)
      runtime.register(
        defineTool({ name: `t${i}`, description: "", parameters: { type: "object" }, execute: () => ({}) }),
      );
    await expect(registerBuiltins(runtime, { vfs: await openVfs() })).rejects.toMatchObject({
      code: "active_tool_limit_exceeded",
    });
    await expect(
      registerBuiltins(runtime, { vfs: await openVfs(), tools: ["read_file", "nope" as never] }),
    ).rejects.toBeInstanceOf(EdgeError);
    expect(runtime.list()).toHaveLength(4);
  });

  async function chatWith(runtime: ToolRuntime, outputs: string[]) {
    const engine = new ScriptedEngine(outputs);
    await engine.load();
    return (await createChatSession({ engine, runtime })).chat("summarise the errors");
  }

  const script = [
    '{"tool_name": "write_file", "arguments": {"path": "e.log", "content": "ERROR a\\nERROR a\\nINFO b\\n"}}',
    '{"tool_name": "bash", "arguments": {"command": "grep -c ERROR e.log"}}',
    "2 errors.",
  ];

  it("without allowWrites a chat's write_file asks first and, with no one to approve, is denied (fail-closed)", async () => {
    const vfs = await openVfs();
    const runtime = createToolRuntime();
    await registerBuiltins(runtime, { vfs });
    const run = await chatWith(runtime, script);
    expect(run.outcome).toBe("failed_closed");
    expect(run.receipt.calls[0]).toMatchObject({
      tool_name: "write_file",
      execution_level: "commit",
      status: "failed_closed",
      code: "tool_denied",
    });
    expect(await vfs.exists("/workspace/e.log")).toBe(false);
  });

  it("with allowWrites the host pre-approves built-in writes: write_file then a bash pipeline in one chat", async () => {
    const vfs = await openVfs();
    const runtime = createToolRuntime();
    await registerBuiltins(runtime, { vfs, allowWrites: true });
    const run = await chatWith(runtime, script);
    expect(run.outcome).toBe("answered");
    expect(run.receipt.calls.map((c) => [c.tool_name, c.status])).toEqual([
      ["write_file", "ok"],
      ["bash", "ok"],
    ]);
    expect(await vfs.readFile("/workspace/e.log")).toBe("ERROR a\nERROR a\nINFO b\n");
  });

  it("allowWrites grants only built-in writes: a Python-style commit tool still asks and is denied", async () => {
    const runtime = createToolRuntime();
    runtime.register(
      defineTool({
        name: "submit_order",
        description: "",
        parameters: { type: "object" },
        executionLevel: "commit",
        outputSchema: { type: "object", properties: {}, additionalProperties: false },
        execute: () => ({}),
      }),
    );
    await registerBuiltins(runtime, { vfs: await openVfs(), allowWrites: true, tools: ["read_file"] });
    const run = await chatWith(runtime, ['{"tool_name": "submit_order", "arguments": {}}']);
    expect(run.receipt.calls[0]).toMatchObject({ status: "failed_closed", code: "tool_denied" });
  });
});

describe("VFS full during a chat", () => {
  it("write_file into a full workspace fails closed with vfs_quota_exceeded", async () => {
    const vfs: EdgeVfs = await openVfs({ limits: { maxTotalBytes: 64 } });
    const { call } = await setup({ vfs });
    expect((await call("write_file", { path: "a", content: "x".repeat(60) })).status).toBe("ok");
    expect((await call("write_file", { path: "b", content: "x".repeat(10) })).error).toMatchObject({
      code: "vfs_quota_exceeded",
    });
  });
});
