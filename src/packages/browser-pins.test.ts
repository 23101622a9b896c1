// The browser's side of a project's pylock.toml, run in Node with memory stores and a local HTTP
// server for the wheels (the page's own fetch and Cache Storage are exercised in Chromium by
// e2e/pypi-packages.spec.ts): locking in the page downloads no wheel beyond what resolving needed,
// the plan lists what the lock pins that this browser lacks with the lock's sizes, a download
// checks each wheel against the lock before storing it (a tampered one is refused and nothing of
// it kept), pinned wheels live apart from Pyodide's (same file name, other bytes), and the stored
// list and Remove see them.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildWheel, pyodideLockPath, type BuiltWheel } from "../../test/wheels.ts";
import { EdgeError } from "../contract/errors.ts";
import { browserPackages, type BrowserPackages } from "./browser.ts";
import { lockProject } from "./lock-project.ts";
import { parseLock } from "./lock.ts";
import type { IndexFile, PackageIndex } from "./pypi.ts";
import { createMemoryPackageStore } from "./store-memory.ts";
import { urlPackageSource } from "./source.ts";

const OWN_LOCK = readFileSync(pyodideLockPath(), "utf8");
const enc = new TextEncoder();
const TOOLS = `# /// script\n# dependencies = ["edgepin-alpha"]\n# ///\nimport edgepin_alpha\n`;
const alpha = buildWheel({
  name: "edgepin-alpha",
  version: "1.0.0",
  imports: ["edgepin_alpha"],
  depends: ["edgepin-beta>=0.2"],
  files: { "edgepin_alpha.py": "X = 1\n" },
});
const beta = buildWheel({
  name: "edgepin-beta",
  version: "0.2.0",
  imports: ["edgepin_beta"],
  files: { "edgepin_beta.py": "Y = 2\n" },
});
const WHEELS: Record<string, BuiltWheel> = { "edgepin-alpha": alpha, "edgepin-beta": beta };

/** Serves the wheels; `tamper` changes the last byte of the named files. */
let server: Server;
let base = "";
const tamper = new Set<string>();
const gets: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "/").slice(1));
    const wheel = Object.values(WHEELS).find((w) => w.file_name === name);
    gets.push(`${req.method} ${name}`);
    if (!wheel) return void res.writeHead(404).end();
    const body = tamper.has(name)
      ? Uint8Array.from(wheel.bytes, (b, i) => (i === wheel.bytes.byteLength - 1 ? b ^ 1 : b))
      : wheel.bytes;
    res.writeHead(200, { "Content-Length": body.byteLength }).end(req.method === "HEAD" ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  vi.stubGlobal("location", new URL(base));
});

afterAll(async () => {
  vi.unstubAllGlobals();
  await new Promise((resolve) => server.close(resolve));
});

/** An index of the two test wheels; with `metadata`, it serves their METADATA apart (PEP 658). */
function testIndex(metadata: boolean): PackageIndex & { downloads: string[] } {
  const file = (w: BuiltWheel): IndexFile => ({
    filename: w.file_name,
    url: `${base}${w.file_name}`,
    sha256: w.sha256,
    requiresPython: "",
    yanked: false,
    size: w.bytes.byteLength,
    coreMetadata: metadata,
  });
  const downloads: string[] = [];
  return {
    url: "https://index.test/simple/",
    downloads,
    files: async (name) => (WHEELS[name] ? [file(WHEELS[name])] : undefined),
    async download(f) {
      downloads.push(f.filename);
      return Object.values(WHEELS).find((w) => w.file_name === f.filename)!.bytes;
    },
    async metadata(f) {
      if (!metadata) return undefined;
      const w =
        f.filename === alpha.file_name
          ? "Name: edgepin-alpha\nVersion: 1.0.0\nRequires-Dist: edgepin-beta>=0.2\n"
          : "Name: edgepin-beta\nVersion: 0.2.0\n";
      return `Metadata-Version: 2.1\n${w}`;
    },
  };
}

const snapshot = (lock?: string) => ({
  entry: "tools.py",
  files: { "tools.py": enc.encode(TOOLS), ...(lock ? { "pylock.toml": enc.encode(lock) } : {}) },
});

async function locked(metadata: boolean, fetch: boolean) {
  const index = testIndex(metadata);
  const pypi = createMemoryPackageStore();
  const pyodide = createMemoryPackageStore();
  const outcome = await lockProject(snapshot(), {
    index,
    pyodideLock: parseLock(OWN_LOCK, "Pyodide's lock"),
    pyodideSource: urlPackageSource(base, "unused"),
    pyodideUrl: base,
    pypiStore: pypi,
    pyodideStore: pyodide,
    fetch,
  });
  return { outcome, index, pypi, pyodide };
}

describe("locking in the page (lockProject with fetch: false)", () => {
  it("downloads no wheel when the index serves metadata: every pin is left for the Download, with the lock's size", async () => {
    const { outcome, index, pypi } = await locked(true, false);
    expect(index.downloads).toEqual([]);
    expect(outcome.packages.map((p) => [p.name, p.status, p.bytes])).toEqual([
      ["edgepin-beta", "pinned", beta.bytes.byteLength],
      ["edgepin-alpha", "pinned", alpha.bytes.byteLength],
    ]);
    expect(await pypi.list()).toEqual([]);
  });

  it("keeps the wheels resolving had to download for their metadata, and fetches nothing else", async () => {
    const { outcome, index, pypi } = await locked(false, false);
    expect(index.downloads.sort()).toEqual([alpha.file_name, beta.file_name].sort());
    expect(outcome.packages.map((p) => p.status)).toEqual(["added", "added"]);
    expect((await pypi.list()).length).toBe(2);
  });

  it("without fetch: false, fetches every pin (the CLI)", async () => {
    const { outcome, index } = await locked(true, true);
    expect(index.downloads.sort()).toEqual([alpha.file_name, beta.file_name].sort());
    expect(outcome.packages.map((p) => p.status)).toEqual(["added", "added"]);
  });
});

describe("a pylock.toml's wheels in the browser (browserPackages)", () => {
  let packages: BrowserPackages;
  let lock = "";
  const pyodideStore = createMemoryPackageStore();

  beforeAll(async () => {
    packages = browserPackages({
      ownLock: async () => OWN_LOCK,
      store: pyodideStore,
      pypiStore: createMemoryPackageStore(),
    });
    lock = (await locked(true, false)).outcome.text!;
  });

  it("plans what the lock pins that this browser lacks, with the lock's sizes, fetching nothing", async () => {
    gets.length = 0;
    const plan = (await packages.pinned(snapshot(lock)))!;
    expect(plan.path).toBe("pylock.toml");
    expect(plan.missing.map((p) => [p.name, p.version, p.source, p.bytes])).toEqual([
      ["edgepin-beta", "0.2.0", "pypi", beta.bytes.byteLength],
      ["edgepin-alpha", "1.0.0", "pypi", alpha.bytes.byteLength],
    ]);
    expect(plan.bytes).toBe(alpha.bytes.byteLength + beta.bytes.byteLength);
    expect(gets).toEqual([]);
  });

  it("a project without declarations has no plan; one with declarations but no lock is python_lock_missing", async () => {
    expect(
      await packages.pinned({ entry: "tools.py", files: { "tools.py": enc.encode("import json\n") } }),
    ).toBeUndefined();
    const err = await packages.pinned(snapshot()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdgeError);
    expect((err as EdgeError).code).toBe("python_lock_missing");
    expect((err as EdgeError).message).toContain("“Lock dependencies”");
  });

  it("refuses a tampered wheel by the lock's sha256 and stores nothing of it; then stores the real ones apart from Pyodide's", async () => {
    // Pyodide's store holds a file of the same name with other bytes: never taken for the pinned one.
    await pyodideStore.put(alpha.file_name, enc.encode("not this wheel"));
    tamper.add(alpha.file_name);
    const plan = (await packages.pinned(snapshot(lock)))!;
    const err = await packages.addPinned(plan).catch((e: unknown) => e);
    expect((err as EdgeError).code).toBe("python_package_hash_mismatch");
    expect((err as EdgeError).message).toContain(
      `${alpha.file_name} from ${base}${alpha.file_name} does not match the lock`,
    );
    expect(await packages.pypiStore.get(alpha.file_name)).toBeUndefined();
    expect(await packages.pypiStore.get(beta.file_name)).toEqual(beta.bytes); // before it in install order: whole and checked

    tamper.clear();
    const again = (await packages.pinned(snapshot(lock)))!;
    expect(again.missing.map((p) => p.name)).toEqual(["edgepin-alpha"]);
    expect((await packages.addPinned(again)).map((p) => p.name)).toEqual(["edgepin-alpha"]);
    expect((await packages.pinned(snapshot(lock)))!.missing).toEqual([]);
    const pin = { name: "edgepin-alpha", version: "1.0.0", file_name: alpha.file_name, sha256: alpha.sha256 };
    expect(await packages.provider.cached({ ...pin, source: "pypi" })).toEqual(alpha.bytes);
    // The same file name from Pyodide's store is its own (other) bytes, refused against this sha256.
    await expect(packages.provider.cached(pin)).rejects.toMatchObject({ code: "python_package_hash_mismatch" });
  });

  it("lists pinned wheels with Pyodide's, and Remove forgets one", async () => {
    const rows = await packages.stored();
    expect(rows.map((r) => [r.name, r.version, r.source])).toEqual([
      ["edgepin-alpha", "1.0.0", "pypi"],
      ["edgepin-beta", "0.2.0", "pypi"],
    ]);
    expect(await packages.removeStored(rows[0]!)).toBe(true);
    expect((await packages.pinned(snapshot(lock)))!.missing.map((p) => p.name)).toEqual(["edgepin-alpha"]);
  });

  it("the widget's own sentences replace the playground's", async () => {
    const widget = browserPackages({
      ownLock: OWN_LOCK,
      store: createMemoryPackageStore(),
      pypiStore: createMemoryPackageStore(),
      steps: { lockStep: () => ({ advice: "Serve the zip with its pylock.toml." }) },
    });
    await expect(widget.pinned(snapshot())).rejects.toThrow("Serve the zip with its pylock.toml.");
  });
});
