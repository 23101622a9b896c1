// The wheels a project's pylock.toml pins, in the browser: which of them this browser holds, what a
// Download would bring (sizes from the lock), and the download itself — each wheel fetched from
// where the lock says (its URL for a package index's wheel; Pyodide's own wheels from the page's
// package source, or from the lock's URL in the widget), checked against the lock's sha256 BEFORE
// it is stored (a wheel with other bytes is refused and nothing of it is kept). Pinned index
// wheels and Pyodide's are kept in two stores: an index may reuse a file name of Pyodide's with
// other bytes.
import type { ProjectSnapshot } from "../contract/project.ts";
import { folderOf, PYLOCK_NAME } from "./declared-files.ts";
import { projectLock } from "./freeze.ts";
import { canonicalName, type PyodideLock } from "./lock.ts";
import type { PackageOrigin, PackageProvider } from "./provider.ts";
import { fetchWheel, type PackageSource } from "./source.ts";
import type { PackageStore } from "./store.ts";
import { checkWheel, isIntact } from "./verify.ts";
import { parseWheelName } from "./wheel.ts";

/** One wheel of the lock, as this browser holds it. */
export interface PinnedWheel {
  name: string;
  version: string;
  source: PackageOrigin;
  file_name: string;
  url: string;
  /** Hex, as the lock pins it. */
  sha256: string;
  /** Stored here and intact: not fetched again. */
  stored: boolean;
  /** From the lock (an index's size), else from where it would be fetched; undefined when neither says. */
  bytes?: number;
}

export interface PinnedPlan {
  /** The lock's path in the project ("shop/pylock.toml"). */
  path: string;
  packages: PinnedWheel[];
  /** What a Download would fetch (the wheels not stored), in install order. */
  missing: PinnedWheel[];
  /** The sum of their sizes; undefined when one is unknown. */
  bytes?: number;
}

export interface PinStores {
  /** Wheels pinned from a package index (source "pypi"). */
  pypi: PackageStore;
  /** Pyodide's own wheels (source "pyodide-lock", and Pyodide's lock). */
  pyodide: PackageStore;
}

export interface PinContext {
  stores: PinStores;
  pyodideLock(): Promise<PyodideLock>;
  provider: PackageProvider;
  /** Where Pyodide's own wheels come from: the page's package source, or (undefined) the lock's URL. */
  pyodideSource?: PackageSource;
  /** Ends a failed download's message (after a semicolon): what the person can do. */
  fetchFix: string;
}

/** One stored wheel, of either kind, for the stored list. */
export interface StoredWheelRow {
  name: string;
  version: string;
  source: PackageOrigin;
  file_name: string;
  bytes: number;
}

function storeOf(stores: PinStores, source: PackageOrigin | undefined): PackageStore {
  return source === "pypi" ? stores.pypi : stores.pyodide;
}

/** What the project's pylock.toml pins and what of it this browser lacks; undefined when the project
 *  has no lock (it declares nothing). A missing, stale or damaged lock throws as a freeze does. */
export async function pinnedPlan(
  snapshot: Pick<ProjectSnapshot, "files" | "entry">,
  ctx: PinContext,
): Promise<PinnedPlan | undefined> {
  const found = await projectLock(snapshot, await ctx.pyodideLock(), ctx.provider, snapshot.entry);
  if (!found) return undefined;
  const packages: PinnedWheel[] = [];
  for (const pin of found.lock.packages) {
    const stored = await isIntact(pin, await storeOf(ctx.stores, pin.source).get(pin.file_name));
    const bytes = pin.size ?? (stored ? undefined : await sizeOf(pin, ctx));
    packages.push({
      name: pin.name,
      version: pin.version,
      source: pin.source,
      file_name: pin.file_name,
      url: pin.url,
      sha256: pin.sha256,
      stored,
      ...(bytes !== undefined ? { bytes } : {}),
    });
  }
  const missing = packages.filter((p) => !p.stored);
  const known = missing.every((p) => p.bytes !== undefined);
  return {
    path: `${folderOf(snapshot.entry)}${PYLOCK_NAME}`,
    packages,
    missing,
    ...(known ? { bytes: missing.reduce((n, p) => n + (p.bytes ?? 0), 0) } : {}),
  };
}

/** Fetch, check and store the wheels `plan` lacks, in install order; stops at the first failure
 *  (what was stored before it stays: each is whole and checked). */
export async function fetchPinned(plan: PinnedPlan, ctx: PinContext): Promise<PinnedWheel[]> {
  const added: PinnedWheel[] = [];
  for (const pin of plan.missing) {
    const source = sourceOf(pin, ctx);
    const where = source ? source.location : pin.url;
    const bytes = source ? await source.fetch(pin.file_name) : await fetchWheel(pin.url, pin.file_name, ctx.fetchFix);
    await checkWheel(pin, bytes, `from ${where}`, `nothing of it was stored; ${ctx.fetchFix}`);
    await storeOf(ctx.stores, pin.source).put(pin.file_name, bytes);
    added.push({ ...pin, stored: true, bytes: bytes.byteLength });
  }
  return added;
}

/** Every wheel this browser holds, both kinds: Pyodide's named by its lock (files no lock names are
 *  left out), an index's by its file name. Sorted by name. */
export async function storedWheels(stores: PinStores, pyodideLock: PyodideLock | undefined): Promise<StoredWheelRow[]> {
  const rows: StoredWheelRow[] = [];
  if (pyodideLock) {
    const byFile = new Map(Object.values(pyodideLock.packages).map((p) => [p.file_name, p]));
    for (const w of await stores.pyodide.list()) {
      const pkg = byFile.get(w.file_name);
      if (pkg)
        rows.push({
          name: pkg.name,
          version: pkg.version,
          source: "pyodide-lock",
          file_name: w.file_name,
          bytes: w.bytes,
        });
    }
  }
  for (const w of await stores.pypi.list()) {
    const parsed = parseWheelName(w.file_name);
    rows.push({
      name: parsed ? canonicalName(parsed.distribution) : w.file_name,
      version: parsed?.version ?? "",
      source: "pypi",
      file_name: w.file_name,
      bytes: w.bytes,
    });
  }
  return rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.source < b.source ? -1 : 1));
}

/** The package source a pin is fetched from, or undefined: its URL in the lock. */
function sourceOf(pin: { source: PackageOrigin }, ctx: PinContext): PackageSource | undefined {
  return pin.source === "pyodide-lock" ? ctx.pyodideSource : undefined;
}

async function sizeOf(
  pin: { source: PackageOrigin; url: string; file_name: string },
  ctx: PinContext,
): Promise<number | undefined> {
  const source = sourceOf(pin, ctx);
  if (source) return source.size(pin.file_name);
  // Content-Length is a CORS-safelisted response header: a cross-origin HEAD can read it.
  const res = await fetch(pin.url, { method: "HEAD", redirect: "follow" }).catch(() => undefined);
  const n = Number(res?.ok ? (res.headers.get("content-length") ?? "") : "");
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
