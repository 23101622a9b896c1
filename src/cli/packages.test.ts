// Python packages of a tools project through real `edge` processes and real
// runner processes. This machine cannot download Pyodide's real wheels, so the tests build small
// pure-Python wheels (test/wheels.ts) and a pyodide-lock.json naming them (with Pyodide's own ABI),
// served from a local folder and from a local HTTP server: resolution from imports (with a
// dependency), the sha256 check (a tampered wheel is refused and nothing is stored), offline reuse,
// the receipt entries, the missing-package and outside-the-lock errors, list/verify/remove.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeReceiptStore } from "../receipts/store-node.ts";
import { writeTestLock, type BuiltWheel } from "../../test/wheels.ts";
import { edgeCliWithEnv, type CliResult } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-packages-"));
const WHEELS = join(tmp, "wheels");
const LOCK = join(tmp, "test-lock.json");
const DATA = join(tmp, "data");
mkdirSync(WHEELS);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const built: Record<string, BuiltWheel> = writeTestLock(
  LOCK,
  WHEELS,
  [
    {
      name: "edgepkg-alpha",
      version: "1.2.0",
      imports: ["edgealpha"],
      depends: ["edgepkg-beta"],
      files: { "edgealpha/__init__.py": "from edgebeta import base\n\ndef rate(x):\n    return base() * x\n" },
    },
    {
      name: "edgepkg-beta",
      version: "0.3.1",
      imports: ["edgebeta"],
      files: { "edgebeta.py": "def base():\n    return 7\n" },
    },
  ],
  ["numpy"],
);

/** `edge ARGV…` as its own process, with the test lock and `dataDir` (extra env on top). */
function edge(env: Record<string, string>, ...argv: string[]): Promise<CliResult> {
  return edgeCliWithEnv(
    { ...process.env, EDGE_DATA_DIR: DATA, EDGE_PACKAGE_LOCK: LOCK, EDGE_PACKAGE_SOURCE: "", ...env },
    ...argv,
  );
}

let n = 0;
function project(tools: string): string {
  const dir = join(tmp, `proj${n++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "tools.py"), tools);
  return join(dir, "tools.py");
}

const USES_ALPHA = `from edgestudio.tools import edge_tool
import edgealpha

@edge_tool(description="Multiply by the packaged rate.")
def scaled(x: int) -> dict:
    import edgebeta
    return {"value": edgealpha.rate(x), "base": edgebeta.base(), "where": edgealpha.__file__}
`;

const frozenSet = () => [
  {
    name: "edgepkg-beta",
    version: "0.3.1",
    file_name: built["edgepkg-beta"]!.file_name,
    sha256: `sha256:${built["edgepkg-beta"]!.sha256}`,
    source: "pyodide-lock",
  },
  {
    name: "edgepkg-alpha",
    version: "1.2.0",
    file_name: built["edgepkg-alpha"]!.file_name,
    sha256: `sha256:${built["edgepkg-alpha"]!.sha256}`,
    source: "pyodide-lock",
  },
];

describe("edge packages and a tools project that imports them", () => {
  // The first command on a fresh data folder: it fails before any job while the runner snapshot is
  // still being made, and must exit (closing the host used to leave the snapshot's boot timer armed).
  it("a package not on the device fails before anything runs, naming it and the exact add command", {
    timeout: 120_000,
  }, async () => {
    const tools = project(USES_ALPHA);
    const r = await edge({}, "tools", "call", tools, "scaled", "--args", '{"x": 2}', "--json");
    expect(r.code, r.out + r.err).toBe(1);
    expect(r.json.error.code).toBe("python_package_missing");
    expect(r.json.error.message).toContain("edgepkg-alpha 1.2.0 (for `import edgealpha`)");
    // tools.py imports both (edgebeta inside its function): both are named, in install order.
    expect(r.json.error.message).toContain("edgepkg-beta 0.3.1 (for `import edgebeta`)");
    expect(r.json.error.message).toContain("Run `edge packages add edgepkg-beta edgepkg-alpha` once");
    expect(r.json.error).toMatchObject({
      packages: ["edgepkg-beta", "edgepkg-alpha"],
      command: "edge packages add edgepkg-beta edgepkg-alpha",
    });

    // With Pyodide's real lock: numpy exists there, is not stored, and is named with its command.
    const np = await edge({ EDGE_PACKAGE_LOCK: "" }, "tools", "inspect", project("import numpy\n"), "--json");
    expect(np.json.errors[0].code).toBe("python_package_missing");
    expect(np.json.errors[0].message).toMatch(/numpy 2\.[0-9.]+ \(for `import numpy`\).*`edge packages add numpy`/);
  });

  it("add fetches a package and its dependency from a folder, checked against the lock; a call imports both", {
    timeout: 180_000,
  }, async () => {
    const add = await edge({}, "packages", "add", "edgepkg-alpha", "--package-source", WHEELS, "--json");
    expect(add.code, add.out + add.err).toBe(0);
    expect(add.json.packages.map((p: any) => [p.name, p.status, p.requested])).toEqual([
      ["edgepkg-beta", "added", false],
      ["edgepkg-alpha", "added", true],
    ]);
    expect(existsSync(join(DATA, "packages", built["edgepkg-alpha"]!.file_name))).toBe(true);

    const tools = project(USES_ALPHA);
    const inspect = await edge({}, "tools", "inspect", tools, "--json");
    expect(inspect.code, inspect.out + inspect.err).toBe(0);
    expect(inspect.json.python_packages).toEqual(
      frozenSet().map((p) => ({ ...p, bytes: readFileSync(join(WHEELS, p.file_name)).byteLength })),
    );

    const call = await edge({}, "tools", "call", tools, "scaled", "--args", '{"x": 3}', "--json");
    expect(call.code, call.out + call.err).toBe(0);
    expect(call.json.result).toMatchObject({ value: 21, base: 7 });
    expect(call.json.result.where).toMatch(/site-packages\/edgealpha\/__init__\.py$/);

    // The receipt records the frozen set: names, versions, wheel files and the lock's sha256.
    const withPackages = (await createNodeReceiptStore({ dir: DATA }).list()).filter((r) => r.python_packages);
    expect(withPackages.map((r) => [r.kind, r.outcome])).toEqual([["tool_call", "return_direct"]]);
    expect(withPackages[0]!.python_packages).toEqual(frozenSet());
  });

  it("offline: with the source gone, stored packages still serve calls and add contacts nothing", {
    timeout: 180_000,
  }, async () => {
    const gone = join(tmp, "gone");
    const again = await edge({}, "packages", "add", "edgepkg-alpha", "--package-source", gone, "--json");
    expect(again.code, again.out + again.err).toBe(0);
    expect(again.json.packages.map((p: any) => p.status)).toEqual(["cached", "cached"]);
    const call = await edge(
      { EDGE_PACKAGE_SOURCE: gone },
      "tools",
      "call",
      project(USES_ALPHA),
      "scaled",
      "--args",
      '{"x": 1}',
      "--json",
    );
    expect(call.code, call.out + call.err).toBe(0);
    expect(call.json.result.value).toBe(7);
  });

  it("an import outside the lock has its own code, and so has adding a name outside it", {
    timeout: 120_000,
  }, async () => {
    const r = await edge(
      {},
      "tools",
      "validate",
      project("from edgestudio.tools import edge_tool\nimport not_a_package_xyz\n"),
      "--json",
    );
    expect(r.code).toBe(1);
    expect(r.json.errors[0].code).toBe("python_package_not_in_lock");
    expect(r.json.errors[0].message).toContain("No module named 'not_a_package_xyz'");
    expect(r.json.errors[0].message).toContain("edge packages lock");
    const add = await edge({}, "packages", "add", "not-a-package-xyz", "--package-source", WHEELS, "--json");
    expect(add.code).toBe(1);
    expect(add.json.error.code).toBe("python_package_not_in_lock");
  });

  it("a tampered wheel is refused at the source (nothing stored) and in the store (never used)", {
    timeout: 120_000,
  }, async () => {
    const data = join(tmp, "data-tampered");
    const evil = join(tmp, "evil");
    cpSync(WHEELS, evil, { recursive: true });
    const beta = join(evil, built["edgepkg-beta"]!.file_name);
    const bytes = readFileSync(beta);
    bytes[bytes.length - 30] = bytes[bytes.length - 30]! ^ 0xff;
    writeFileSync(beta, bytes);
    const add = await edge(
      { EDGE_DATA_DIR: data },
      "packages",
      "add",
      "edgepkg-alpha",
      "--package-source",
      evil,
      "--json",
    );
    expect(add.code).toBe(1);
    expect(add.json.error.code).toBe("python_package_hash_mismatch");
    expect(add.json.error.message).toContain(built["edgepkg-beta"]!.file_name);
    expect(existsSync(join(data, "packages", built["edgepkg-beta"]!.file_name))).toBe(false);
    expect(existsSync(join(data, "packages", built["edgepkg-alpha"]!.file_name))).toBe(false); // beta comes first and stops the add

    // A stored wheel changed on disk: verify names it, and a freeze refuses it before any runner.
    expect(
      (await edge({ EDGE_DATA_DIR: data }, "packages", "add", "edgepkg-alpha", "--package-source", WHEELS)).code,
    ).toBe(0);
    writeFileSync(join(data, "packages", built["edgepkg-beta"]!.file_name), bytes);
    const verify = await edge({ EDGE_DATA_DIR: data }, "packages", "verify", "--json");
    expect(verify.code).toBe(1);
    expect(verify.json.errors.map((e: any) => [e.code, e.package])).toEqual([
      ["python_package_hash_mismatch", "edgepkg-beta"],
    ]);
    const call = await edge(
      { EDGE_DATA_DIR: data },
      "tools",
      "call",
      project(USES_ALPHA),
      "scaled",
      "--args",
      '{"x": 1}',
      "--json",
    );
    expect(call.code).toBe(1);
    expect(call.json.error.code).toBe("python_package_hash_mismatch");
    // add again replaces the bad file from an intact source.
    expect(
      (await edge({ EDGE_DATA_DIR: data }, "packages", "add", "edgepkg-beta", "--package-source", WHEELS, "--json"))
        .json.packages[0].status,
    ).toBe("added");
    expect((await edge({ EDGE_DATA_DIR: data }, "packages", "verify", "--json")).code).toBe(0);
  });

  it("list, verify and remove", { timeout: 120_000 }, async () => {
    const list = await edge({}, "packages", "list", "--json");
    expect(list.json.packages.map((p: any) => p.name)).toEqual(["edgepkg-alpha", "edgepkg-beta"]);
    const human = await edge({}, "packages", "list");
    expect(human.out).toMatch(/edgepkg-alpha\s+1\.2\.0\s+\d+ (bytes|KB)\s+sha256:/);
    expect((await edge({}, "packages", "verify")).out).toMatch(/^ok\s+edgepkg-alpha/m);
    const rm = await edge({}, "packages", "remove", "edgepkg-alpha", "--json");
    expect(rm.json.packages).toEqual([
      { name: "edgepkg-alpha", file_name: built["edgepkg-alpha"]!.file_name, removed: true },
    ]);
    expect((await edge({}, "packages", "list", "--json")).json.packages.map((p: any) => p.name)).toEqual([
      "edgepkg-beta",
    ]);
    expect((await edge({}, "packages", "remove", "edgepkg-alpha")).out).toContain("not stored edgepkg-alpha");
  });
});

describe("an HTTP package source", () => {
  let server: Server;
  let base = "";
  const requests: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? "");
      const file = join(WHEELS, decodeURIComponent((req.url ?? "/").slice("/pyodide/".length)));
      if (!req.url?.startsWith("/pyodide/") || !existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const addr = server.address();
    base = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}/pyodide`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("fetches each wheel once ($EDGE_PACKAGE_SOURCE), then never again; a 404 is python_package_fetch_failed", {
    timeout: 120_000,
  }, async () => {
    const data = join(tmp, "data-http");
    const add = await edge(
      { EDGE_DATA_DIR: data, EDGE_PACKAGE_SOURCE: base },
      "packages",
      "add",
      "edgealpha",
      "--json",
    );
    expect(add.code, add.out + add.err).toBe(0);
    expect(add.json.source).toBe(`${base}/`);
    expect(requests.sort()).toEqual(
      [built["edgepkg-alpha"]!.file_name, built["edgepkg-beta"]!.file_name].map((f) => `/pyodide/${f}`).sort(),
    );
    requests.length = 0;
    expect(
      (
        await edge({ EDGE_DATA_DIR: data, EDGE_PACKAGE_SOURCE: base }, "packages", "add", "edgepkg-alpha", "--json")
      ).json.packages.map((p: any) => p.status),
    ).toEqual(["cached", "cached"]);
    expect(requests).toEqual([]);
    const miss = await edge(
      { EDGE_DATA_DIR: join(tmp, "data-404") },
      "packages",
      "add",
      "edgepkg-beta",
      "--package-source",
      `${base}/nothing-here/`,
      "--json",
    );
    expect(miss.code).toBe(1);
    expect(miss.json.error.code).toBe("python_package_fetch_failed");
    expect(miss.json.error.message).toContain("HTTP 404");
  });
});
