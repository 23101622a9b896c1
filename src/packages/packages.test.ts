// Resolution of a tools project's imports against Pyodide's lock, without a
// runner: the import scan, the lock's import names, dependencies in install order, names outside the
// lock, and a project's own modules shadowing a package.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import { pyodideLockPath } from "../../test/wheels.ts";
import { packagesFor } from "./freeze.ts";
import { findImports, importStatements } from "./imports.ts";
import { projectImports } from "./reach.ts";
import { canonicalName, packageForName, parseLock, withDependencies } from "./lock.ts";

const lock = parseLock(readFileSync(pyodideLockPath(), "utf8"), "pyodide-lock.json");
const enc = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("the import scan", () => {
  it("finds every absolute import, in any statement position, and nothing in strings or comments", () => {
    const src = [
      "import numpy as np, os.path",
      "from pandas.core import frame",
      "from . import sibling",
      "from .pkg import thing",
      "try: import ujson",
      "except ImportError: import json; import re",
      "def f():",
      "    from bs4 import (",
      "        BeautifulSoup,",
      "    )",
      "    import \\",
      "        yaml",
      "# import commented_out",
      "s = 'import in_string'",
      'doc = """',
      "import in_docstring",
      '"""',
      "x = {'a': 1}; raise ValueError() from None",
    ].join("\n");
    expect(findImports(src)).toEqual(["bs4", "json", "numpy", "os", "pandas", "re", "ujson", "yaml"]);
  });

  it("leaves out the project's own modules (beside the tools file and at the root)", () => {
    const files = {
      "tools.py": enc("import helpers, numpy\nfrom pkg import x\nimport yaml"),
      "helpers.py": enc("import regex"),
      "pkg/__init__.py": enc(""),
      "notes.txt": enc("import nothing"),
    };
    expect(projectImports(files, "tools.py")).toEqual(["numpy", "regex", "yaml"]);
    // A sibling named like a package shadows it (it is first on sys.path): no package is resolved.
    expect(projectImports({ ...files, "numpy.py": enc("") }, "tools.py")).toEqual(["regex", "yaml"]);
  });

  it("reads relative imports with their level, module and names", () => {
    expect(
      importStatements("from .. import a, b as c\nfrom .x.y import (z,\n w)\nfrom .import q\nfrom m import *"),
    ).toEqual([
      { level: 2, module: [], names: ["a", "b"] },
      { level: 1, module: ["x", "y"], names: ["z", "w"] },
      { level: 1, module: [], names: ["q"] },
      { level: 0, module: ["m"], names: ["*"] },
    ]);
  });

  it("counts only what the tools file reaches: an unrelated script beside it never asks for a package", () => {
    const files = { "seed_a.py": enc("import json"), "other.py": enc("import numpy") };
    expect(projectImports(files, "seed_a.py")).toEqual(["json"]);
    expect(projectImports(files, "other.py")).toEqual(["numpy"]);
  });

  it("follows the project's modules transitively: by name, package __init__, submodules and relative imports", () => {
    const files = {
      "app/tools.py": enc("import helpers\nfrom pkg import sub\nimport ns.leaf"),
      "app/helpers.py": enc("def f():\n    import tabulate"),
      "app/pkg/__init__.py": enc("from .core import x"),
      "app/pkg/core.py": enc("from ..shared import y\nimport yaml"),
      "app/pkg/sub.py": enc("from . import deep"),
      "app/pkg/deep/__init__.py": enc("import regex"),
      "app/shared.py": enc("import bs4"),
      "app/ns/leaf.py": enc("import pandas"),
      "app/ns/unused.py": enc("import scipy"),
      "app/unused.py": enc("import numpy"),
      "rootmod.py": enc("import pydantic"),
    };
    expect(projectImports(files, "app/tools.py")).toEqual(["bs4", "pandas", "regex", "tabulate", "yaml"]);
    // The project's root is on sys.path too, after the tools file's folder.
    expect(projectImports({ ...files, "app/tools.py": enc("import rootmod") }, "app/tools.py")).toEqual(["pydantic"]);
    // A cycle ends.
    expect(projectImports({ "tools.py": enc("import a"), "a.py": enc("import tools, lxml") }, "tools.py")).toEqual([
      "lxml",
    ]);
  });
});

describe("resolution against Pyodide's lock", () => {
  it("maps import names to packages and adds their dependencies, each after what it needs", () => {
    const { order, imports } = packagesFor(
      { entry: "tools.py", files: { "tools.py": enc("import pandas\nfrom bs4 import BeautifulSoup\nimport json") } },
      lock,
    );
    const names = order.map((p) => p.name);
    expect(imports.get("beautifulsoup4")).toBe("bs4");
    for (const name of ["pandas", "numpy", "python-dateutil", "pytz", "six", "beautifulsoup4", "soupsieve"])
      expect(names).toContain(name);
    const at = (n: string): number => names.indexOf(n);
    expect(at("numpy")).toBeLessThan(at("pandas"));
    expect(at("six")).toBeLessThan(at("python-dateutil"));
    expect(at("soupsieve")).toBeLessThan(at("beautifulsoup4"));
    expect(new Set(names).size).toBe(names.length);
    expect(order.every((p) => /^[0-9a-f]{64}$/.test(p.sha256))).toBe(true);
  });

  it("a project that imports only the standard library needs no package", () => {
    expect(
      packagesFor(
        { entry: "tools.py", files: { "tools.py": enc("import json, sqlite3\nfrom typing import Literal") } },
        lock,
      ).order,
    ).toEqual([]);
  });

  it("knows a package by any spelling or by its import name, and refuses a name outside the lock", () => {
    expect(canonicalName("Typing_Extensions")).toBe("typing-extensions");
    expect(packageForName(lock, "PyYAML").name).toBe(lock.packages["pyyaml"]!.name);
    expect(packageForName(lock, "bs4").name).toBe("beautifulsoup4");
    expect(withDependencies(lock, ["pydantic"]).map((p) => canonicalName(p.name))).toContain("pydantic-core");
    let err: unknown;
    try {
      packageForName(lock, "torch");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EdgeError);
    expect((err as EdgeError).code).toBe("python_package_not_in_lock");
    expect((err as EdgeError).message).toContain("edge packages lock");
  });

  it("refuses a lock without the fields resolution needs", () => {
    expect(() => parseLock("{}", "x.json")).toThrow(/not a pyodide-lock.json/);
    expect(() => parseLock(JSON.stringify({ info: {}, packages: { a: { name: "a" } } }), "x.json")).toThrow(/lacks/);
  });
});
