// A tools project: the folder of tools.py is mounted read-only at /tools, on sys.path and
// as the working directory, hashed into tools_bundle_sha256 at freeze time. Through the real CLI and
// real Node runner processes: sibling modules and data files, what is skipped, an edited sibling
// after the freeze (tools_file_changed naming it), the bounds, symlinks, --tools-root, receipts.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import canonicalize from "canonicalize";
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createNodeRunnerHost, projectFileSource } from "../runner/node.ts";
import { createNodeReceiptStore } from "../receipts/store-node.ts";
import { callTool } from "../toolset/call.ts";
import { freezeToolset } from "../toolset/freeze.ts";
import { cli } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-projects-"));
process.env.EDGE_DATA_DIR = join(tmp, "data");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const TOOLS = `
import json, os
from pathlib import Path
from edgestudio.tools import edge_tool
from helpers import RATE
from pkg.units import unit

with open("rates.json") as fh:          # read at import, relative to the working directory
    RATES = json.load(fh)

@edge_tool(description="Quote with the sibling module's rate and the data file beside tools.py.")
def quote(amount: float, tier: str = "basic") -> dict:
    note = (Path(__file__).parent / "data" / "note.txt").read_text().strip()
    return {"total": amount * RATE * RATES[tier], "unit": unit(), "note": note, "cwd": os.getcwd(), "file": __file__}

@edge_tool(description="What the tool can see and do in its folder.")
def probe() -> dict:
    try:
        open("new.txt", "w")
        wrote = "yes"
    except PermissionError:
        wrote = "PermissionError"
    seen = sorted(os.path.relpath(os.path.join(d, f), ".") for d, _, fs in os.walk(".") for f in fs)
    return {"wrote": wrote, "seen": seen}
`;

let n = 0;
/** A fresh project folder: tools.py, helpers.py, rates.json, pkg/, data/, and things to skip. */
function project(extra: (dir: string) => void = () => undefined): string {
  const dir = join(tmp, `p${n++}`);
  const put = (rel: string, text: string): void => {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  put("tools.py", TOOLS);
  put("helpers.py", "RATE = 2\n");
  put("rates.json", JSON.stringify({ basic: 1.5, pro: 3 }));
  put("pkg/__init__.py", "");
  put("pkg/units.py", "def unit():\n    return 'EUR'\n");
  put("data/note.txt", "beside tools.py\n");
  // Skipped: hidden files and folders, __pycache__, a virtualenv, node_modules.
  put(".env", "SECRET=1\n");
  put(".git/config", "[core]\n");
  put("__pycache__/helpers.cpython-314.pyc", "x");
  put("venv/pyvenv.cfg", "home = /usr/bin\n");
  put("venv/lib/site.py", "x = 1\n");
  put("node_modules/x/index.js", "1");
  extra(dir);
  return dir;
}

const sha = (data: string | Buffer): string => `sha256:${createHash("sha256").update(data).digest("hex")}`;

describe("a tools project through edge tools", () => {
  it("inspect --json lists every mounted file with its hash, what was skipped, and the bundle hash", {
    timeout: 180_000,
  }, async () => {
    const dir = project();
    const r = await cli("tools", "inspect", join(dir, "tools.py"), "--json");
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.tools_files.map((f: { path: string }) => f.path)).toEqual([
      "data/note.txt",
      "helpers.py",
      "pkg/__init__.py",
      "pkg/units.py",
      "rates.json",
      "tools.py",
    ]);
    const helpers = r.json.tools_files.find((f: { path: string }) => f.path === "helpers.py");
    expect(helpers).toEqual({ path: "helpers.py", sha256: sha("RATE = 2\n"), bytes: 9 });
    expect(r.json.tools_skipped).toEqual([
      { path: ".env", reason: "hidden" },
      { path: ".git", reason: "hidden" },
      { path: "__pycache__", reason: "pycache" },
      { path: "node_modules", reason: "node_modules" },
      { path: "venv", reason: "virtualenv" },
    ]);
    expect(r.json.tools_root).toBe(dir);
    // tools_bundle_sha256 is sha256(JCS({bundle_version, entry, files: {path: sha256}})), recomputed here.
    const files = Object.fromEntries(
      r.json.tools_files.map((f: { path: string; sha256: string }) => [f.path, f.sha256]),
    );
    expect(r.json.tools_bundle_sha256).toBe(
      sha(canonicalize({ bundle_version: "edge.tools.bundle.v1", entry: "tools.py", files })!),
    );
    expect(r.json.tools_file_sha256).toBe(sha(TOOLS));
  });

  it("a call imports the sibling module and reads the data files, in a read-only /tools; its receipt carries tools_bundle_sha256", {
    timeout: 180_000,
  }, async () => {
    const dir = project();
    const inspected = await cli("tools", "inspect", join(dir, "tools.py"), "--json");
    const r = await cli(
      "tools",
      "call",
      join(dir, "tools.py"),
      "quote",
      "--args",
      '{"amount": 10, "tier": "pro"}',
      "--json",
    );
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.result).toEqual({
      total: 60,
      unit: "EUR",
      note: "beside tools.py",
      cwd: "/tools",
      file: "/tools/tools.py",
    });
    const receipt = await createNodeReceiptStore().get(r.json.receipt_id);
    expect(receipt?.tools_bundle_sha256).toBe(inspected.json.tools_bundle_sha256);
    expect(receipt?.calls[0]?.tools_file_sha256_verified).toBe(true);

    const probe = await cli("tools", "call", join(dir, "tools.py"), "probe", "--json");
    expect(probe.code, probe.out + probe.err).toBe(0);
    // Only the mounted files exist for the tool; none of the skipped ones, and nothing is writable.
    expect(probe.json.result).toEqual({
      wrote: "PermissionError",
      seen: ["data/note.txt", "helpers.py", "pkg/__init__.py", "pkg/units.py", "rates.json", "tools.py"],
    });
  });

  it("--tools-root names a wider folder: the tools file's folder and the root are on sys.path, the root is the working directory", {
    timeout: 180_000,
  }, async () => {
    const root = join(tmp, `root${n++}`);
    mkdirSync(join(root, "app"), { recursive: true });
    writeFileSync(join(root, "shared.py"), "NAME = 'shared'\n");
    writeFileSync(join(root, "app", "local.py"), "NAME = 'local'\n");
    writeFileSync(join(root, "settings.json"), '{"x": 1}');
    writeFileSync(
      join(root, "app", "tools.py"),
      "import json, os\nfrom edgestudio.tools import edge_tool\nimport shared, local\n@edge_tool\ndef where() -> dict:\n    return {'cwd': os.getcwd(), 'names': [shared.NAME, local.NAME], 'x': json.load(open('settings.json'))['x'], 'file': __file__}\n",
    );
    const r = await cli("tools", "call", join(root, "app", "tools.py"), "where", "--tools-root", root, "--json");
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.result).toEqual({ cwd: "/tools", names: ["shared", "local"], x: 1, file: "/tools/app/tools.py" });
    const outside = await cli(
      "tools",
      "inspect",
      join(root, "app", "tools.py"),
      "--tools-root",
      join(root, "app", "nowhere"),
      "--json",
    );
    expect(outside.code).toBe(1);
    expect(outside.json.error.code).toBe("tools_root_invalid");
  });

  it("Edge's own data folder inside the project is never mounted", { timeout: 180_000 }, async () => {
    const dir = project();
    mkdirSync(join(dir, "edge-data", "receipts"), { recursive: true });
    writeFileSync(join(dir, "edge-data", "receipts", "r.json"), "{}");
    const before = process.env.EDGE_DATA_DIR;
    process.env.EDGE_DATA_DIR = join(dir, "edge-data");
    try {
      const r = await cli("tools", "inspect", join(dir, "tools.py"), "--json");
      expect(r.code, r.out + r.err).toBe(0);
      expect(r.json.tools_skipped).toContainEqual({ path: "edge-data", reason: "edge_data" });
      expect(r.json.tools_files.some((f: { path: string }) => f.path.startsWith("edge-data"))).toBe(false);
    } finally {
      process.env.EDGE_DATA_DIR = before;
    }
  });
});

describe("refused projects", () => {
  it("more files than the limit, or more bytes: tools_project_too_large, nothing imported", {
    timeout: 180_000,
  }, async () => {
    const many = project((dir) => {
      mkdirSync(join(dir, "many"));
      for (let i = 0; i < 1000; i++) writeFileSync(join(dir, "many", `f${i}.txt`), "x");
    });
    const r = await cli("tools", "inspect", join(many, "tools.py"), "--json");
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe("tools_project_too_large");
    expect(r.json.error.message).toContain("more than 1000 files");

    const big = project((dir) => writeFileSync(join(dir, "model.bin"), Buffer.alloc(16 * 1024 * 1024 + 1)));
    const b = await cli("tools", "validate", join(big, "tools.py"), "--json");
    expect(b.code).toBe(1);
    expect(b.json.error.code).toBe("tools_project_too_large");
    expect(b.json.error.message).toContain("model.bin");

    // --tools-root naming the tools file itself: the file alone (its imports then fail, as they must).
    const alone = await cli("tools", "inspect", join(big, "tools.py"), "--tools-root", join(big, "tools.py"), "--json");
    expect(alone.json.tools_files?.map((f: { path: string }) => f.path) ?? alone.json.error).toEqual(["tools.py"]);
    // A module in neither the project, the standard library nor Pyodide's lock (src/packages).
    expect(alone.json.error.code).toBe("python_package_not_in_lock");
    expect(alone.json.error.message).toContain("No module named 'helpers'");
    expect(alone.json.error.message).toContain("put the module's .py files into the tools project");
  });

  it("a symlink out of the folder (or to a folder) is refused; one to a file inside is mounted as that file", {
    timeout: 180_000,
  }, async () => {
    const out = project((dir) => symlinkSync("/etc/hostname", join(dir, "leak.txt")));
    const r = await cli("tools", "inspect", join(out, "tools.py"), "--json");
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe("tools_project_symlink_refused");
    expect(r.json.error.message).toContain("leak.txt");

    const folder = project((dir) => symlinkSync(join(dir, "pkg"), join(dir, "pkg2")));
    const f = await cli("tools", "inspect", join(folder, "tools.py"), "--json");
    expect(f.json.error.code).toBe("tools_project_symlink_refused");
    expect(f.json.error.message).toContain("a folder");

    const inside = project((dir) => symlinkSync(join(dir, "rates.json"), join(dir, "rates-link.json")));
    const ok = await cli("tools", "inspect", join(inside, "tools.py"), "--json");
    expect(ok.code, ok.out).toBe(0);
    const entry = (p: string) => ok.json.tools_files.find((x: { path: string }) => x.path === p);
    expect(entry("rates-link.json").sha256).toBe(entry("rates.json").sha256);
  });
});

describe("editing the project after the freeze fails closed, naming the file", () => {
  it("an edited sibling module, an edited data file, an added and a removed file: tools_file_changed in the runner", {
    timeout: 300_000,
  }, async () => {
    const dir = project();
    const host = createNodeRunnerHost({ spares: 1 });
    try {
      const toolset = await freezeToolset(projectFileSource(join(dir, "tools.py")), host);
      const call = () => callTool(toolset, host, "quote", { amount: 1 });
      expect((await call()).ok).toBe(true);

      writeFileSync(join(dir, "helpers.py"), "RATE = 1000\n");
      const edited = await call();
      expect(edited.ok).toBe(false);
      expect(edited.error).toMatchObject({ code: "tools_file_changed", file: "helpers.py" });
      expect(edited.error!.message).toContain("helpers.py changed after this session froze the tools project");
      expect(edited.tools_file_sha256_verified).toBe(false);
      writeFileSync(join(dir, "helpers.py"), "RATE = 2\n");
      expect((await call()).ok).toBe(true); // the frozen bytes again

      writeFileSync(join(dir, "data", "note.txt"), "edited\n");
      expect((await call()).error).toMatchObject({ code: "tools_file_changed", file: "data/note.txt" });
      writeFileSync(join(dir, "data", "note.txt"), "beside tools.py\n");

      writeFileSync(join(dir, "extra.py"), "X = 1\n");
      const added = await call();
      expect(added.error).toMatchObject({ code: "tools_file_changed", file: "extra.py" });
      expect(added.error!.message).toContain("was added");
      rmSync(join(dir, "extra.py"));

      rmSync(join(dir, "rates.json"));
      const removed = await call();
      expect(removed.error).toMatchObject({ code: "tools_file_changed", file: "rates.json" });
      expect(removed.error!.message).toContain("was removed");

      // A skipped file may change freely: it is not part of the project.
      writeFileSync(join(dir, "rates.json"), JSON.stringify({ basic: 1.5, pro: 3 }));
      writeFileSync(join(dir, ".env"), "SECRET=2\n");
      expect((await call()).ok).toBe(true);
    } finally {
      await host.close();
    }
  });

  it("edge tools confirm refuses a commit tool whose sibling module changed after the action was created", {
    timeout: 180_000,
  }, async () => {
    const dir = project((d) =>
      writeFileSync(
        join(d, "tools.py"),
        `${TOOLS}\n@edge_tool(execution_level="commit", return_direct=True, output_schema={"type": "object", "properties": {"rate": {"type": "number"}}, "required": ["rate"], "additionalProperties": False})\ndef book() -> dict:\n    return {"rate": RATE}\n`,
      ),
    );
    const asked = await cli("tools", "call", join(dir, "tools.py"), "book", "--json");
    expect(asked.json.outcome, asked.out).toBe("pending_confirmation");
    const { id, confirmation_token: token } = asked.json.pending_action;
    writeFileSync(join(dir, "helpers.py"), "RATE = 3\n");
    const r = await cli("tools", "confirm", id, "--token", token, "--json");
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe("tools_file_changed");
    expect(r.json.error.message).toContain("helpers.py");
  });
});
