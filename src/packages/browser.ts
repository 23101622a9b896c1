// The browser adapter of Python packages: Pyodide's own lock (the text the runner boots with, so
// it is not fetched twice), or a lock the page names for a self-hosted set (same ABI, checked); wheels in
// Cache Storage (store-cache.ts); and a package source that only an explicit Download fetches from
// (Pyodide's CDN for the installed version by default, or a folder the deployment serves, e.g. on
// the app's own origin for offline use). The sandbox never gets network: a freeze reads the store,
// and the verified bytes travel to the runner inside each job, as in Node.
import pyodidePackage from "pyodide/package.json";
import { addPackages, listPackages, removePackages, type AddedPackage, type PackageListing } from "./add.ts";
import { checkLockAbi, parseLock, withDependencies, type PyodideLock } from "./lock.ts";
import type { PackageProvider } from "./provider.ts";
import { defaultPackageSource, urlPackageSource, type PackageSource } from "./source.ts";
import { createCachePackageStore, lockCache } from "./store-cache.ts";
import type { PackageStore } from "./store.ts";
import { checkWheel, isIntact } from "./verify.ts";
import { EdgeError } from "../contract/errors.ts";

const PYODIDE_VERSION: string = (pyodidePackage as { version: string }).version;

export interface BrowserPackageOptions {
  /** Pyodide's own pyodide-lock.json, as the runner sandbox loaded it. */
  ownLock: string;
  /** A lock for a self-hosted set of wheels, made for the same Pyodide ABI; default: the own lock. */
  lockUrl?: string;
  /** The folder Download fetches wheel files from; default: Pyodide's CDN for this version. */
  sourceUrl?: string;
  store?: PackageStore;
}

/** One package a Download would bring, with its size when the source says. */
export interface PlannedPackage {
  name: string;
  version: string;
  file_name: string;
  /** Already on this device and intact: not fetched again. */
  stored: boolean;
  bytes?: number;
}

export interface DownloadPlan {
  packages: PlannedPackage[];
  /** Sum of the sizes of what is not stored yet; undefined when the source did not say for one. */
  bytes?: number;
  source: string;
}

export interface BrowserPackages {
  readonly provider: PackageProvider;
  readonly source: PackageSource;
  readonly store: PackageStore;
  lock(): Promise<PyodideLock>;
  /** What downloading `names` would fetch (dependencies included), to ask the person first. */
  plan(names: readonly string[]): Promise<DownloadPlan>;
  add(names: readonly string[]): Promise<AddedPackage[]>;
  list(): Promise<PackageListing>;
  remove(names: readonly string[]): Promise<{ name: string; file_name: string; removed: boolean }[]>;
}

const FETCH_FIX = "check the connection, or the package source the page names (?package-source=).";
const LOCK_FIX = "name a pyodide-lock.json made for this pyodide (?package-lock=), or leave it out";

/** A lock the page names, at `url`; offline (or when its server fails), the copy kept when it was
 *  last read. */
async function fetchLock(url: string): Promise<PyodideLock> {
  let text: string | undefined;
  let why = "";
  try {
    const res = await fetch(url);
    if (res.ok) text = await res.text();
    else why = `HTTP ${res.status}`;
  } catch (err) {
    why = err instanceof Error ? err.message : String(err);
  }
  if (text !== undefined) {
    const lock = parseLock(text, url, LOCK_FIX);
    await lockCache.put(url, text).catch(() => undefined); // keeping a copy is best effort
    return lock;
  }
  const kept = await lockCache.get(url).catch(() => undefined);
  if (kept !== undefined) return parseLock(kept, url, LOCK_FIX);
  throw new EdgeError("python_package_lock_invalid", { lock: url }, `The package lock ${url} could not be read (${why}); ${LOCK_FIX}.`);
}

export function browserPackages(options: BrowserPackageOptions): BrowserPackages {
  const store = options.store ?? createCachePackageStore();
  const source = urlPackageSource(new URL(options.sourceUrl ?? defaultPackageSource(PYODIDE_VERSION), location.href).href, FETCH_FIX);
  const custom = options.lockUrl ? new URL(options.lockUrl, location.href).href : undefined;
  const lockName = custom ? `the package lock ${custom}` : `Pyodide ${PYODIDE_VERSION}'s package lock`;
  let locked: Promise<PyodideLock> | undefined;
  const lock = (): Promise<PyodideLock> => {
    locked ??= (async () => {
      const own = parseLock(options.ownLock, `Pyodide ${PYODIDE_VERSION}'s package lock`, LOCK_FIX);
      return custom ? checkLockAbi(await fetchLock(custom), own, custom, PYODIDE_VERSION, `Name a lock made for this pyodide (?package-lock=), or leave it out.`) : own;
    })();
    locked.catch(() => (locked = undefined));
    return locked;
  };
  const provider: PackageProvider = {
    lockName,
    lock,
    async cached(pkg) {
      const bytes = await store.get(pkg.file_name);
      if (!bytes) return undefined;
      await checkWheel(pkg, bytes, `stored in ${store.location}`, "download it again in the Tools panel (it replaces the stored copy).");
      return bytes;
    },
    lockStep: () => ({
      advice: "The playground does not lock declared dependencies yet: run `edge packages lock` on the tools file with the CLI, and pick the project folder with its pylock.toml.",
    }),
    addStep: (names) => ({ advice: `Choose Download in the Tools panel (it fetches ${names.join(", ")} from ${source.location} and checks each wheel against ${lockName}), then inspect again.` }),
  };
  return {
    provider,
    source,
    store,
    lock,
    async plan(names) {
      const order = withDependencies(await lock(), names);
      const packages: PlannedPackage[] = [];
      for (const p of order) {
        const stored = await isIntact(p, await store.get(p.file_name));
        const bytes = stored ? undefined : await source.size(p.file_name);
        packages.push({ name: p.name, version: p.version, file_name: p.file_name, stored, ...(bytes !== undefined ? { bytes } : {}) });
      }
      const fetched = packages.filter((p) => !p.stored);
      const known = fetched.every((p) => p.bytes !== undefined);
      return { packages, source: source.location, ...(known ? { bytes: fetched.reduce((n, p) => n + (p.bytes ?? 0), 0) } : {}) };
    },
    add: async (names) => addPackages(names, await lock(), store, source),
    list: async () => listPackages(await lock(), store),
    remove: async (names) => removePackages(names, await lock(), store),
  };
}
