// Declared dependencies and what a resolver needs to read them: PEP 508 requirements and markers
// for Pyodide's runner, PEP 723 blocks, requirements.txt lines, wheel tags, core metadata, and the
// resolver's choices over an index held in memory (the real PyPI is src/cli/packages-lock.test.ts).
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { sha256Bytes } from "../contract/hash.ts";
import { declaredDependencies, parseRequirementsTxt, scriptMetadata } from "./declared.ts";
import type { PyodideLock } from "./lock.ts";
import type { IndexFile, PackageIndex } from "./pypi.ts";
import { readPylock, writePylock } from "./pylock.ts";
import { evaluateMarker, parseRequirement, pyodideEnvironment } from "./requirement.ts";
import { resolveDependencies } from "./resolve.ts";
import { parseCoreMetadata, parseWheelName, wheelFit, wheelMetadata } from "./wheel.ts";

const ENV = pyodideEnvironment("3.14.2");
const TARGET = { python: "3.14.2", abi: "2026_0" };
const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
};

describe("PEP 508 requirements and markers for Pyodide's runner", () => {
  it("reads names, extras, specifiers (also in parentheses) and markers", () => {
    expect(parseRequirement("Python_Dateutil[tz, x] (>=2.8, <3) ; python_version >= '3.8'", "t")).toMatchObject({
      name: "Python_Dateutil",
      extras: ["tz", "x"],
      specifier: ">=2.8,<3",
      marker: "python_version >= '3.8'",
    });
    expect(code(() => parseRequirement("pkg @ https://example.org/pkg.whl", "t"))).toBe("python_requirement_invalid");
    expect(code(() => parseRequirement("pkg >>= 1", "t"))).toBe("python_requirement_invalid");
    expect(code(() => parseRequirement("pkg; os_nam == 'posix'", "t"))).toBe("python_requirement_invalid");
  });

  it("evaluates markers as the runner is: emscripten, wasm32, CPython 3.14", () => {
    expect(evaluateMarker('sys_platform == "emscripten" and platform_machine == "wasm32"', ENV, "t")).toBe(true);
    expect(evaluateMarker('python_version < "3.11"', ENV, "t")).toBe(false);
    expect(
      evaluateMarker('python_version >= "3.9" and (os_name == "nt" or platform_system == "Emscripten")', ENV, "t"),
    ).toBe(true);
    expect(evaluateMarker('"3.14" <= python_version', ENV, "t")).toBe(true);
    expect(evaluateMarker('sys_platform == "win32" or implementation_name != "cpython"', ENV, "t")).toBe(false);
    expect(evaluateMarker('extra == "Socks"', ENV, "t", ["socks"])).toBe(true);
    expect(evaluateMarker('extra == "socks"', ENV, "t", [])).toBe(false);
    expect(evaluateMarker("'linux' in sys_platform", ENV, "t")).toBe(false);
  });
});

describe("declared dependencies", () => {
  const files = (tools: string, extra: Record<string, string> = {}) => ({
    entry: "shop/tools.py",
    files: Object.fromEntries(
      Object.entries({ "shop/tools.py": tools, ...extra }).map(([k, v]) => [k, new TextEncoder().encode(v)]),
    ),
  });

  it("reads a PEP 723 block and the requirements.txt beside the tools file, not one elsewhere", () => {
    const d = declaredDependencies(
      files(
        '# /// script\n# requires-python = ">=3.11"\n# dependencies = [\n#   "tabulate>=0.9",\n# ]\n# ///\nimport tabulate\n',
        { "shop/requirements.txt": "six  # why\n", "requirements.txt": "numpy\n" },
      ),
    );
    expect(d.requirements.map((r) => r.text)).toEqual(["tabulate>=0.9", "six"]);
    expect(d.requiresPython).toBe(">=3.11");
    expect(d.sources).toEqual(["shop/tools.py (PEP 723)", "shop/requirements.txt"]);
    expect(declaredDependencies(files("import json\n")).sources).toEqual([]);
  });

  it("refuses two script blocks and TOML that does not parse", () => {
    const block = '# /// script\n# dependencies = ["a"]\n# ///\n';
    expect(code(() => scriptMetadata(`${block}import json\n${block}`, "t.py"))).toBe("python_requirement_invalid");
    expect(code(() => declaredDependencies(files('# /// script\n# dependencies = ["a"\n# ///\n')))).toBe(
      "python_requirement_invalid",
    );
    expect(code(() => declaredDependencies(files("# /// script\n# dependencies = [1]\n# ///\n")))).toBe(
      "python_requirement_invalid",
    );
  });

  it("reads requirements.txt as pip does (comments, continuations) and names a line it cannot honour", () => {
    expect(parseRequirementsTxt("# top\n\ntabulate \\\n  >=0.9\nsix # six\n", "r.txt").map((r) => r.text)).toEqual([
      "tabulate   >=0.9",
      "six",
    ]);
    for (const [line, at] of [
      ["-r other.txt", 2],
      ["https://example.org/x.whl", 2],
      ["./local", 2],
      ["-e .", 2],
      ["pkg @ file:///x", 2],
    ] as const) {
      let err: { code?: string; details?: { line?: number } } = {};
      try {
        parseRequirementsTxt(`ok\n${line}\n`, "r.txt");
      } catch (e) {
        err = e as typeof err;
      }
      expect([err.code, line]).toEqual(["python_requirement_invalid", line]);
      if (err.details?.line !== undefined) expect(err.details.line).toBe(at);
    }
  });
});

describe("wheels Pyodide's runner installs", () => {
  const fitOf = (name: string) => wheelFit(parseWheelName(name)!, TARGET);
  it("prefers a wheel built for its platform, then pure Python, never another platform's", () => {
    expect(fitOf("numpy-2.4.6-cp314-cp314-pyemscripten_2026_0_wasm32.whl")).toBe(2);
    expect(fitOf("x-1-cp312-abi3-pyemscripten_2026_0_wasm32.whl")).toBe(2);
    expect(fitOf("x-1-cp314-cp314-pyemscripten_2025_0_wasm32.whl")).toBe(0);
    expect(fitOf("six-1.17.0-py2.py3-none-any.whl")).toBe(1);
    expect(fitOf("x-1-py3-none-any.whl")).toBe(1);
    expect(fitOf("x-1-py315-none-any.whl")).toBe(0);
    expect(fitOf("x-1-py2-none-any.whl")).toBe(0);
    expect(fitOf("psutil-7.2.2-cp36-abi3-manylinux_2_17_x86_64.whl")).toBe(0);
    expect(parseWheelName("x-1.tar.gz")).toBeUndefined();
  });

  it("reads Requires-Dist and Requires-Python from METADATA, also out of a wheel", () => {
    const text =
      "Metadata-Version: 2.1\nName: a\nVersion: 1\nRequires-Python: >=3.8\nRequires-Dist: b>=2\nRequires-Dist: c; extra == 'x'\n\nRequires-Dist: not-a-header\n";
    expect(parseCoreMetadata(text)).toEqual({ requiresDist: ["b>=2", "c; extra == 'x'"], requiresPython: ">=3.8" });
    const wheel = zipSync({
      "a/__init__.py": new Uint8Array(1),
      "a-1.dist-info/METADATA": new TextEncoder().encode(text),
    });
    expect(wheelMetadata(wheel, "a-1-py3-none-any.whl")).toBe(text);
    expect(code(() => wheelMetadata(zipSync({ "a.py": new Uint8Array(1) }), "a-1-py3-none-any.whl"))).toBe(
      "python_package_unavailable",
    );
  });
});

/** An index in memory: projects → versions → (wheel tags, Requires-Dist, Requires-Python). */
function memoryIndex(
  projects: Record<string, Record<string, { tags?: string; requires?: string[]; python?: string }>>,
): PackageIndex & { asked: string[] } {
  const asked: string[] = [];
  const meta = new Map<string, string>();
  const files = (name: string): IndexFile[] | undefined => {
    const versions = projects[name];
    if (!versions) return undefined;
    return Object.entries(versions).map(([v, w]) => {
      const filename = `${name.replace(/-/g, "_")}-${v}-${w.tags ?? "py3-none-any"}.whl`;
      meta.set(
        filename,
        `Name: ${name}\nVersion: ${v}\n${(w.requires ?? []).map((r) => `Requires-Dist: ${r}\n`).join("")}`,
      );
      return {
        filename,
        url: `https://files.example/${filename}`,
        sha256: "0".repeat(64),
        requiresPython: w.python ?? "",
        yanked: false,
        coreMetadata: true,
      };
    });
  };
  return {
    url: "https://index.example/simple/",
    asked,
    async files(name) {
      asked.push(name);
      return files(name);
    },
    async download() {
      throw new Error("not used: metadata is served apart");
    },
    async metadata(file) {
      return meta.get(file.filename);
    },
  };
}

const PYODIDE: PyodideLock = {
  info: { abi_version: "2026_0", python: "3.14.2" },
  packages: {
    numpy: {
      name: "numpy",
      version: "2.4.6",
      file_name: "numpy-2.4.6-cp314-cp314-pyemscripten_2026_0_wasm32.whl",
      sha256: "1".repeat(64),
      install_dir: "site",
      imports: ["numpy"],
      depends: [],
    },
  },
};

async function resolve(index: PackageIndex, reqs: string[]) {
  const declared = { requirements: reqs.map((r) => parseRequirement(r, "t")), requiresPython: "", sources: ["t"] };
  return resolveDependencies(declared, {
    index,
    pyodideLock: PYODIDE,
    pyodideSource: "https://cdn.example/pyodide/",
    target: TARGET,
    env: ENV,
  });
}

describe("resolution", () => {
  it("takes the newest version each requirer allows, re-chooses when a later requirement narrows it, and drops what only the old choice needed", async () => {
    const index = memoryIndex({
      app: { "1.0": { requires: ["lib>=1", "helper"] } },
      helper: { "1.0": { requires: ["lib<2"] } },
      lib: { "1.5": { requires: [] }, "2.0": { requires: ["extra-dep"] } },
      "extra-dep": { "1.0": {} },
    });
    const r = await resolve(index, ["app"]);
    expect(r.packages.map((p) => `${p.name} ${p.version}`)).toEqual(["lib 1.5", "helper 1.0", "app 1.0"]);
    expect(r.packages.find((p) => p.name === "app")!.dependencies).toEqual(["helper", "lib"]);
  });

  it("skips versions whose Requires-Python excludes 3.14, pre-releases, platform wheels and markers for other systems", async () => {
    const index = memoryIndex({
      a: { "3.0": { python: "<3.14" }, "2.1": { requires: ["winonly; sys_platform == 'win32'", "b"] }, "2.2rc1": {} },
      b: {
        "2.0": { tags: "cp314-cp314-manylinux_2_17_x86_64" },
        "1.0": { tags: "cp314-cp314-pyemscripten_2026_0_wasm32" },
      },
    });
    const r = await resolve(index, ["a"]);
    expect(r.packages.map((p) => `${p.name} ${p.version}`)).toEqual(["b 1.0", "a 2.1"]);
    expect(index.asked).not.toContain("winonly");
  });

  it("uses Pyodide's own build when the index has no wheel for it, and says why a package cannot be had", async () => {
    const index = memoryIndex({
      numpy: { "2.5.0": { tags: "cp314-cp314-manylinux_2_17_x86_64" } },
      native: { "1.0": { tags: "cp314-cp314-win_amd64" } },
    });
    const r = await resolve(index, ["numpy"]);
    expect(r.packages).toEqual([
      expect.objectContaining({
        name: "numpy",
        version: "2.4.6",
        source: "pyodide-lock",
        url: "https://cdn.example/pyodide/numpy-2.4.6-cp314-cp314-pyemscripten_2026_0_wasm32.whl",
      }),
    ]);
    await expect(resolve(index, ["native"])).rejects.toMatchObject({
      code: "python_package_unavailable",
      message: expect.stringContaining("1.0 has wheels for other platforms only"),
    });
    await expect(resolve(index, ["missing-one"])).rejects.toMatchObject({
      code: "python_package_unavailable",
      message: expect.stringContaining("is not on the package index"),
    });
    await expect(resolve(index, ["numpy<2"])).rejects.toMatchObject({
      message: expect.stringContaining("Pyodide's lock has numpy 2.4.6, which the requirements exclude"),
    });
  });
});

describe("pylock.toml", () => {
  it("reads back what it wrote, and refuses any edit of a pinned package", async () => {
    const index = memoryIndex({ a: { "1.0": { requires: ["b"] } }, b: { "2.0": {} } });
    const { packages } = await resolve(index, ["a"]);
    const declared = { requirements: [parseRequirement("a", "t")], requiresPython: "", sources: ["t"] };
    const text = await writePylock(packages, declared, TARGET, index.url);
    const back = await readPylock(text, "pylock.toml");
    expect(back).toEqual({ packages, requirements: ["a"], python: "3.14.2", abi: "2026_0" });
    expect(await sha256Bytes(new TextEncoder().encode(text))).toMatch(/^sha256:/);
    for (const edit of [
      text.replace('version = "2.0"', 'version = "2.1"'),
      text.replace(/sha256 = "0/, 'sha256 = "1'),
      text.replace("files.example", "evil.example"),
      "lock-version = 2\n",
    ]) {
      await expect(readPylock(edit, "pylock.toml")).rejects.toMatchObject({ code: "python_lock_invalid" });
    }
  });
});
