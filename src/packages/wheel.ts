// What a wheel is, read from its file name (PEP 427 / the binary distribution format) and its
// METADATA (core metadata: Requires-Dist, Requires-Python): whether Pyodide's runner can install
// it, and what it depends on. Pyodide 314 installs pure-Python wheels (`py3-none-any`) and wheels
// built for its platform (PEP 783: `pyemscripten_<abi>_wasm32`, CPython ABI of its version or abi3).
import { unzipSync } from "fflate";
import { EdgeError } from "../contract/errors.ts";

export interface WheelName {
  distribution: string;
  version: string;
  /** Each compressed tag set expanded: "py2.py3" → ["py2", "py3"]. */
  python: string[];
  abi: string[];
  platform: string[];
}

/** The parts of a wheel file name, or undefined for a name that is not a wheel's. */
export function parseWheelName(fileName: string): WheelName | undefined {
  const m = /^([^-]+)-([^-]+)(?:-\d[^-]*)?-([^-]+)-([^-]+)-([^-]+)\.whl$/.exec(fileName);
  if (!m) return undefined;
  return {
    distribution: m[1]!,
    version: m[2]!,
    python: m[3]!.split("."),
    abi: m[4]!.split("."),
    platform: m[5]!.split("."),
  };
}

/** The interpreter a wheel must suit: Pyodide's CPython version and its ABI ("2026_0"). */
export interface WheelTarget {
  python: string;
  abi: string;
}

/** The platform tag of Pyodide's ABI (PEP 783): "pyemscripten_2026_0_wasm32". */
function platformTag(target: WheelTarget): string {
  return `pyemscripten_${target.abi}_wasm32`;
}

/** 2: built for this Pyodide; 1: pure Python; 0: not installable here. Higher is preferred. */
export function wheelFit(name: WheelName, target: WheelTarget): 0 | 1 | 2 {
  const [major = "3", minor = "0"] = target.python.split(".");
  const cp = `cp${major}${minor}`;
  const pythonOk = (tag: string): boolean => {
    const m = /^(py|cp)(\d)(\d*)$/.exec(tag);
    if (!m || m[2] !== major) return false;
    return m[3] === "" || Number(m[3]) <= Number(minor);
  };
  if (name.platform.includes(platformTag(target))) {
    const abiOk = name.abi.some((a) => a === cp || a === "abi3" || a === "none");
    return abiOk && name.python.some((t) => t === cp || (name.abi.includes("abi3") && pythonOk(t))) ? 2 : 0;
  }
  if (name.platform.includes("any") && name.abi.includes("none") && name.python.some(pythonOk)) return 1;
  return 0;
}

export interface CoreMetadata {
  /** Requires-Dist lines, as written. */
  requiresDist: string[];
  requiresPython: string;
}

/** The fields of core metadata (RFC 822-style headers) a resolver needs. */
export function parseCoreMetadata(text: string): CoreMetadata {
  const header = text.replace(/\r\n?/g, "\n").split("\n\n")[0] ?? "";
  const requiresDist: string[] = [];
  let requiresPython = "";
  for (const line of header.split("\n")) {
    const m = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1]!.toLowerCase();
    if (key === "requires-dist") requiresDist.push(m[2]!.trim());
    else if (key === "requires-python") requiresPython = m[2]!.trim();
  }
  return { requiresDist, requiresPython };
}

/** A wheel's METADATA file, read from the archive (only that entry is inflated). */
export function wheelMetadata(bytes: Uint8Array, fileName: string): string {
  let found: Uint8Array | undefined;
  try {
    const files = unzipSync(bytes, {
      filter: (f) => /^[^/]+\.dist-info\/METADATA$/.test(f.name) && f.originalSize < 4 * 1024 * 1024,
    });
    found = Object.values(files)[0];
  } catch (err) {
    throw new EdgeError(
      "python_package_unavailable",
      { file: fileName },
      `${fileName} is not a readable wheel (${err instanceof Error ? err.message : String(err)}); pick another version of the package.`,
    );
  }
  if (!found)
    throw new EdgeError(
      "python_package_unavailable",
      { file: fileName },
      `${fileName} has no .dist-info/METADATA, so it is not a wheel Edge can read; pick another version of the package.`,
    );
  return new TextDecoder().decode(found);
}
