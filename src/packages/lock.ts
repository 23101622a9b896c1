// Pyodide's package lock (pyodide-lock.json, shipped in the `pyodide` npm package): which packages
// exist for this interpreter, their versions, wheel file names, sha256 and dependencies, and which
// import names each provides. Resolution here follows Pyodide's own loadPackagesFromImports: an
// import name maps to the package whose `imports` lists it, then the package's `depends` are added
// (transitively); names are compared canonicalized as Pyodide does (lower case, runs of "-", "_"
// and "." as one "-"). Environment-neutral and pure: the lock is read by the adapter.
import { EdgeError } from "../contract/errors.ts";
import type { Sha256 } from "../contract/hash.ts";

/** One entry of the lock's `packages`, as Pyodide writes it. */
export interface LockPackage {
  name: string;
  version: string;
  file_name: string;
  /** Hex, without the "sha256:" prefix (as in the lock). */
  sha256: string;
  /** "site" (site-packages) or "dynlib" (a shared library other packages link against). */
  install_dir: string;
  package_type?: string;
  imports: string[];
  depends: string[];
}

export interface PyodideLock {
  info: { abi_version?: string; arch?: string; platform?: string; python?: string; [k: string]: unknown };
  packages: Record<string, LockPackage>;
}

/** A package as frozen: what the freeze, inspect and receipts record. `source`: Pyodide's lock, or
 *  a package index through the project's pylock.toml. */
export interface FrozenPackage {
  name: string;
  version: string;
  file_name: string;
  sha256: Sha256;
  /** Always written; absent only in receipts written before projects could lock from an index. */
  source?: "pyodide-lock" | "pypi";
}

/** Pyodide's canonical package name (canonicalizePackageName): PEP 503 normalisation. */
export function canonicalName(name: string): string {
  return name.replace(/[-_.]+/g, "-").toLowerCase();
}

/** The lock, checked for the fields resolution relies on; throws python_package_lock_invalid, its
 *  message ended by `fix` (how this front door names another lock). */
export function parseLock(
  text: string,
  where: string,
  fix = "point EDGE_PACKAGE_LOCK at a pyodide-lock.json, or unset it",
): PyodideLock {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new EdgeError(
      "python_package_lock_invalid",
      { lock: where },
      `${where} is not JSON (${String(err)}); ${fix}.`,
    );
  }
  const lock = value as Partial<PyodideLock>;
  const packages = lock && typeof lock === "object" ? lock.packages : undefined;
  if (!packages || typeof packages !== "object" || !lock.info || typeof lock.info !== "object") {
    throw new EdgeError(
      "python_package_lock_invalid",
      { lock: where },
      `${where} has no "info" and "packages": it is not a pyodide-lock.json; ${fix}.`,
    );
  }
  for (const [key, p] of Object.entries(packages)) {
    const ok =
      p &&
      typeof p.name === "string" &&
      typeof p.version === "string" &&
      typeof p.file_name === "string" &&
      /^[^/\\]+$/.test(p.file_name) &&
      typeof p.sha256 === "string" &&
      /^[0-9a-f]{64}$/.test(p.sha256) &&
      Array.isArray(p.imports) &&
      Array.isArray(p.depends);
    if (!ok)
      throw new EdgeError(
        "python_package_lock_invalid",
        { lock: where, package: key },
        `${where}: the entry "${key}" lacks a name, version, file_name, sha256, imports or depends; fix or replace the lock.`,
      );
  }
  return lock as PyodideLock;
}

/** A lock other than Pyodide's own must be made for the same ABI, or its wheels would not load. */
export function checkLockAbi(
  lock: PyodideLock,
  own: PyodideLock,
  where: string,
  pyodideVersion: string,
  fix: string,
): PyodideLock {
  if (lock.info.abi_version === own.info.abi_version) return lock;
  throw new EdgeError(
    "python_package_lock_invalid",
    { lock: where, abi_version: lock.info.abi_version ?? null, expected_abi_version: own.info.abi_version ?? null },
    `The package lock ${where} is for the Pyodide ABI ${String(lock.info.abi_version)}, the installed pyodide ${pyodideVersion} is ${String(own.info.abi_version)}; its wheels would not load. ${fix}`,
  );
}

/** The lock's entry for a package name (any spelling), or undefined. */
export function lockEntry(lock: PyodideLock, name: string): LockPackage | undefined {
  const key = canonicalName(name);
  const direct = Object.hasOwn(lock.packages, key) ? lock.packages[key] : undefined;
  if (direct) return direct;
  return Object.values(lock.packages).find((p) => canonicalName(p.name) === key);
}

/** import name → the package that provides it (Pyodide's _import_name_to_package_name). */
export function importIndex(lock: PyodideLock): Map<string, LockPackage> {
  const out = new Map<string, LockPackage>();
  for (const p of Object.values(lock.packages)) for (const name of p.imports) if (!out.has(name)) out.set(name, p);
  return out;
}

/** The frozen form of a lock entry. */
export function frozenPackage(p: LockPackage): FrozenPackage {
  return {
    name: p.name,
    version: p.version,
    file_name: p.file_name,
    sha256: `sha256:${p.sha256}`,
    source: "pyodide-lock",
  };
}

/**
 * The packages `names` need, dependencies included, in install order (every package after what it
 * depends on; ties by name), each once. An unknown name is python_package_not_in_lock.
 */
export function withDependencies(lock: PyodideLock, names: readonly string[]): LockPackage[] {
  const order: LockPackage[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string, neededBy: string | null): void => {
    const entry = lockEntry(lock, name);
    if (!entry) throw notInLock(name, neededBy);
    const key = canonicalName(entry.name);
    if (state.has(key)) return; // done, or a cycle (Pyodide installs cycles in any order too)
    state.set(key, "visiting");
    for (const dep of [...entry.depends].sort()) visit(dep, entry.name);
    state.set(key, "done");
    order.push(entry);
  };
  for (const name of [...names].sort()) visit(name, null);
  return order;
}

/** A package name (or import name) the lock does not have: never fetched from anywhere else. */
function notInLock(name: string, neededBy: string | null = null, lockName = "Pyodide's package lock"): EdgeError {
  const why = neededBy
    ? `${neededBy} depends on "${name}", which is not in ${lockName}`
    : `"${name}" is not a package of ${lockName}`;
  return new EdgeError(
    "python_package_not_in_lock",
    { package: name, ...(neededBy ? { needed_by: neededBy } : {}) },
    `${why}; \`edge packages add\` takes only the lock's packages, pinned by their sha256. Check the name against \`edge packages list --available\`; a package from PyPI is declared in the tools file (PEP 723) or requirements.txt and locked with \`edge packages lock\`.`,
  );
}

/** A lock package for an add request: a package name, else an import name (`bs4` → beautifulsoup4). */
export function packageForName(lock: PyodideLock, name: string): LockPackage {
  const entry = lockEntry(lock, name) ?? importIndex(lock).get(name);
  if (!entry) throw notInLock(name);
  return entry;
}
