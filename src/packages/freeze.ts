// A tools project's Python packages, frozen (issue 25): the imports the tools file reaches (reach.ts) resolved
// against the lock (dependencies included), each wheel taken from this device's store, checked
// against the lock's sha256. The frozen set — names, versions, file names, sha256 — goes into the
// freeze, inspect --json and receipts; the verified bytes go into every job of the session, where
// the runner checks them again and installs them before the tools file is imported. Nothing here
// fetches: a package not on the device is python_package_missing, naming the command that adds it.
import { EdgeError, type ErrorJson } from "../contract/errors.ts";
import type { ProjectSnapshot } from "../contract/project.ts";
import type { PackageWheel } from "../../workers/protocol.ts";
import { projectImports } from "./reach.ts";
import { frozenPackage, importIndex, withDependencies, type FrozenPackage, type LockPackage, type PyodideLock } from "./lock.ts";
import type { PackageProvider } from "./provider.ts";

export interface FrozenPackages {
  /** In install order (dependencies first). Empty for a project that imports none. */
  packages: FrozenPackage[];
  /** What every job carries: the verified wheels, in the same order. */
  wheels: PackageWheel[];
}

export const NO_PACKAGES: FrozenPackages = { packages: [], wheels: [] };

/** The lock packages a project's imports need (with dependencies), and which import asked for each. */
export function packagesFor(snapshot: Pick<ProjectSnapshot, "files" | "entry">, lock: PyodideLock): { order: LockPackage[]; imports: Map<string, string> } {
  const index = importIndex(lock);
  const imports = new Map<string, string>();
  for (const name of projectImports(snapshot.files, snapshot.entry)) {
    const pkg = index.get(name);
    if (pkg && !imports.has(pkg.name)) imports.set(pkg.name, name);
  }
  return { order: withDependencies(lock, [...imports.keys()]), imports };
}

export async function freezePackages(snapshot: ProjectSnapshot, provider: PackageProvider): Promise<FrozenPackages> {
  const lock = await provider.lock();
  const { order, imports } = packagesFor(snapshot, lock);
  if (!order.length) return NO_PACKAGES;
  const wheels: PackageWheel[] = [];
  const missing: LockPackage[] = [];
  for (const pkg of order) {
    const bytes = await provider.cached(pkg);
    if (!bytes) missing.push(pkg);
    else wheels.push({ name: pkg.name, file_name: pkg.file_name, install_dir: pkg.install_dir, sha256: `sha256:${pkg.sha256}`, bytes });
  }
  if (missing.length) throw packageMissing(missing, imports, snapshot.entry, provider);
  return { packages: order.map(frozenPackage), wheels };
}

function packageMissing(missing: LockPackage[], imports: Map<string, string>, entry: string, provider: PackageProvider): EdgeError {
  // The command names what the project imports (add brings their dependencies), or the missing
  // dependencies themselves when only those are gone.
  const direct = missing.filter((p) => imports.has(p.name));
  const names = (direct.length ? direct : missing).map((p) => p.name);
  const what = missing
    .map((p) => (imports.has(p.name) ? `${p.name} ${p.version} (for \`import ${imports.get(p.name)}\`)` : `${p.name} ${p.version} (a dependency)`))
    .join(", ");
  const step = provider.addStep(names);
  return new EdgeError(
    "python_package_missing",
    { packages: missing.map((p) => p.name), ...(step.command ? { command: step.command } : {}), file: entry },
    `The tools project needs Python packages that are not on this device yet: ${what}. ${step.advice}`,
  );
}

/**
 * A discovery error for a module the runner could not import (edge_runner adds `module`), told in
 * terms of the lock: a module the lock provides but the freeze did not send (imported in a way the
 * scan does not see) is python_package_missing; one outside the lock is python_package_not_in_lock.
 * Other errors are returned unchanged.
 */
export function explainImportError(error: ErrorJson, lock: PyodideLock, frozen: FrozenPackages, lockName: string): ErrorJson {
  const module = typeof error.module === "string" ? error.module : undefined;
  if (error.code !== "tools_file_import_failed" || !module) return error;
  const pkg = importIndex(lock).get(module);
  if (pkg && frozen.packages.some((p) => p.name === pkg.name)) return error; // installed, failed for its own reasons
  if (pkg) {
    return {
      ...error,
      code: "python_package_missing",
      packages: [pkg.name],
      message: `${error.message}. The module ${module} is in the package ${pkg.name} ${pkg.version} of ${lockName}, but the tools project imports it in a way Edge does not see before running it (importlib, __import__ or exec); add a plain \`import ${module}\` to the tools file so the package is resolved, frozen and sent.`,
    };
  }
  return {
    ...error,
    code: "python_package_not_in_lock",
    package: module,
    message: `${error.message}. ${module} is not in Python's standard library, not in the tools project and not a package of ${lockName}; Edge installs only the lock's packages and never from PyPI. Put the module's .py files into the tools project (beside the tools file), or remove the import.`,
  };
}
