// Declared dependencies of a tools project, locked from the real PyPI and installed in real runners,
// through real `edge` processes: a PEP 723 header (tabulate, python-dateutil with six) and a
// requirements.txt; the lock's wheels fetched once, then offline; a tampered stored wheel and a
// hand-edited or stale lock refused; Requires-Python and platform-only packages refused with
// their reason; a wheel built for Pyodide (PEP 783) with a C extension; a package only Pyodide
// builds (numpy) pinned from Pyodide's lock. The index is PyPI seen through a local pass-through
// (test/pypi-mirror.ts) that counts requests and can be switched off, so "offline after once" is
// measured, not assumed. Needs PyPI (pypi.org, files.pythonhosted.org):
// skipped without it, unless EDGE_REQUIRE_PYPI=1 (CI) makes that a failure.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createNodeReceiptStore } from "../receipts/store-node.ts";
import { edgeCliWithEnv, type CliResult } from "../../test/cli.ts";
import { PypiMirror } from "../../test/pypi-mirror.ts";
import { newClient, stdioServer } from "./mcp.test-helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-lock-"));
const DATA = join(tmp, "data");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const pypi = await PypiMirror.reachable();
if (!pypi && process.env.EDGE_REQUIRE_PYPI === "1")
  throw new Error("EDGE_REQUIRE_PYPI=1 but https://pypi.org/simple/ cannot be reached from this machine.");

// PyPI's pages as this machine receives them (no core-metadata: the resolver reads each wheel's METADATA).
const index = new PypiMirror({ metadataApart: false });
beforeAll(() => (pypi ? index.start() : undefined));
afterAll(() => index.close());

function edge(...argv: string[]): Promise<CliResult> {
  return edgeCliWithEnv(
    {
      ...process.env,
      EDGE_DATA_DIR: DATA,
      EDGE_PACKAGE_INDEX: index.url,
      EDGE_PACKAGE_LOCK: "",
      EDGE_PACKAGE_SOURCE: "",
    },
    ...argv,
  );
}

let n = 0;
function project(files: Record<string, string>): string {
  const dir = join(tmp, `proj${n++}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return join(dir, "tools.py");
}

const PEP723 = `# /// script
# requires-python = ">=3.11"
# dependencies = [
#   "tabulate>=0.9",
#   "python-dateutil==2.9.0.post0",
# ]
# ///
from edgestudio.tools import edge_tool
import tabulate
from dateutil import parser

@edge_tool(description="The weekday of a date, and a one-row table of it.")
def weekday(date: str) -> dict:
    import six
    day = parser.parse(date).strftime("%A")
    return {"day": day, "table": tabulate.tabulate([[date, day]], headers=["date", "day"]), "six": six.__version__, "where": tabulate.__file__}
`;

const PLAIN = (imp: string) => `from edgestudio.tools import edge_tool
import ${imp}

@edge_tool(description="Echo.")
def echo(text: str) -> str:
    return text
`;

describe.skipIf(!pypi)("edge packages lock: declared dependencies from PyPI, pinned by pylock.toml", () => {
  const tools = project({ "tools.py": PEP723 });
  const lockFile = join(tools, "..", "pylock.toml");

  it("without a lock, a freeze names the command that makes one", async () => {
    const r = await edge("tools", "inspect", tools, "--json");
    expect(r.code).toBe(1);
    expect(r.json.errors[0].code).toBe("python_lock_missing");
    expect(r.json.errors[0].command).toBe(`edge packages lock ${tools}`);
  });

  it("resolves the PEP 723 header, with python-dateutil's own dependency six, into pylock.toml and fetches each wheel once", async () => {
    const r = await edge("packages", "lock", tools, "--json");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.json.status).toBe("written");
    const names = r.json.packages.map(
      (p: { name: string; source: string; status: string }) => `${p.name}:${p.source}:${p.status}`,
    );
    expect(names).toEqual(["six:pypi:added", "python-dateutil:pypi:added", "tabulate:pypi:added"]);
    const text = readFileSync(lockFile, "utf8");
    expect(text).toMatch(/^lock-version = "1\.0"$/m);
    expect(text).toContain('name = "python_dateutil-2.9.0.post0-py2.py3-none-any.whl"');
    expect(readdirSync(join(DATA, "packages", "pypi")).sort()).toEqual(
      r.json.packages.map((p: { file_name: string }) => p.file_name).sort(),
    );
  }, 120_000);

  it("calls the tools in a runner with the pinned wheels, records them and the lock's sha256 in the receipt, and works with the index switched off", async () => {
    index.online = false;
    const before = index.requests.length;
    const r = await edge("tools", "call", tools, "weekday", "--args", '{"date": "2026-12-06"}', "--json");
    expect(r.err).toBe("");
    expect(r.json.result).toMatchObject({ day: "Sunday", six: "1.17.0" });
    expect(r.json.result.table).toContain("2026-12-06  Sunday");
    expect(r.json.result.where).toMatch(/site-packages\/tabulate/);
    expect(index.requests.length).toBe(before);
    const receipt = (await createNodeReceiptStore({ dir: DATA }).list()).find((x) => x.id === r.json.receipt_id)!;
    expect(receipt.python_packages!.map((p) => `${p.name} ${p.version} ${p.source}`)).toEqual([
      "six 1.17.0 pypi",
      "python-dateutil 2.9.0.post0 pypi",
      "tabulate 0.10.0 pypi",
    ]);
    const { createHash } = await import("node:crypto");
    expect(receipt.python_lock_sha256).toBe(
      `sha256:${createHash("sha256").update(readFileSync(lockFile)).digest("hex")}`,
    );
    // Locking again offline: the lock is current and every wheel is stored, so nothing is asked.
    const again = await edge("packages", "lock", tools, "--json");
    expect(again.json).toMatchObject({ ok: true, status: "current" });
    expect(again.json.packages.every((p: { status: string }) => p.status === "cached")).toBe(true);
    index.online = true;
  }, 120_000);

  it("serves the same tools over MCP (stdio, the SDK's client), offline", async () => {
    index.online = false;
    const before = index.requests.length;
    const s = await stdioServer(
      { dir: join(tools, ".."), file: tools, dataDir: DATA },
      newClient("edge-lock-test", "1.0.0"),
    );
    try {
      const r = (await s.client.callTool({ name: "weekday", arguments: { date: "2026-12-07" } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ day: "Monday", six: "1.17.0" });
      // The lock is part of the frozen project: changing it ends the session, as a changed tools file does.
      const text = readFileSync(lockFile, "utf8");
      writeFileSync(lockFile, `${text}# a note\n`);
      const changed = (await s.client.callTool({
        name: "weekday",
        arguments: { date: "2026-12-07" },
      })) as CallToolResult;
      writeFileSync(lockFile, text);
      expect(changed.isError).toBe(true);
      expect(JSON.parse((changed.content[0] as { text: string }).text).error).toMatchObject({
        code: "tools_file_changed",
        message: expect.stringContaining("pylock.toml"),
      });
    } finally {
      await s.client.close();
      index.online = true;
    }
    expect(index.requests.length).toBe(before);
  }, 180_000);

  it("refuses a tampered stored wheel (nothing imported), and a lock edited by hand", async () => {
    const stored = join(DATA, "packages", "pypi", "tabulate-0.10.0-py3-none-any.whl");
    const good = readFileSync(stored);
    writeFileSync(stored, Buffer.concat([good, Buffer.from("x")]));
    const r = await edge("tools", "call", tools, "weekday", "--args", '{"date": "2026-12-06"}', "--json");
    expect(r.json.error.code).toBe("python_package_hash_mismatch");
    // A wheel that arrives with other bytes than the index's sha256: refused, nothing stored.
    rmSync(stored);
    index.tamper.add("tabulate-0.10.0-py3-none-any.whl");
    const tampered = await edge("packages", "lock", tools, "--json");
    index.tamper.clear();
    expect(tampered.json.error.code).toBe("python_package_hash_mismatch");
    expect(existsSync(stored)).toBe(false);
    expect(
      (await edge("packages", "lock", tools, "--json")).json.packages.map((p: { status: string }) => p.status),
    ).toEqual(["cached", "cached", "added"]);
    expect(readFileSync(stored)).toEqual(good);
    const text = readFileSync(lockFile, "utf8");
    writeFileSync(lockFile, text.replace('version = "0.10.0"', 'version = "0.9.0"'));
    const edited = await edge("tools", "call", tools, "weekday", "--args", '{"date": "2026-12-06"}', "--json");
    expect(edited.json.error.code).toBe("python_lock_invalid");
    expect(edited.json.error.message).toContain(`edge packages lock ${tools}`);
    writeFileSync(lockFile, text);
  }, 120_000);

  it("a changed declaration makes the lock stale until it is locked again", async () => {
    const dir = join(tools, "..");
    const stale = project({ "tools.py": PLAIN("tabulate"), "requirements.txt": "tabulate>=0.9\n" });
    expect((await edge("packages", "lock", stale)).code).toBe(0);
    writeFileSync(join(stale, "..", "requirements.txt"), "tabulate>=0.9\nsix\n");
    const r = await edge("tools", "call", stale, "echo", "--args", '{"text": "x"}', "--json");
    expect(r.json.error.code).toBe("python_lock_stale");
    expect((await edge("packages", "lock", stale)).code).toBe(0);
    expect((await edge("tools", "call", stale, "echo", "--args", '{"text": "x"}', "--json")).json.result).toEqual({
      result: "x",
    });
    expect(existsSync(join(dir, "requirements.txt"))).toBe(false);
  }, 120_000);

  it("says why a package cannot be installed: Requires-Python, platform wheels only, a requirements line it cannot honour", async () => {
    const old = await edge(
      "packages",
      "lock",
      project({ "tools.py": PLAIN("json"), "requirements.txt": "dataclasses==0.8\n" }),
      "--json",
    );
    expect(old.json.error.code).toBe("python_package_unavailable");
    expect(old.json.error.message).toContain("0.8 needs Python >=3.6, <3.7");
    const native = await edge(
      "packages",
      "lock",
      project({ "tools.py": PLAIN("json"), "requirements.txt": "psutil\n" }),
      "--json",
    );
    expect(native.json.error.code).toBe("python_package_unavailable");
    expect(native.json.error.message).toMatch(
      /wheels for other platforms only.*Pyodide's lock does not have it either/,
    );
    const option = await edge(
      "packages",
      "lock",
      project({
        "tools.py": PLAIN("json"),
        "requirements.txt": "# tools\ntabulate\n--index-url https://example.org/simple\n",
      }),
      "--json",
    );
    expect(option.json.error.code).toBe("python_requirement_invalid");
    expect(option.json.error.message).toContain("requirements.txt line 3");
  }, 120_000);

  it("installs a wheel built for Pyodide (PEP 783: xxhash's C extension, pyemscripten_2026_0_wasm32) in preference to any other", async () => {
    const xx = project({
      "tools.py": `from edgestudio.tools import edge_tool
import xxhash

@edge_tool(description="The xxh64 of a text.")
def digest(text: str) -> str:
    return xxhash.xxh64(text.encode()).hexdigest()
`,
      "requirements.txt": "xxhash==4.1.0\n",
    });
    const r = await edge("packages", "lock", xx, "--json");
    expect(r.json.packages).toEqual([
      expect.objectContaining({
        name: "xxhash",
        source: "pypi",
        file_name: "xxhash-4.1.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl",
        status: "added",
      }),
    ]);
    const call = await edge("tools", "call", xx, "digest", "--args", '{"text": "abc"}', "--json");
    expect(call.json.result).toEqual({ result: "44bc2cf5ad770999" }); // XXH64("abc"), seed 0
  }, 120_000);

  it("pins a package that only Pyodide builds (numpy) from Pyodide's lock, and says where its wheel must come from", async () => {
    const np = project({ "tools.py": PLAIN("numpy"), "requirements.txt": "numpy\n" });
    const r = await edge("packages", "lock", np, "--json", "--package-source", join(tmp, "no-wheels-here"));
    expect(r.json.packages).toEqual([
      expect.objectContaining({ name: "numpy", source: "pyodide-lock", status: "failed" }),
    ]);
    expect(r.json.error.code).toBe("python_package_fetch_failed");
    expect(readFileSync(join(np, "..", "pylock.toml"), "utf8")).toMatch(/source = "pyodide-lock"/);
    const call = await edge("tools", "call", np, "echo", "--args", '{"text": "x"}', "--json");
    expect(call.json.error.code).toBe("python_package_missing");
  }, 120_000);
});
