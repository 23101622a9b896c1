// read_local in Node with real Pyodide runners: the workspace is mounted read-only at /workspace
// for tools that declare it and absent for others; every kind of write fails with a normal
// PermissionError; the receipt's workspace_sha256 follows the data; the mount is bounded.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openVfs } from "../builtins/vfs/core.ts";
import { vfsWorkspaceSource } from "../builtins/workspace/source.ts";
import { createNodeRunnerHost } from "../runner/node.ts";
import { callTool } from "./call.ts";
import { freezeToolset } from "./freeze.ts";
import { memorySource } from "./inspect.ts";
import { workspaceSha256 } from "./workspace.ts";

const TOOLS = readFileSync(new URL("../../public/examples/workspace_tools.py", import.meta.url), "utf8");
const PROBE = `
import errno, os, shutil
from edgestudio.tools import edge_tool

@edge_tool(permissions=["read_local"])
def try_writes() -> dict:
    out = {}
    def attempt(name, fn):
        try:
            fn()
            out[name] = "done"
        except OSError as exc:
            out[name] = f"{type(exc).__name__} {errno.errorcode.get(exc.errno)}"
    attempt("open_w", lambda: open("/workspace/data.csv", "w").write("x"))
    attempt("append", lambda: open("/workspace/data.csv", "a").write("x"))
    attempt("create", lambda: open("/workspace/new.txt", "w").write("x"))
    attempt("remove", lambda: os.remove("/workspace/data.csv"))
    attempt("rename", lambda: os.rename("/workspace/data.csv", "/workspace/x.csv"))
    attempt("rename_out", lambda: os.rename("/workspace/data.csv", "/tmp/x.csv"))
    attempt("chmod", lambda: os.chmod("/workspace/data.csv", 0o666))
    attempt("mkdir", lambda: os.mkdir("/workspace/sub/new"))
    attempt("rmtree", lambda: shutil.rmtree("/workspace/sub"))
    attempt("move_root", lambda: os.rename("/workspace", "/elsewhere"))
    out["data"] = open("/workspace/data.csv").read()
    return out
`;
const host = createNodeRunnerHost({ spares: 1 });
afterAll(() => host.close());
const text = (s: string) => new TextEncoder().encode(s);

describe("read_local tools see the workspace read-only at /workspace", () => {
  beforeAll(() => host.warm());

  it("reads the current files, and workspace_sha256 follows every edit", async () => {
    const vfs = await openVfs();
    await vfs.writeBatch([
      { path: "/workspace/data.csv", data: text("region,amount\nnorth,10\nsouth,32\n") },
      { path: "/workspace/sub/notes.txt", data: text("n") },
    ]);
    const workspace = vfsWorkspaceSource(vfs);
    const toolset = await freezeToolset(memorySource("workspace_tools.py", TOOLS), host);
    const first = await callTool(toolset, host, "summarize_csv", {}, { workspace });
    expect(first).toMatchObject({ ok: true, result: { rows: 2, columns: ["region", "amount"], sums: { amount: 42 } } });
    expect(first.workspace_sha256).toBe(
      await workspaceSha256(await workspace.snapshot({ maxBytes: 1e9, maxFiles: 1e9 })),
    );
    const listed = await callTool(toolset, host, "list_workspace", {}, { workspace });
    expect(listed.result).toEqual({
      files: [
        { path: "data.csv", bytes: 32 },
        { path: "sub/notes.txt", bytes: 1 },
      ],
    });
    expect(listed.workspace_sha256).toBe(first.workspace_sha256);
    await vfs.writeBytes("/workspace/data.csv", text("region,amount\nnorth,10\n"));
    const second = await callTool(toolset, host, "summarize_csv", {}, { workspace });
    expect(second.result).toMatchObject({ rows: 1, sums: { amount: 10 } });
    expect(second.workspace_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(second.workspace_sha256).not.toBe(first.workspace_sha256);
  });

  it("a tool without read_local sees no /workspace (and its receipt has no workspace_sha256)", async () => {
    const vfs = await openVfs();
    await vfs.writeBatch([{ path: "/workspace/data.csv", data: text("a\n") }]);
    const toolset = await freezeToolset(memorySource("workspace_tools.py", TOOLS), host);
    const r = await callTool(toolset, host, "sees_workspace", {}, { workspace: vfsWorkspaceSource(vfs) });
    expect(r).toMatchObject({ ok: true, result: { exists: false } });
    expect(r.workspace_sha256).toBeUndefined();
  });

  it("every write fails in Python with PermissionError and nothing reaches the workspace", async () => {
    const vfs = await openVfs();
    await vfs.writeBatch([
      { path: "/workspace/data.csv", data: text("keep") },
      { path: "/workspace/sub/x.txt", data: text("x") },
    ]);
    const toolset = await freezeToolset(memorySource("probe.py", PROBE), host);
    const r = await callTool(toolset, host, "try_writes", {}, { workspace: vfsWorkspaceSource(vfs) });
    expect(r.ok).toBe(true);
    const { data, ...ops } = r.result as Record<string, string>;
    expect(data).toBe("keep");
    // As on a real read-only mount: EACCES for writes, EPERM for chmod, a cross-device rename out
    // of it (EXDEV) and the mount point itself busy (EBUSY).
    expect(ops).toEqual({
      open_w: "PermissionError EACCES",
      append: "PermissionError EACCES",
      create: "PermissionError EACCES",
      remove: "PermissionError EACCES",
      rename: "PermissionError EACCES",
      rename_out: "OSError EXDEV",
      chmod: "PermissionError EPERM",
      mkdir: "PermissionError EACCES",
      rmtree: "PermissionError EACCES",
      move_root: "OSError EBUSY",
    });
    const write = await callTool(
      await freezeToolset(memorySource("workspace_tools.py", TOOLS), host),
      host,
      "write_report",
      { text: "hi" },
      { workspace: vfsWorkspaceSource(vfs) },
    );
    expect(write).toMatchObject({ ok: false, error: { code: "tool_raised" } });
    expect(write.error?.message).toContain("PermissionError");
    expect(vfs.getAllPaths().sort()).toEqual([
      "/",
      "/workspace",
      "/workspace/data.csv",
      "/workspace/sub",
      "/workspace/sub/x.txt",
    ]);
  });

  it("a workspace over the mount limit is refused before the runner starts (workspace_too_large)", async () => {
    const vfs = await openVfs();
    await vfs.writeBatch([{ path: "/workspace/big.bin", data: new Uint8Array(2048) }]);
    const toolset = await freezeToolset(memorySource("workspace_tools.py", TOOLS), host);
    const r = await callTool(
      toolset,
      host,
      "list_workspace",
      {},
      { workspace: vfsWorkspaceSource(vfs), workspaceLimits: { maxBytes: 1024, maxFiles: 10 } },
    );
    expect(r).toMatchObject({ ok: false, error: { code: "workspace_too_large" }, runner_secret_verified: false });
  });
});
