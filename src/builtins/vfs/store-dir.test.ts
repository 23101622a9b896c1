// A folder on disk as the workspace: what the model sees from read_file and bash stays inside
// the folder (../ cannot climb out, links that leave it are not loaded), writes land in it and
// never go through a link planted in it.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createChatSession } from "../../chat/session.ts";
import { ScriptedEngine } from "../../engines/scripted.ts";
import { createToolRuntime } from "../../runtime/index.ts";
import { registerBuiltins } from "../index.ts";
import { openDirVfs } from "./store-dir.ts";

function folder() {
  const tmp = mkdtempSync(join(tmpdir(), "edge-vfs-dir-"));
  const dir = join(tmp, "project");
  const outside = join(tmp, "secret");
  mkdirSync(dir);
  mkdirSync(outside);
  writeFileSync(join(dir, "data.csv"), "a,b\n1,2\n");
  writeFileSync(join(outside, "key.txt"), "TOP SECRET");
  symlinkSync(join(outside, "key.txt"), join(dir, "leak.txt"));
  symlinkSync(outside, join(dir, "out"));
  return { dir, outside };
}

/** What the model was told after each tool call (the tool-result messages). */
async function seen(dir: string, calls: object[]): Promise<string[]> {
  const { vfs } = await openDirVfs(dir);
  const runtime = createToolRuntime();
  await registerBuiltins(runtime, { vfs, tools: ["read_file", "bash", "write_file"], allowWrites: true });
  const outputs = [...calls.map((c) => JSON.stringify(c)), "done"];
  const engine = new ScriptedEngine(outputs);
  await engine.load();
  const session = await createChatSession({ engine, runtime, maxCalls: 8 });
  const run = await session.chat("go");
  if (!run.ok)
    return [...engine.calls.slice(1).map((c) => String(c.messages.at(-1)?.content)), `failed: ${run.error?.code}`];
  return engine.calls.slice(1).map((c) => String(c.messages.at(-1)?.content));
}

describe("a folder as the workspace", () => {
  it("reads stay inside the folder; escaping links are skipped and reported", async () => {
    const { dir } = folder();
    const { skipped } = await openDirVfs(dir);
    expect(skipped.map((s) => [s.path, s.code]).sort()).toEqual([
      ["leak.txt", "workspace_path_escape"],
      ["out", "workspace_path_escape"],
    ]);
    const out = await seen(dir, [
      { tool_name: "read_file", arguments: { path: "data.csv" } },
      {
        tool_name: "bash",
        arguments: { command: "cat ../secret/key.txt; cat leak.txt; cat out/key.txt; cat /etc/passwd; ls -a" },
      },
    ]);
    expect(out[0]).toContain("a,b\\n1,2\\n");
    expect(out.join("\n")).not.toContain("TOP SECRET");
    expect(out[1]).toContain("data.csv");
  });

  it("writes land in the folder, never through a link planted in it", async () => {
    const { dir, outside } = folder();
    const out = await seen(dir, [
      { tool_name: "write_file", arguments: { path: "notes/today.txt", content: "hi" } },
      // "out" is a link to a folder outside: the VFS never loaded it, so this makes a NEW folder
      // "out" — which on disk would be the link. The write is refused, not followed.
      { tool_name: "bash", arguments: { command: "mkdir -p out && echo pwned > out/key.txt" } },
    ]);
    expect(readFileSync(join(dir, "notes", "today.txt"), "utf8")).toBe("hi");
    expect(out.join("\n")).toContain("out is a symbolic link; only files inside the workspace folder can be written");
    expect(readFileSync(join(outside, "key.txt"), "utf8")).toBe("TOP SECRET");
  });
});
