// The browser adapter of Python packages: Pyodide's own lock (the text the runner boots with, so
// it is not fetched twice), or a lock the page names for a self-hosted set (same ABI, checked); wheels in
// Cache Storage (store-cache.ts: Pyodide's and those a project's pylock.toml pins from a package
// index, apart); a package source that only an explicit Download fetches from (Pyodide's CDN for
// the installed version by default, or a folder the deployment serves, e.g. on the app's own origin
// for offline use); and the package index a project's declared dependencies are locked against in
// the page (PyPI by default). The sandbox never gets network: a freeze reads the store, and the
// verified bytes travel to the runner inside each job, as in Node.
import pyodidePackage from "pyodide/package.json";
import type { ProjectSnapshot } from "../contract/project.ts";
import { addPackages, type AddedPackage } from "./add.ts";
import type { PinContext, PinnedPlan, PinnedWheel, StoredWheelRow } from "./browser-pins.ts";
import { checkLockAbi, parseLock, withDependencies, type PyodideLock } from "./lock.ts";
import type { LockOutcome } from "./lock-project.ts";
import type { PackageOrigin, PackageProvider } from "./provider.ts";
import { httpPackageIndex, PYPI_SIMPLE } from "./pypi.ts";
import { defaultPackageSource, urlPackageSource, type PackageSource } from "./source.ts";
import { createCachePackageStore, INDEX_WHEELS, lockCache } from "./store-cache.ts";
import type { PackageStore } from "./store.ts";
import { checkWheel, isIntact } from "./verify.ts";
import { EdgeError } from "../contract/errors.ts";

export type { PinnedPlan, PinnedWheel, StoredWheelRow } from "./browser-pins.ts";

const PYODIDE_VERSION: string = (pyodidePackage as { version: string }).version;

export interface BrowserPackageOptions {
  /** Pyodide's own pyodide-lock.json, as the runner sandbox loaded it (or a promise of it: the
   *  widget's runner boots on first use). */
  ownLock: string | (() => Promise<string>);
  /** A lock for a self-hosted set of wheels, made for the same Pyodide ABI; default: the own lock. */
  lockUrl?: string;
  /** The folder Download fetches wheel files from; default: Pyodide's CDN for this version. */
  sourceUrl?: string;
  store?: PackageStore;
  /** Where wheels pinned from a package index are kept; default: Cache Storage, apart from Pyodide's. */
  pypiStore?: PackageStore;
  /** The package index (PEP 691 JSON) the page locks declared dependencies against; default PyPI. */
  indexUrl?: string;
  /** Where a pylock.toml's pyodide-lock wheels are fetched from: the package source (the
   *  playground, so ?package-source= serves them too) or the URL the lock records (the widget). */
  pyodidePins?: "source" | "lock-url";
  /** What the messages tell a person to do, when this front door is not the playground (the widget). */
  steps?: Partial<Pick<PackageProvider, "addStep" | "lockStep">>;
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
  readonly pypiStore: PackageStore;
  /** The package index "Lock dependencies" resolves against (ends with "/"). */
  readonly indexUrl: string;
  lock(): Promise<PyodideLock>;
  /** What downloading `names` would fetch (dependencies included), to ask the person first. */
  plan(names: readonly string[]): Promise<DownloadPlan>;
  add(names: readonly string[]): Promise<AddedPackage[]>;
  /** The project's declared dependencies resolved against the index into pylock.toml's text
   *  (`text`; kept as it is when still current: then no text). Downloads nothing beyond what
   *  resolving needs: the wheels it pins are the Download's (pinned/addPinned). */
  lockProject(snapshot: Pick<ProjectSnapshot, "files" | "entry">): Promise<LockOutcome>;
  /** What the project's pylock.toml pins and which of its wheels this browser lacks; undefined
   *  when it declares nothing. A missing, stale or damaged lock throws as a freeze does. */
  pinned(snapshot: Pick<ProjectSnapshot, "files" | "entry">): Promise<PinnedPlan | undefined>;
  /** Fetch what `plan` lacks, each wheel checked against the lock's sha256 before it is stored. */
  addPinned(plan: PinnedPlan): Promise<PinnedWheel[]>;
  /** Every wheel this browser holds (Pyodide's and pinned ones), for the stored list. */
  stored(): Promise<StoredWheelRow[]>;
  /** Forget one stored wheel; true when there was one. */
  removeStored(wheel: { source: PackageOrigin; file_name: string }): Promise<boolean>;
}

const FETCH_FIX = "check the connection, or the package source the page names (?package-source=).";
const INDEX_FIX =
  "check the connection, or the package index the page names (?package-index=: an index serving PEP 691's JSON Simple API to this page, with CORS).";
const PIN_FIX = "check the connection and try again; if it keeps happening, lock the project again.";
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
  throw new EdgeError(
    "python_package_lock_invalid",
    { lock: url },
    `The package lock ${url} could not be read (${why}); ${LOCK_FIX}.`,
  );
}

export function browserPackages(options: BrowserPackageOptions): BrowserPackages {
  const store = options.store ?? createCachePackageStore();
  const pypiStore = options.pypiStore ?? createCachePackageStore(INDEX_WHEELS);
  const stores = { pypi: pypiStore, pyodide: store };
  const storeOf = (origin: PackageOrigin | undefined): PackageStore => (origin === "pypi" ? pypiStore : store);
  // A pylock.toml's code (TOML, wheel names) loads when a project has one, not with the page.
  const pinsCode = (): Promise<typeof import("./browser-pins.ts")> => import("./browser-pins.ts");
  const source = urlPackageSource(
    new URL(options.sourceUrl ?? defaultPackageSource(PYODIDE_VERSION), location.href).href,
    FETCH_FIX,
  );
  const index = new URL(options.indexUrl ?? PYPI_SIMPLE, location.href).href;
  const indexUrl = index.endsWith("/") ? index : `${index}/`;
  const custom = options.lockUrl ? new URL(options.lockUrl, location.href).href : undefined;
  const lockName = custom ? `the package lock ${custom}` : `Pyodide ${PYODIDE_VERSION}'s package lock`;
  let locked: Promise<PyodideLock> | undefined;
  const lock = (): Promise<PyodideLock> => {
    locked ??= (async () => {
      const text = typeof options.ownLock === "string" ? options.ownLock : await options.ownLock();
      const own = parseLock(text, `Pyodide ${PYODIDE_VERSION}'s package lock`, LOCK_FIX);
      return custom
        ? checkLockAbi(
            await fetchLock(custom),
            own,
            custom,
            PYODIDE_VERSION,
            `Name a lock made for this pyodide (?package-lock=), or leave it out.`,
          )
        : own;
    })();
    locked.catch(() => (locked = undefined));
    return locked;
  };
  const provider: PackageProvider = {
    lockName,
    lock,
    async cached(pkg) {
      const from = storeOf(pkg.source);
      const bytes = await from.get(pkg.file_name);
      if (!bytes) return undefined;
      const again =
        pkg.source === "pypi"
          ? "remove it under “Python packages in this browser” in the Tools panel, then download it again."
          : "download it again in the Tools panel (it replaces the stored copy).";
      await checkWheel(pkg, bytes, `stored in ${from.location}`, again);
      return bytes;
    },
    lockStep: (toolsFile) => ({
      advice: `Use the packages box of the Tools panel: “Lock dependencies” resolves what ${toolsFile} declares against ${indexUrl} into a pylock.toml (save it beside the tools file), and “Download” fetches the wheels the lock pins, each checked against its sha256.`,
    }),
    addStep: (names) => ({
      advice: `Choose Download in the Tools panel (it fetches ${names.join(", ")} from ${source.location} and checks each wheel against ${lockName}), then inspect again.`,
    }),
    ...options.steps,
  };
  const pins: PinContext = {
    stores,
    pyodideLock: lock,
    provider,
    ...(options.pyodidePins === "lock-url" ? {} : { pyodideSource: source }),
    fetchFix: PIN_FIX,
  };
  return {
    provider,
    source,
    store,
    pypiStore,
    indexUrl,
    lock,
    async plan(names) {
      const order = withDependencies(await lock(), names);
      const packages: PlannedPackage[] = [];
      for (const p of order) {
        const stored = await isIntact(p, await store.get(p.file_name));
        const bytes = stored ? undefined : await source.size(p.file_name);
        packages.push({
          name: p.name,
          version: p.version,
          file_name: p.file_name,
          stored,
          ...(bytes !== undefined ? { bytes } : {}),
        });
      }
      const fetched = packages.filter((p) => !p.stored);
      const known = fetched.every((p) => p.bytes !== undefined);
      return {
        packages,
        source: source.location,
        ...(known ? { bytes: fetched.reduce((n, p) => n + (p.bytes ?? 0), 0) } : {}),
      };
    },
    add: async (names) => addPackages(names, await lock(), store, source),
    async lockProject(snapshot) {
      // The resolver and its libraries load when a person first locks (not in the entry script).
      const { lockProject } = await import("./lock-project.ts");
      return lockProject(snapshot, {
        index: httpPackageIndex(indexUrl, INDEX_FIX),
        pyodideLock: await lock(),
        pyodideSource: source,
        // The URL a lock records for Pyodide's own wheels, as the CLI writes it: the same project locks alike everywhere.
        pyodideUrl: defaultPackageSource(PYODIDE_VERSION),
        pypiStore,
        pyodideStore: store,
        fetch: false,
      });
    },
    pinned: async (snapshot) => (await pinsCode()).pinnedPlan(snapshot, pins),
    addPinned: async (plan) => (await pinsCode()).fetchPinned(plan, pins),
    stored: async () => (await pinsCode()).storedWheels(stores, await lock().catch(() => undefined)),
    removeStored: (wheel) => storeOf(wheel.source).remove(wheel.file_name),
  };
}
