// Python packages of a job, installed before any tool code exists: each wheel checked against the
// lock's sha256, then unpacked by Pyodide's own installer (what loadPackage uses) into
// site-packages. A refusal is the job's reply (runner-replies.ts), not a fatal error.
import type { PyodideAPI } from "pyodide";
import { sha256Hex } from "./hmac-sha256.ts";
import type { PackageWheel } from "./protocol.ts";
import { describe, type JobError } from "./runner-replies.ts";

/** Pyodide's installer: unpacks a wheel into a folder and loads its shared libraries. */
export interface PackageInstaller {
  install(bytes: Uint8Array, fileName: string, installDir: string, metadata: Map<string, string>): Promise<void>;
  installDir(kind: string): string;
  /** Drops the import system's cached listing of a folder the wheels went into, so it sees the new
   *  files. Not importlib.invalidate_caches(): that also makes the standard library's zip importer
   *  read its whole directory again (≈ 0.3 s a job, measured). */
  forget(dir: string): void;
}

/** Pyodide's installer, as loadPackage uses it (API.install and package_loader.get_install_dir;
 *  private API of the pinned pyodide version, checked by src/cli/packages.test.ts). */
export function packageInstaller(py: PyodideAPI): PackageInstaller | undefined {
  const api = (py as { _api?: { install?: unknown; package_loader?: { get_install_dir?: unknown } } })._api;
  const install = api?.install;
  const getDir = api?.package_loader?.get_install_dir;
  if (typeof install !== "function" || typeof getDir !== "function") return undefined;
  const forget = py.runPython("import sys\nlambda d: sys.path_importer_cache.pop(d, None) and None") as (
    dir: string,
  ) => unknown;
  return {
    install: install as PackageInstaller["install"],
    installDir: (kind) => String((getDir as (k: string) => unknown)(kind)),
    forget: (dir) => void forget(dir),
  };
}

/** Check every wheel, then install them in order; the error that refuses the job, or undefined. */
export async function installPackages(
  installer: PackageInstaller | undefined,
  wheels: PackageWheel[],
): Promise<JobError | undefined> {
  for (const wheel of wheels) {
    const bytes = wheel.bytes;
    const found = bytes instanceof Uint8Array ? `sha256:${sha256Hex(bytes)}` : "";
    if (found !== String(wheel.sha256)) {
      return {
        code: "python_package_hash_mismatch",
        message: `The runner was given ${String(wheel.file_name)} with sha256 ${found || "(no bytes)"}, not the lock's ${String(wheel.sha256)}; it was not installed and nothing was imported. Run \`edge packages verify\`.`,
      };
    }
  }
  if (!installer)
    return {
      code: "python_package_install_failed",
      message:
        "This Pyodide has no package installer Edge knows (API.install); nothing was imported. Use the pyodide version Edge pins.",
    };
  const dirs = new Set<string>();
  for (const wheel of wheels) {
    try {
      const dir = installer.installDir(String(wheel.install_dir));
      dirs.add(dir);
      await installer.install(
        wheel.bytes,
        String(wheel.file_name),
        dir,
        new Map([
          ["INSTALLER", "edge"],
          ["PYODIDE_SOURCE", wheel.source === "pypi" ? "pypi" : "pyodide"],
        ]),
      );
    } catch (err) {
      return {
        code: "python_package_install_failed",
        message: `${String(wheel.file_name)} could not be installed in the runner (${describe(err).slice(0, 500)}); nothing was imported. Check that it is a wheel of this Pyodide version's lock, or one the project's pylock.toml pins for this Pyodide.`,
      };
    }
  }
  for (const dir of dirs) installer.forget(dir);
  return undefined;
}
