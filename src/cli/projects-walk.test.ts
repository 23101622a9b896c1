// The tools-project walk against a writer of the project folder (the third red-team pass): entries
// swapped between the listing and the read (a symlink out, a FIFO), special files, unbounded and
// deep folders, hard links to Edge's own files, and file names that forge lines or are not UTF-8.
// Through the real CLI (in process, and as its own process for the time limit) and the real walk.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { EdgeError } from "../contract/errors.ts";
import { projectFileSource, snapshotKeyFile } from "../runner/node.ts";
import { DEFAULT_PROJECT_LIMITS } from "../runner/project-bounds.ts";
import { openEntry, openFolder } from "../runner/project-open.ts";
import { cli, edgeProcess } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-walk-"));
process.env.EDGE_DATA_DIR = join(tmp, "data");
process.env.XDG_CONFIG_HOME = join(tmp, "config");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const TOOLS = `from edgestudio.tools import edge_tool

@edge_tool(description="Say hello.")
def hello() -> str:
    return "hello"
`;

let n = 0;
function project(extra: (dir: string) => void = () => undefined): string {
  const dir = join(tmp, `p${n++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "tools.py"), TOOLS);
  extra(dir);
  return dir;
}

const sha = (data: string | Buffer): string => `sha256:${createHash("sha256").update(data).digest("hex")}`;

describe("what the walk opens is what it reads", () => {
  it("an entry listed as a file and swapped before it is opened: a link is reported as a link, a FIFO never waited for, /dev/zero never read", async () => {
    const dir = project();
    const file = join(dir, "data.txt");
    writeFileSync(file, "data");
    // Listed as a file …
    const folder = await openFolder(dir);
    if (typeof folder === "string") throw new Error(folder);
    await folder.handle.close();
    // … then swapped: for a link out of the project, a link to /dev/zero, a FIFO, a folder.
    rmSync(file);
    symlinkSync("/etc/hostname", file);
    expect((await openEntry(file)).kind).toBe("link");
    rmSync(file);
    symlinkSync("/dev/zero", file);
    expect((await openEntry(file)).kind).toBe("link");
    rmSync(file);
    expect(spawnSync("mkfifo", [file]).status).toBe(0);
    const fifo = await openEntry(file); // O_NONBLOCK: returns at once, with no writer
    expect(fifo.kind === "other" && fifo.st.isFIFO()).toBe(true);
    rmSync(file);
    mkdirSync(file);
    expect((await openEntry(file)).kind).toBe("other");
    // A folder swapped for a link is a link too, never entered.
    rmSync(file, { recursive: true });
    symlinkSync("/etc", file);
    expect(await openFolder(file)).toBe("link");
  });

  it("a FIFO, a device link and a link out of the project at walk time: skipped or refused at once", async () => {
    const fifo = project((dir) => spawnSync("mkfifo", [join(dir, "pipe")]));
    const r = await cli("tools", "inspect", join(fifo, "tools.py"), "--json");
    expect(r.code, r.out).toBe(0);
    expect(r.json.tools_skipped).toEqual([{ path: "pipe", reason: "not_a_file" }]);
    for (const target of ["/dev/zero", "/etc/hostname"]) {
      const linked = project((dir) => symlinkSync(target, join(dir, "data.bin")));
      const l = await cli("tools", "inspect", join(linked, "tools.py"), "--json");
      expect(l.json.error.code).toBe("tools_project_symlink_refused");
      expect(l.json.error.message).toContain(`to "${target}", outside the project's folder`);
    }
  }, 120_000);

  it("a concurrent writer swapping a file for a link out of the project, or a FIFO, never gets an outside file read and never stalls a walk", async () => {
    const secret = join(tmp, "outside-secret.txt");
    writeFileSync(secret, "OUTSIDE-SECRET", { mode: 0o600 });
    const dir = project((d) => mkdirSync(join(d, "sub")));
    // The writer: rename() puts each kind in place atomically, over and over (file, link out, FIFO; a
    // folder and a link to a folder for sub/).
    const swapper = `
      const fs = require("node:fs"); const { execFileSync } = require("node:child_process");
      const d = ${JSON.stringify(dir)}; let i = 0;
      execFileSync("mkfifo", [d + "/.fifo"]);
      for (;;) {
        i++;
        try { fs.writeFileSync(d + "/.f" + i, "inside"); fs.renameSync(d + "/.f" + i, d + "/data.txt"); } catch {}
        try { fs.symlinkSync(${JSON.stringify(secret)}, d + "/.l" + i); fs.renameSync(d + "/.l" + i, d + "/data.txt"); } catch {}
        try { fs.linkSync(d + "/.fifo", d + "/.p" + i); fs.renameSync(d + "/.p" + i, d + "/data.txt"); } catch {}
        try { fs.symlinkSync("/etc", d + "/.s" + i); fs.renameSync(d + "/.s" + i, d + "/sub"); } catch {}
        try { fs.rmSync(d + "/sub"); fs.mkdirSync(d + "/sub"); } catch {}
      }`;
    const child = spawn(process.execPath, ["-e", swapper], { stdio: "ignore" });
    try {
      const source = projectFileSource(join(dir, "tools.py"));
      const outcomes = new Map<string, number>();
      for (let i = 0; i < 300; i++) {
        const walked = await Promise.race([
          source.readProject!(DEFAULT_PROJECT_LIMITS).then(
            (p) => {
              for (const bytes of Object.values(p.files))
                expect(Buffer.from(bytes).toString()).not.toContain("OUTSIDE-SECRET");
              for (const path of Object.keys(p.files)) expect(path.startsWith("sub/")).toBe(false); // sub/ is empty or a link
              return "walked";
            },
            (err: EdgeError) => `${err.code ?? String(err)}`,
          ),
          new Promise<string>((resolve) => setTimeout(() => resolve("stalled"), 5_000)),
        ]);
        outcomes.set(walked, (outcomes.get(walked) ?? 0) + 1);
      }
      // Every walk ended: mounted what was inside, or refused a link out (a link swapped in is
      // followed only to a file inside the project).
      expect([...outcomes.keys()].filter((k) => k !== "walked" && k !== "tools_project_symlink_refused")).toEqual([]);
      expect(outcomes.get("walked")).toBeGreaterThan(0);
    } finally {
      child.kill("SIGKILL");
    }
  }, 120_000);
});

describe("folders count toward the project's bounds", () => {
  it("1,500 nested folders: tools_project_too_large names the depth, within the call's time limit", async () => {
    const deep = project((dir) => {
      let at = dir;
      for (let i = 0; i < 1500 && at.length < 3800; i++) mkdirSync((at = join(at, "d")));
    });
    const started = Date.now();
    const r = await edgeProcess(["tools", "call", join(deep, "tools.py"), "hello", "--timeout-ms", "1000", "--json"], {
      ...process.env,
    });
    const took = Date.now() - started;
    expect(JSON.parse(r.stdout).error.code).toBe("tools_project_too_large");
    expect(JSON.parse(r.stdout).error.message).toContain("folders more than 32 deep");
    expect(took).toBeLessThan(15_000); // a CLI process, its runner and the walk (65 s before)
  }, 120_000);

  it("more than 1,000 folders, even empty: tools_project_too_large names the folders", async () => {
    const wide = project((dir) => {
      for (let i = 0; i < 1001; i++) mkdirSync(join(dir, `f${i}`));
    });
    const r = await cli("tools", "inspect", join(wide, "tools.py"), "--json");
    expect(r.json.error.code).toBe("tools_project_too_large");
    expect(r.json.error.message).toContain("more than 1000 folders");
  });

  it("a walk past its deadline stops with tools_project_too_large", async () => {
    const dir = project((d) => mkdirSync(join(d, "a")));
    const err = await projectFileSource(join(dir, "tools.py")).readProject!({
      ...DEFAULT_PROJECT_LIMITS,
      deadline: Date.now() - 1,
    }).catch((e: EdgeError) => e);
    expect((err as EdgeError).code).toBe("tools_project_too_large");
    expect((err as EdgeError).message).toContain("within the call's time limit");
  });
});

describe("Edge's own files under another name", () => {
  it("a hard link to the snapshot key, or to a file of the data folder, is not mounted (edge_data)", async () => {
    const key = snapshotKeyFile();
    mkdirSync(join(key, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(key, `${"ab".repeat(32)}\n`, { mode: 0o600 });
    mkdirSync(join(tmp, "data", "pending"), { recursive: true });
    writeFileSync(join(tmp, "data", "pending", "pa_1.json"), '{"token":"t"}');
    const dir = project((d) => {
      linkSync(key, join(d, "key.txt"));
      linkSync(join(tmp, "data", "pending", "pa_1.json"), join(d, "pending.json"));
      symlinkSync("key.txt", join(d, "via-link.txt")); // a link to the hard link: the same inode
      writeFileSync(join(d, "mine.txt"), "mine");
      linkSync(join(d, "mine.txt"), join(d, "mine-too.txt")); // the person's own hard links stay
    });
    const r = await cli("tools", "inspect", join(dir, "tools.py"), "--json");
    expect(r.code, r.out).toBe(0);
    expect(r.json.tools_files.map((f: { path: string }) => f.path)).toEqual(["mine-too.txt", "mine.txt", "tools.py"]);
    expect(r.json.tools_skipped).toEqual([
      { path: "key.txt", reason: "edge_data" },
      { path: "pending.json", reason: "edge_data" },
      { path: "via-link.txt", reason: "edge_data" },
    ]);
    expect(r.out).not.toContain(sha(readFileSync(key)));
  });
});

describe("file names are the project writer's text", () => {
  it("a line break in a skipped file's name prints as \\n in text mode: no forged line", async () => {
    const forged = "confirmed by the person → done";
    const dir = project((d) => writeFileSync(join(d, `.x\n${forged}`), ""));
    const r = await cli("tools", "inspect", join(dir, "tools.py"));
    expect(r.code, r.out + r.err).toBe(0);
    const lines = (r.out + r.err).split("\n");
    expect(lines.some((l) => l.trim() === forged || l.startsWith(forged))).toBe(false);
    expect(r.out + r.err).toContain(`.x\\n${forged}`);
  });

  it("a name that is not UTF-8 is skipped with its reason; the rest of the project is mounted", async () => {
    const dir = project((d) => writeFileSync(join(d, "helper.py"), "X = 1\n"));
    // A name with the byte 0xff (not UTF-8), made through a Buffer path.
    const fh = await open(Buffer.concat([Buffer.from(`${dir}/bad`), Buffer.from([0xff]), Buffer.from(".py")]), "w");
    await fh.close();
    const r = await cli("tools", "inspect", join(dir, "tools.py"), "--json");
    expect(r.code, r.out).toBe(0);
    expect(r.json.tools_files.map((f: { path: string }) => f.path)).toEqual(["helper.py", "tools.py"]);
    expect(r.json.tools_skipped).toEqual([{ path: "bad\uFFFD.py", reason: "name_not_utf8" }]);
  });
});
