// Small pure-Python wheels built at test time, and a pyodide-lock.json naming them: this machine
// cannot download Pyodide's real wheels, so the package tests install these through the same path
// (the lock's sha256, the store, the runner's Pyodide installer). A wheel is a zip with the modules
// and a .dist-info folder (METADATA, WHEEL, RECORD), as PEP 427 describes.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { zipSync } from "fflate";

export interface TestWheel {
  name: string;
  version: string;
  /** Import names the package provides (the lock's `imports`). */
  imports: string[];
  depends?: string[];
  /** Path in the wheel → Python source. */
  files: Record<string, string>;
}

export interface BuiltWheel {
  file_name: string;
  bytes: Uint8Array;
  sha256: string;
}

const b64 = (digest: Buffer): string => digest.toString("base64url");

export function buildWheel(w: TestWheel): BuiltWheel {
  const dist = w.name.replace(/[-.]+/g, "_");
  const info = `${dist}-${w.version}.dist-info`;
  const enc = new TextEncoder();
  const entries: Record<string, Uint8Array> = {};
  for (const [path, text] of Object.entries(w.files)) entries[path] = enc.encode(text);
  entries[`${info}/METADATA`] = enc.encode(
    `Metadata-Version: 2.1\nName: ${w.name}\nVersion: ${w.version}\n${(w.depends ?? []).map((d) => `Requires-Dist: ${d}\n`).join("")}`,
  );
  entries[`${info}/WHEEL`] = enc.encode(
    "Wheel-Version: 1.0\nGenerator: edge-web-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
  );
  const record = Object.entries(entries).map(
    ([p, data]) => `${p},sha256=${b64(createHash("sha256").update(data).digest())},${data.byteLength}`,
  );
  entries[`${info}/RECORD`] = enc.encode(`${[...record, `${info}/RECORD,,`].join("\n")}\n`);
  // A fixed time: the same wheel gives the same bytes (and sha256) every run.
  const bytes = zipSync(
    Object.fromEntries(Object.entries(entries).map(([p, d]) => [p, [d, { mtime: new Date("2026-01-01T00:00:00Z") }]])),
  );
  return {
    file_name: `${dist}-${w.version}-py3-none-any.whl`,
    bytes,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
}

/** The installed pyodide's lock file. */
export function pyodideLockPath(): string {
  return join(dirname(createRequire(import.meta.url).resolve("pyodide/package.json")), "pyodide-lock.json");
}

/**
 * A lock with Pyodide's own `info` (so its ABI matches the installed pyodide) and `packages`:
 * the test wheels, plus `keep` packages of Pyodide's real lock (to name a package that exists
 * but is not stored). Writes the wheels into `dir` and the lock to `lockFile`.
 */
export function writeTestLock(
  lockFile: string,
  dir: string,
  wheels: TestWheel[],
  keep: string[] = [],
): Record<string, BuiltWheel> {
  const real = JSON.parse(readFileSync(pyodideLockPath(), "utf8")) as {
    info: unknown;
    packages: Record<string, unknown>;
  };
  const packages: Record<string, unknown> = {};
  for (const k of keep) packages[k] = real.packages[k];
  const built: Record<string, BuiltWheel> = {};
  for (const w of wheels) {
    const b = buildWheel(w);
    built[w.name] = b;
    writeFileSync(join(dir, b.file_name), b.bytes);
    packages[w.name] = {
      name: w.name,
      version: w.version,
      file_name: b.file_name,
      install_dir: "site",
      sha256: b.sha256,
      package_type: "package",
      imports: w.imports,
      depends: w.depends ?? [],
      unvendored_tests: false,
      tool: {},
    };
  }
  writeFileSync(lockFile, JSON.stringify({ info: real.info, packages }));
  return built;
}
