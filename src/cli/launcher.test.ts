// `edge` runs the CLI built from the sources (bin/edge.cjs, scripts/build-cli.mjs), never
// a stale build, and each command loads only its own modules. The launcher runs from a copy of the
// package (its own sources, linked to this node_modules) with its build cache outside the copy, as
// a user's cache is for an install they cannot write to: so a source can be edited here, and
// package imports resolve through the build's links.
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERRORS } from "../contract/error-table.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "edge-launcher-"));
const PKG = join(tmp, "pkg");
const CACHE = join(tmp, "cli-cache");
for (const part of ["bin", "scripts", "src", "workers", "runner-pyodide", "package.json", "tsconfig.json"]) {
  cpSync(join(ROOT, part), join(PKG, part), { recursive: true, filter: (src) => !src.endsWith(".test.ts") });
}
symlinkSync(join(ROOT, "node_modules"), join(PKG, "node_modules"), "junction");
const ENV = { ...process.env, EDGE_CLI_CACHE: CACHE, EDGE_DATA_DIR: join(tmp, "data") };

function edge(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(PKG, "bin", "edge.cjs"), ...args], { env: ENV }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

interface Current {
  key: string;
  inputs: string[];
}
const current = (): Current => JSON.parse(readFileSync(join(CACHE, "current.json"), "utf8")) as Current;
const builds = (): string[] => readdirSync(CACHE).filter((n) => /^[0-9a-f]{64}$/.test(n));

const VERSION_FILE = join(PKG, "src", "contract", "version.ts");
const versionSource = readFileSync(VERSION_FILE, "utf8");

describe("the edge command runs from a build of its current sources", () => {
  it("builds on first run, reuses the build, and rebuilds before running a changed source", async () => {
    const first = await edge("--version");
    expect(first).toEqual({ code: 0, stdout: "edge 0.1.0\n", stderr: "" });
    const built = current();
    // The key covers the CLI's sources, the runner's, the bundled packages and the build scripts.
    for (const file of [
      "src/cli/main.ts",
      "src/cli/run.ts",
      "src/contract/version.ts",
      "workers/runner.node-process.ts",
      "workers/runner-core.ts",
      "scripts/build-cli.mjs",
      "scripts/cli-cache.cjs",
      "tsconfig.json",
    ]) {
      expect(built.inputs).toContain(file);
    }
    expect(built.inputs.some((f) => /(^|\/)node_modules\/ajv\//.test(f))).toBe(true);
    expect(builds()).toEqual([built.key]);

    expect((await edge("--version")).stdout).toBe("edge 0.1.0\n");
    expect(current().key).toBe(built.key); // not rebuilt

    writeFileSync(VERSION_FILE, versionSource.replace('"0.1.0"', '"0.1.0-edited"'));
    expect(await edge("--version")).toEqual({ code: 0, stdout: "edge 0.1.0-edited\n", stderr: "" });
    expect(current().key).not.toBe(built.key);

    writeFileSync(VERSION_FILE, versionSource);
    expect((await edge("--version")).stdout).toBe("edge 0.1.0\n");
    expect(current().key).toBe(built.key); // the same sources, the same build
  });

  it("runs commands whose packages are imported at run time, from a cache outside the package", async () => {
    const r = await edge("facts", "stores", "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, stores: [] });
  });

  it("a reader that stops reading (`edge … | head -1`) ends the command quietly, exit 0", async () => {
    await edge("--version"); // built
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [join(PKG, "bin", "edge.cjs"), "--help"], {
      env: ENV,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.destroy(); // closed before the command writes anything: its first write is EPIPE
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("a source that does not build is reported with a stable code and the place of the error, exit 1", async () => {
    writeFileSync(VERSION_FILE, `${versionSource}\nexport const broken = ;\n`);
    try {
      const r = await edge("--version");
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr.startsWith(`edge: cli_build_failed: ${ERRORS.cli_build_failed}\n`)).toBe(true);
      expect(r.stderr).toContain("src/contract/version.ts:");
    } finally {
      writeFileSync(VERSION_FILE, versionSource);
    }
  });
});

interface Meta {
  outputs: Record<
    string,
    {
      entryPoint?: string;
      imports: Array<{ path: string; kind: string; external?: boolean }>;
      inputs: Record<string, unknown>;
    }
  >;
}

/** The sources and run-time package imports a command loads: the static closure of the main chunk
 *  plus the chunk of the command's module (each command's module is loaded on use). */
function loadedBy(meta: Meta, commandModule?: string): { sources: string[]; packages: string[] } {
  const byName = new Map(
    Object.entries(meta.outputs).map(([name, out]) => [name.split("/").slice(-2).join("/"), { name, out }]),
  );
  const sources = new Set<string>();
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    const out = meta.outputs[name]!;
    for (const input of Object.keys(out.inputs)) sources.add(input);
    for (const imp of out.imports) {
      if (imp.kind !== "import-statement") continue;
      if (imp.external) packages.add(imp.path);
      else visit(byName.get(imp.path.split("/").slice(-2).join("/"))!.name);
    }
  };
  const [main] = Object.entries(meta.outputs).find(([, out]) => out.entryPoint === "src/cli/main.ts")!;
  visit(main);
  if (commandModule) visit(Object.entries(meta.outputs).find(([, out]) => out.entryPoint === commandModule)![0]);
  return { sources: [...sources].sort(), packages: [...packages].filter((p) => !p.startsWith("node:")).sort() };
}

describe("each command loads only what it uses", () => {
  const meta = (): Meta => JSON.parse(readFileSync(join(CACHE, current().key, "meta.json"), "utf8")) as Meta;

  it("--version and --help load the command table and nothing else", async () => {
    expect((await edge("--version")).code).toBe(0);
    const { sources, packages } = loadedBy(meta());
    // The catalog's model names appear in the usage text (a list of data, no engine code); a
    // mistyped command gets a did-you-mean (suggest.ts); inherited descriptors are closed first of
    // all (descriptors.ts, docs/security.md), those the command line names reopened first (named-descriptors.ts).
    expect(sources).toEqual([
      "src/cli/command-table.ts",
      "src/cli/commands-facts.ts",
      "src/cli/commands-stores.ts",
      "src/cli/commands-tools.ts",
      "src/cli/commands.ts",
      "src/cli/io.ts",
      "src/cli/main.ts",
      "src/cli/named-descriptors.ts",
      "src/cli/run.ts",
      "src/contract/error-table.ts",
      "src/contract/errors.ts",
      "src/contract/suggest.ts",
      "src/contract/version.ts",
      "src/engines/llamacpp/catalog.ts",
      "src/runner/descriptors.ts",
    ]);
    expect(packages).toEqual([]);
  });

  it("tools validate loads no engine, facts, chat loop, imprint, built-in tool, app or editor code", async () => {
    const { sources, packages } = loadedBy(meta(), "src/cli/tools.ts");
    expect(sources).toContain("src/runner/pool.ts");
    expect(sources).toContain("src/toolset/inspect.ts");
    const foreign = sources.filter(
      (s) => /^src\/(engines|facts|imprint|builtins|app|widget)\//.test(s) && s !== "src/engines/llamacpp/catalog.ts",
    );
    expect(foreign).toEqual([]);
    expect(sources.filter((s) => /^src\/chat\/(session|loop|contract)/.test(s))).toEqual([]);
    // ajv and canonicalize are bundled; nothing is imported from node_modules at run time.
    expect(packages).toEqual([]);
    expect(
      sources
        .filter((s) => s.includes("node_modules/"))
        .every((s) =>
          /node_modules\/(ajv|canonicalize|fast-deep-equal|fast-uri|json-schema-traverse|require-from-string)\//.test(
            s,
          ),
        ),
    ).toBe(true);
  });

  it("tools call's workspace loads no built-in tool or just-bash unless built-ins are asked for", async () => {
    const { sources, packages } = loadedBy(meta(), "src/cli/workspace-session.ts");
    expect(sources).toContain("src/builtins/names.ts");
    expect(sources.filter((s) => /^src\/builtins\/(index|bash|fs-tools|web|goals)\.ts$/.test(s))).toEqual([]);
    expect(packages.filter((p) => p.startsWith("just-bash"))).toEqual([]);
  });

  it("mcp serve imports the MCP SDK at run time, and no engine, facts, imprint, app or editor code", async () => {
    const { sources, packages } = loadedBy(meta(), "src/cli/mcp.ts");
    expect(sources).toContain("src/mcp/server.ts");
    expect(sources).toContain("src/chat/direct-call.ts");
    expect(packages.filter((p) => p.startsWith("@modelcontextprotocol/sdk/")).length).toBeGreaterThan(0);
    const foreign = sources.filter(
      (s) => /^src\/(engines|facts|imprint|app|widget)\//.test(s) && s !== "src/engines/llamacpp/catalog.ts",
    );
    expect(foreign).toEqual([]);
  });
});
