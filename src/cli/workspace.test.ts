// The workspace from the command line: `edge chat --workspace DIR` gives the built-ins over a
// folder (reads inside it only: ../ and symbolic links out of it are refused; writes need
// --allow-writes), read_local tools see the folder read-only at /workspace; `edge workspace
// ls|import|export` manage the stored workspace. Real Pyodide runners, temporary folders.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { beforeEach, describe, expect, it } from "vitest";
import { writeTestModel } from "../../test/fixtures/gguf.ts";
import { TOTAL_TOOL } from "../../test/fixtures/workspace-total-tool.ts";
import { nodeLlamaAvailable } from "../../test/engines/node-llama.ts";
import { EXAMPLES, cli, edgeCli, writeTestFile } from "../../test/cli.ts";

const llamaAvailable = await nodeLlamaAvailable();

let tmp: string;
let dir: string;
let outside: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), "edge-ws-cli-"));
  process.env.EDGE_DATA_DIR = join(tmp, "data");
  dir = join(tmp, "project");
  outside = join(tmp, "secret");
  mkdirSync(join(dir, "sub"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(dir, "data.csv"), "region,amount\nnorth,10\nsouth,32\n");
  writeFileSync(join(outside, "key.txt"), "TOP SECRET");
  symlinkSync(join(outside, "key.txt"), join(dir, "leak.txt"));
  symlinkSync(outside, join(dir, "sub", "out"));
});

const call = (tool: string, args: object) => JSON.stringify({ tool_name: tool, arguments: args });
const script = (outputs: string[]) => writeTestFile(tmp, `script-${Math.random().toString(36).slice(2)}.json`, outputs);
const chat = (outputs: string[], ...flags: string[]) =>
  cli("chat", "--prompt", "go", "--engine", "scripted", "--script", script(outputs), "--json", ...flags);

// Several CLI runs with real Pyodide runners per test: a minute apiece on a loaded machine.
describe("edge chat --workspace DIR", { timeout: 240_000 }, () => {
  it("read_local tools read DIR at /workspace; the receipt records workspace_sha256", async () => {
    const r = await chat(
      [call("summarize_csv", {}), "ok"],
      "--tools",
      join(EXAMPLES, "workspace_tools.py"),
      "--workspace",
      dir,
    );
    expect(r.json).toMatchObject({ ok: true, outcome: "answered" });
    expect(r.json.receipt.calls[0]).toMatchObject({ tool_name: "summarize_csv", status: "ok" });
    expect(r.json.receipt.calls[0].workspace_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r.json.workspace.skipped.map((s: { path: string }) => s.path).sort()).toEqual(["leak.txt", "sub/out"]);
    const write = await chat(
      [call("write_report", { text: "x" })],
      "--tools",
      join(EXAMPLES, "workspace_tools.py"),
      "--workspace",
      dir,
    );
    expect(write.json).toMatchObject({ ok: false, error: { code: "tool_raised" } });
    expect(existsSync(join(dir, "report.txt"))).toBe(false);
  });

  it("built-ins read inside DIR only: ../ and links out of it are refused", async () => {
    const flags = ["--workspace", dir, "--builtins", "read_file,bash"];
    expect((await chat([call("read_file", { path: "data.csv" }), "ok"], ...flags)).json.outcome).toBe("answered");
    for (const path of [
      "../secret/key.txt",
      "../../../../../../" + join(outside, "key.txt"),
      "leak.txt",
      "sub/out/key.txt",
    ]) {
      const r = await chat([call("read_file", { path })], ...flags);
      expect(r.json, path).toMatchObject({ ok: false, error: { code: "vfs_not_found" } });
    }
  });

  it("writes need --allow-writes, land in DIR, and never through a planted link", async () => {
    const denied = await chat(
      [call("write_file", { path: "notes.txt", content: "hi" })],
      "--workspace",
      dir,
      "--builtins",
      "write_file",
    );
    expect(denied.json).toMatchObject({ ok: false, error: { code: "builtin_writes_not_allowed" } });
    expect(denied.json.error.message).toContain("--allow-writes");
    expect(existsSync(join(dir, "notes.txt"))).toBe(false);
    const flags = ["--workspace", dir, "--builtins", "write_file,bash", "--allow-writes"];
    const ok = await chat([call("write_file", { path: "notes/today.txt", content: "hi" }), "done"], ...flags);
    expect(ok.json.outcome).toBe("answered");
    expect(readFileSync(join(dir, "notes", "today.txt"), "utf8")).toBe("hi");
    // leak.txt and sub/out were not loaded; writing there must not follow the links on disk.
    for (const path of ["leak.txt", "sub/out/key.txt"]) {
      const r = await chat([call("write_file", { path, content: "pwned" })], ...flags);
      expect(r.json, path).toMatchObject({ ok: false, error: { code: "workspace_path_escape" } });
    }
    expect(readFileSync(join(outside, "key.txt"), "utf8")).toBe("TOP SECRET");
  });

  it("usage: --allow-writes without --builtins is a usage error; an unknown built-in is unknown_tool", async () => {
    expect((await chat(["x"], "--allow-writes")).code).toBe(2);
    expect((await chat(["x"], "--workspace", dir, "--builtins", "rm_rf")).json.error.code).toBe("unknown_tool");
  });
});

// Through the real CLI (node bin/edge.cjs): what `edge workspace import` stores is what chat and
// tools call see without --workspace, and --workspace DIR is the other source of the same thing.
describe("the stored workspace and --workspace DIR: two sources of one workspace", () => {
  it("import, then tools call and chat (read_local tools, --builtins) see the stored files; --workspace DIR wins", {
    timeout: 300_000,
  }, async () => {
    const data = join(tmp, "real-data");
    const tools = join(EXAMPLES, "workspace_tools.py");
    const files = (r: { json: { result: { files: Array<{ path: string }> } } }) =>
      r.json.result.files.map((f) => f.path);
    // Nothing stored yet: no /workspace at all (and no hash), rather than an empty one that looks real.
    const before = await edgeCli(data, "tools", "call", tools, "list_workspace", "--json");
    expect(files(before)).toEqual([]);
    expect(before.json.workspace_sha256).toBeUndefined();
    const clean = join(tmp, "clean");
    mkdirSync(clean);
    writeFileSync(join(clean, "data.csv"), "region,amount\nnorth,10\nsouth,32\n");
    expect((await edgeCli(data, "workspace", "import", clean, "--json")).code).toBe(0);
    const stored = await edgeCli(data, "tools", "call", tools, "list_workspace", "--json");
    expect(files(stored)).toEqual(["data.csv"]);
    expect(stored.json.workspace_sha256).toMatch(/^sha256:/);
    const other = join(tmp, "other");
    mkdirSync(other);
    writeFileSync(join(other, "notes.txt"), "hello");
    expect(
      files(await edgeCli(data, "tools", "call", tools, "list_workspace", "--workspace", other, "--json")),
    ).toEqual(["notes.txt"]);
    // --builtins without --workspace: the built-in tools work on the stored workspace.
    const r = await edgeCli(
      data,
      "chat",
      "--tools",
      tools,
      "--builtins",
      "read_file",
      "--prompt",
      "go",
      "--engine",
      "scripted",
      "--script",
      script([call("read_file", { path: "/workspace/data.csv" }), "ok"]),
      "--json",
    );
    expect(r.json, r.out + r.err).toMatchObject({
      ok: true,
      outcome: "answered",
      workspace: { source: "stored", builtins: ["read_file"] },
    });
    expect(r.json.receipt.calls).toMatchObject([{ tool_name: "read_file", status: "ok" }]);
  });
});

// The generated test model (random weights) runs the one parameterless read_local tool: plumbing, not judgement.
describe.skipIf(!llamaAvailable)(
  "edge chat --workspace DIR with a real model (generated GGUF, node-llama-cpp)",
  { timeout: 240_000 },
  () => {
    it("the model's guided call runs the read_local tool on DIR; same workspace and result hashes as a scripted run", async () => {
      // In a folder of its own: the tools file's folder is its tools project (docs/tools-projects.md),
      // and tmp holds the workspace folder with its links out.
      mkdirSync(join(tmp, "tools"), { recursive: true });
      const tools = writeTestFile(join(tmp, "tools"), "total_tools.py", TOTAL_TOOL);
      const model = writeTestModel();
      const flags = ["--tools", tools, "--workspace", dir, "--prompt", "What is the total?", "--json"];
      const real = await cli(
        "chat",
        "--model",
        model.path,
        "--threads",
        "1",
        "--tool-choice",
        "required",
        "--max-tokens",
        "96",
        ...flags,
      );
      expect(real.code, real.out + real.err).toBe(0);
      expect(real.json.receipt).toMatchObject({
        engine: "llamacpp",
        model_fingerprint: { sha256: `sha256:${model.sha256}` },
      });
      const [call0] = real.json.receipt.calls;
      expect(call0).toMatchObject({ tool_name: "workspace_total", status: "ok" });
      const scripted = await cli(
        "chat",
        "--engine",
        "scripted",
        "--script",
        script([call("workspace_total", {}), "ok"]),
        ...flags,
      );
      const expected = scripted.json.receipt.calls[0];
      for (const hash of ["args_sha256", "workspace_sha256", "result_sha256"])
        expect(call0[hash], hash).toBe(expected[hash]);
    });
  },
);

describe("edge workspace ls|import|export", () => {
  it("imports a folder and a zip, lists sizes and hashes, exports a zip; bad input changes nothing", async () => {
    const imp = await cli("workspace", "import", join(dir, "sub", ".."), "--into", "proj", "--json");
    expect(imp.json.error?.code).toBe("workspace_path_escape"); // the folder holds links: refused whole
    const clean = join(tmp, "clean");
    mkdirSync(join(clean, "a"), { recursive: true });
    writeFileSync(join(clean, "a", "x.txt"), "x");
    expect((await cli("workspace", "import", clean, "--json")).json).toMatchObject({ ok: true, files: 1 });
    const zip = join(tmp, "in.zip");
    writeFileSync(zip, zipSync({ "data.csv": new TextEncoder().encode("a,b\n") }));
    expect((await cli("workspace", "import", zip, "--json")).json).toMatchObject({ ok: true, files: 1 });
    const ls = await cli("workspace", "ls", "--json");
    expect(ls.json.files.map((f: { path: string }) => f.path)).toEqual(["a/x.txt", "data.csv"]);
    expect(ls.json.files[0].sha256).toMatch(/^sha256:/);
    const bomb = join(tmp, "bomb.zip");
    writeFileSync(bomb, zipSync({ "zeros.bin": new Uint8Array(80 * 1024 * 1024) }, { level: 9 }));
    expect((await cli("workspace", "import", bomb, "--json")).json.error.code).toBe("zip_too_large");
    const evil = join(tmp, "evil.zip");
    writeFileSync(evil, zipSync({ "../../escape.txt": new Uint8Array(1) }));
    expect((await cli("workspace", "import", evil, "--json")).json.error.code).toBe("vfs_invalid_path");
    expect((await cli("workspace", "ls", "--json")).json.files).toHaveLength(2);
    const out = join(tmp, "out.zip");
    expect((await cli("workspace", "export", "-o", out, "--json")).json).toMatchObject({ ok: true });
    expect(readFileSync(out).subarray(0, 2).toString()).toBe("PK");
  });
});
