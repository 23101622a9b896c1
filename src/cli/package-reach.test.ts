// Only the imports a tools file reaches ask for packages, through real `edge` processes: a folder
// with an unrelated script that imports numpy still inspects, and a package imported by a module the
// tools file imports (tools.py → helpers.py → tabulate) is still found, named and sent.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeTestLock } from "../../test/wheels.ts";
import { edgeCliWithEnv, type CliResult } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-reach-"));
const WHEELS = join(tmp, "wheels");
const LOCK = join(tmp, "test-lock.json");
mkdirSync(WHEELS);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Pyodide's lock has no tabulate; a test wheel of that name stands in for it (this machine cannot
// download Pyodide's wheels, docs/packages.md).
writeTestLock(LOCK, WHEELS, [
  {
    name: "tabulate",
    version: "0.9.0",
    imports: ["tabulate"],
    files: { "tabulate.py": "def tabulate(rows):\n    return '|'.join(str(r) for r in rows)\n" },
  },
]);

function edge(env: Record<string, string>, ...argv: string[]): Promise<CliResult> {
  return edgeCliWithEnv({ ...process.env, EDGE_DATA_DIR: join(tmp, "data"), EDGE_PACKAGE_SOURCE: "", ...env }, ...argv);
}

function folder(name: string, files: Record<string, string>): string {
  const dir = join(tmp, name);
  mkdirSync(dir);
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return dir;
}

describe("the imports that count are the ones the tools file reaches", () => {
  it("an unrelated other.py that imports numpy never blocks seed_a.py; it is still mounted and hashed", {
    timeout: 120_000,
  }, async () => {
    const dir = folder("seeds", {
      "seed_a.py":
        'import json\nfrom edgestudio.tools import edge_tool\n\n@edge_tool(description="Echo text as JSON.")\ndef echo(text: str) -> str:\n    return json.dumps(text)\n',
      "other.py": "import numpy\nprint(numpy.zeros(3))\n",
    });
    const r = await edge({ EDGE_PACKAGE_LOCK: "" }, "tools", "inspect", join(dir, "seed_a.py"), "--json");
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.tools.map((t: { name: string }) => t.name)).toEqual(["echo"]);
    expect(r.json.tools_files.map((f: { path: string }) => f.path).sort()).toEqual(["other.py", "seed_a.py"]);
    expect(r.json.python_packages ?? []).toEqual([]);
    // The script that does import numpy is refused as before: the package is not on this device.
    const other = await edge({ EDGE_PACKAGE_LOCK: "" }, "tools", "inspect", join(dir, "other.py"), "--json");
    expect(other.json.errors[0].code).toBe("python_package_missing");
    expect(other.json.errors[0].message).toContain("numpy");
  });

  it("tools.py → helpers.py → import tabulate: reported missing, then added, sent and imported", {
    timeout: 180_000,
  }, async () => {
    const dir = folder("chain", {
      "tools.py":
        'from edgestudio.tools import edge_tool\nimport helpers\n\n@edge_tool(description="Render rows as a table.")\ndef table(n: int) -> str:\n    return helpers.render(list(range(n)))\n',
      "helpers.py": "from tabulate import tabulate\n\ndef render(rows):\n    return tabulate(rows)\n",
    });
    const env = { EDGE_PACKAGE_LOCK: LOCK };
    const missing = await edge(env, "tools", "inspect", join(dir, "tools.py"), "--json");
    expect(missing.code, missing.out + missing.err).toBe(1);
    expect(missing.json.errors[0].code).toBe("python_package_missing");
    expect(missing.json.errors[0].message).toContain("tabulate 0.9.0 (for `import tabulate`)");
    expect((await edge(env, "packages", "add", "tabulate", "--package-source", WHEELS)).code).toBe(0);
    const call = await edge(env, "tools", "call", join(dir, "tools.py"), "table", "--args", '{"n": 3}', "--json");
    expect(call.code, call.out + call.err).toBe(0);
    expect(call.json.result).toEqual({ result: "0|1|2" });
  });
});
