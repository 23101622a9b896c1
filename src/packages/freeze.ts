// A tools project's Python packages, frozen: the imports the tools file reaches (reach.ts) resolved
// against the lock (dependencies included), each wheel taken from this device's store, checked
// against the lock's sha256. The frozen set — names, versions, file names, sha256 — goes into the
// freeze, inspect --json and receipts; the verified bytes go into every job of the session, where
// the runner checks them again and installs them before the tools file is imported. Nothing here
// fetches: a package not on the device is python_package_missing, naming the command that adds it.
import { EdgeError, type ErrorJson } from "../contract/errors.ts";
import { sha256Bytes, type Sha256 } from "../contract/hash.ts";
import type { ProjectSnapshot } from "../contract/project.ts";
import type { PackageWheel } from "../../workers/protocol.ts";
import { folderOf, mayDeclare, PYLOCK_NAME } from "./declared-files.ts";
import { projectImports } from "./reach.ts";
import {
  canonicalName,
  frozenPackage,
  importIndex,
  withDependencies,
  type FrozenPackage,
  type LockPackage,
  type PyodideLock,
} from "./lock.ts";
import type { PackageProvider } from "./provider.ts";
import type { Pylock } from "./pylock.ts";

export interface FrozenPackages {
  /** In install order (dependencies first). Empty for a project that imports none. */
  packages: FrozenPackage[];
  /** What every job carries: the verified wheels, in the same order. */
  wheels: PackageWheel[];
  /** sha256 of the project's pylock.toml, when it declares dependencies. */
  lock_sha256?: Sha256;
}

export const NO_PACKAGES: FrozenPackages = { packages: [], wheels: [] };

/** The lock packages a project's imports need (with dependencies), and which import asked for each;
 *  packages in `pinned` (canonical names its pylock.toml provides) are left to that lock. */
export function packagesFor(
  snapshot: Pick<ProjectSnapshot, "files" | "entry">,
  lock: PyodideLock,
  pinned: ReadonlySet<string> = new Set(),
): { order: LockPackage[]; imports: Map<string, string> } {
  const index = importIndex(lock);
  const imports = new Map<string, string>();
  for (const name of projectImports(snapshot.files, snapshot.entry)) {
    const pkg = index.get(name);
    if (pkg && !imports.has(pkg.name) && !pinned.has(canonicalName(pkg.name))) imports.set(pkg.name, name);
  }
  return {
    order: withDependencies(lock, [...imports.keys()]).filter((p) => !pinned.has(canonicalName(p.name))),
    imports,
  };
}

/** The project's pylock.toml (beside the tools file), checked against what the project declares and
 *  the runner's Pyodide; undefined when it declares nothing. `toolsFile` names it in commands. */
export async function projectLock(
  snapshot: Pick<ProjectSnapshot, "files" | "entry">,
  pyodide: PyodideLock,
  provider: PackageProvider,
  toolsFile: string,
): Promise<{ lock: Pylock; sha256: Sha256 } | undefined> {
  if (!mayDeclare(snapshot.files, snapshot.entry)) return undefined;
  const [{ declaredDependencies }, { declaredKey, readPylock }] = await Promise.all([
    import("./declared.ts"),
    import("./pylock.ts"),
  ]);
  const declared = declaredDependencies(snapshot);
  const path = `${folderOf(snapshot.entry)}${PYLOCK_NAME}`;
  const bytes = snapshot.files[path];
  const step = provider.lockStep(toolsFile);
  const fail = (
    code: "python_lock_missing" | "python_lock_stale" | "python_lock_invalid",
    happened: string,
  ): EdgeError =>
    new EdgeError(
      code,
      { file: path, ...(step.command ? { command: step.command } : {}) },
      `${happened} ${step.advice}`,
    );
  if (!bytes) {
    if (!declared.sources.length) return undefined;
    throw fail(
      "python_lock_missing",
      `${declared.sources.join(" and ")} declare${declared.sources.length > 1 ? "" : "s"} dependencies, but there is no ${path} pinning them.`,
    );
  }
  const lock = await readPylock(new TextDecoder().decode(bytes), path, step.advice);
  if (lock.abi !== pyodide.info.abi_version)
    throw fail(
      "python_lock_invalid",
      `${path} was made for the Pyodide ABI ${lock.abi}; this runner's is ${String(pyodide.info.abi_version)}.`,
    );
  const now = declaredKey(declared);
  if (JSON.stringify(now) !== JSON.stringify(lock.requirements)) {
    throw fail(
      "python_lock_stale",
      `${path} pins [${lock.requirements.join(", ")}], but the project now declares [${now.join(", ")}].`,
    );
  }
  return { lock, sha256: await sha256Bytes(bytes) };
}

export async function freezePackages(
  snapshot: ProjectSnapshot,
  provider: PackageProvider,
  toolsFile: string = snapshot.entry,
): Promise<FrozenPackages> {
  const lock = await provider.lock();
  const project = await projectLock(snapshot, lock, provider, toolsFile);
  const pins = project?.lock.packages ?? [];
  const { order, imports } = packagesFor(snapshot, lock, new Set(pins.map((p) => canonicalName(p.name))));
  if (!order.length && !project) return NO_PACKAGES;
  const wheels: PackageWheel[] = [];
  const missingPins: string[] = [];
  for (const pin of pins) {
    const bytes = await provider.cached(pin);
    if (!bytes) missingPins.push(`${pin.name} ${pin.version}`);
    else
      wheels.push({
        name: pin.name,
        file_name: pin.file_name,
        install_dir: pin.install_dir,
        sha256: `sha256:${pin.sha256}`,
        bytes,
        source: pin.source,
      });
  }
  if (missingPins.length) {
    const step = provider.lockStep(toolsFile);
    throw new EdgeError(
      "python_package_missing",
      { packages: missingPins, ...(step.command ? { command: step.command } : {}), file: snapshot.entry },
      `The tools project's pylock.toml pins wheels that are not on this device yet: ${missingPins.join(", ")}. ${step.advice}`,
    );
  }
  const missing: LockPackage[] = [];
  for (const pkg of order) {
    const bytes = await provider.cached(pkg);
    if (!bytes) missing.push(pkg);
    else
      wheels.push({
        name: pkg.name,
        file_name: pkg.file_name,
        install_dir: pkg.install_dir,
        sha256: `sha256:${pkg.sha256}`,
        bytes,
      });
  }
  if (missing.length) throw packageMissing(missing, imports, snapshot.entry, provider);
  const frozen = [
    ...pins.map(
      (p): FrozenPackage => ({
        name: p.name,
        version: p.version,
        file_name: p.file_name,
        sha256: `sha256:${p.sha256}`,
        source: p.source,
      }),
    ),
    ...order.map(frozenPackage),
  ];
  return { packages: frozen, wheels, ...(project ? { lock_sha256: project.sha256 } : {}) };
}

function packageMissing(
  missing: LockPackage[],
  imports: Map<string, string>,
  entry: string,
  provider: PackageProvider,
): EdgeError {
  // The command names what the project imports (add brings their dependencies), or the missing
  // dependencies themselves when only those are gone.
  const direct = missing.filter((p) => imports.has(p.name));
  const names = (direct.length ? direct : missing).map((p) => p.name);
  const what = missing
    .map((p) =>
      imports.has(p.name)
        ? `${p.name} ${p.version} (for \`import ${imports.get(p.name)}\`)`
        : `${p.name} ${p.version} (a dependency)`,
    )
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
export function explainImportError(
  error: ErrorJson,
  lock: PyodideLock,
  frozen: FrozenPackages,
  lockName: string,
): ErrorJson {
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
    message: `${error.message}. ${module} is not in Python's standard library, not in the tools project and not a package of ${lockName}, and nothing the project declares pins it. Declare its package (a "# /// script" block or requirements.txt) and run \`edge packages lock\` on the tools file, put the module's .py files into the tools project, or remove the import.`,
  };
}
