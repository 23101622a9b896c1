// The Node adapter of Python packages: the lock (Pyodide's own pyodide-lock.json, or the one
// $EDGE_PACKAGE_LOCK names, which must be made for the same Pyodide ABI), the store under
// $EDGE_DATA_DIR/packages, and the provider a freeze uses (store only, no network).
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { EdgeError } from "../contract/errors.ts";
import { shellWord } from "../platform/shell.ts";
import { checkLockAbi, parseLock, type PyodideLock } from "./lock.ts";
import type { PackageProvider } from "./provider.ts";
import { createNodePackageStore } from "./store-node.ts";
import type { PackageStore } from "./store.ts";
import { checkWheel } from "./verify.ts";

const require = createRequire(import.meta.url);

export function installedPyodideVersion(): string {
  return (require("pyodide/package.json") as { version: string }).version;
}

/** The installed pyodide's own lock. */
function pyodideLockFile(): string {
  return path.join(path.dirname(require.resolve("pyodide/package.json")), "pyodide-lock.json");
}

export interface NodeLock {
  lock: PyodideLock;
  file: string;
  /** For messages: "Pyodide 314.0.7's package lock" or "the package lock /path/lock.json". */
  name: string;
}

async function readLock(file: string): Promise<PyodideLock> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new EdgeError(
      "python_package_lock_invalid",
      { lock: file },
      `The package lock ${file} could not be read (${String((err as { code?: unknown }).code ?? err)}); point EDGE_PACKAGE_LOCK at a pyodide-lock.json, or unset it.`,
    );
  }
  return parseLock(text, file);
}

const locks = new Map<string, Promise<NodeLock>>();

/** The lock this process uses (read once): $EDGE_PACKAGE_LOCK, checked against the installed
 *  Pyodide's ABI, else Pyodide's own. */
export function nodeLock(env: NodeJS.ProcessEnv = process.env): Promise<NodeLock> {
  const custom = env.EDGE_PACKAGE_LOCK ? path.resolve(env.EDGE_PACKAGE_LOCK) : undefined;
  const key = custom ?? "";
  let found = locks.get(key);
  if (!found) {
    found = (async () => {
      const own = await readLock(pyodideLockFile());
      if (!custom)
        return { lock: own, file: pyodideLockFile(), name: `Pyodide ${installedPyodideVersion()}'s package lock` };
      const lock = checkLockAbi(
        await readLock(custom),
        own,
        custom,
        installedPyodideVersion(),
        "Point EDGE_PACKAGE_LOCK at a lock made for this pyodide, or unset it.",
      );
      return { lock, file: custom, name: `the package lock ${custom}` };
    })();
    found.catch(() => locks.delete(key));
    locks.set(key, found);
  }
  return found;
}

/** Where wheels a project's pylock.toml pins from a package index are kept: $EDGE_DATA_DIR/packages/pypi
 *  (apart from Pyodide's wheels, whose file names an index may reuse with other bytes). */
export function createPypiWheelStore(store: PackageStore = createNodePackageStore()): PackageStore {
  return createNodePackageStore(path.join(store.location, "pypi"));
}

/** What a freeze in this process uses: the lock, and wheels from the store (never a source). */
export function createNodePackageProvider(
  store: PackageStore = createNodePackageStore(),
  env: NodeJS.ProcessEnv = process.env,
): PackageProvider {
  const pypi = createPypiWheelStore(store);
  let lockName = "Pyodide's package lock";
  return {
    get lockName() {
      return lockName;
    },
    async lock() {
      const found = await nodeLock(env);
      lockName = found.name;
      return found.lock;
    },
    async cached(pkg) {
      const from = pkg.source === "pypi" ? pypi : store;
      const bytes = await from.get(pkg.file_name);
      if (!bytes) return undefined;
      const again =
        pkg.source === "pypi"
          ? "run `edge packages lock` for the tools file to fetch it again (it replaces the stored file)"
          : `run \`edge packages add ${pkg.name}\` to fetch it again (it replaces the stored file), or \`edge packages verify\` to check every stored wheel`;
      await checkWheel(pkg, bytes, `stored in ${from.location}`, `${again}.`);
      return bytes;
    },
    addStep(names) {
      const command = `edge packages add ${names.join(" ")}`;
      return {
        command,
        advice: `Run \`${command}\` once (it fetches the wheels from the package source and checks each against ${lockName}), then run this again.`,
      };
    },
    lockStep(toolsFile) {
      const command = `edge packages lock ${shellWord(toolsFile)}`;
      return {
        command,
        advice: `Run \`${command}\` (it resolves the declared dependencies against the package index, writes pylock.toml and fetches every wheel it pins, checked by sha256), then run this again.`,
      };
    },
  };
}
