// `edge packages add|list|verify|remove` as library calls over a lock, a store and (for add only) a
// source. add fetches each wheel the names need (dependencies included) that is not stored yet,
// checks it against the lock's sha256 BEFORE storing it (a tampered wheel is refused and nothing
// is written), and never contacts the source for a wheel already stored and intact.
import { EdgeError } from "../contract/errors.ts";
import {
  canonicalName,
  frozenPackage,
  packageForName,
  withDependencies,
  type FrozenPackage,
  type PyodideLock,
} from "./lock.ts";
import type { PackageSource } from "./source.ts";
import type { PackageStore } from "./store.ts";
import { checkWheel, isIntact } from "./verify.ts";

export interface PackageRow extends FrozenPackage {
  bytes: number;
}

export interface AddedPackage extends PackageRow {
  /** "added": fetched and stored now; "cached": already stored and intact (the source was not asked). */
  status: "added" | "cached";
  /** Asked for by name, or pulled in as a dependency. */
  requested: boolean;
}

export async function addPackages(
  names: readonly string[],
  lock: PyodideLock,
  store: PackageStore,
  source: PackageSource,
): Promise<AddedPackage[]> {
  const requested = new Set(names.map((n) => canonicalName(packageForName(lock, n).name)));
  const order = withDependencies(lock, [...requested]);
  const out: AddedPackage[] = [];
  for (const pkg of order) {
    const isRequested = requested.has(canonicalName(pkg.name));
    const stored = await store.get(pkg.file_name);
    if (stored && (await isIntact(pkg, stored))) {
      out.push({ ...frozenPackage(pkg), bytes: stored.byteLength, status: "cached", requested: isRequested });
      continue;
    }
    const bytes = await source.fetch(pkg.file_name);
    await checkWheel(
      pkg,
      bytes,
      `from ${source.location}`,
      "nothing was stored. Check that the package source holds the wheels of this Pyodide version's lock.",
    );
    await store.put(pkg.file_name, bytes);
    out.push({ ...frozenPackage(pkg), bytes: bytes.byteLength, status: "added", requested: isRequested });
  }
  return out;
}

export interface StoredPackage extends PackageRow {
  /** The stored bytes hash to the lock's sha256 (only known after verify; list does not hash). */
  verified?: boolean;
}

export interface PackageListing {
  packages: StoredPackage[];
  /** Files in the store that no package of the lock names (another Pyodide version's wheels). */
  unknown: { file_name: string; bytes: number }[];
}

/** What the store holds, by the lock's packages (hashing every wheel when `verify`). */
export async function listPackages(lock: PyodideLock, store: PackageStore, verify = false): Promise<PackageListing> {
  const byFile = new Map(Object.values(lock.packages).map((p) => [p.file_name, p]));
  const listing: PackageListing = { packages: [], unknown: [] };
  for (const wheel of await store.list()) {
    const pkg = byFile.get(wheel.file_name);
    if (!pkg) {
      listing.unknown.push(wheel);
      continue;
    }
    const row: StoredPackage = { ...frozenPackage(pkg), bytes: wheel.bytes };
    if (verify) {
      const bytes = await store.get(pkg.file_name);
      row.verified = await isIntact(pkg, bytes);
    }
    listing.packages.push(row);
  }
  listing.packages.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return listing;
}

/** Remove named packages' wheels (not their dependencies, which other packages may need). */
export async function removePackages(
  names: readonly string[],
  lock: PyodideLock,
  store: PackageStore,
): Promise<{ name: string; file_name: string; removed: boolean }[]> {
  if (!names.length)
    throw new EdgeError(
      "invalid_option",
      {},
      "Name at least one package to remove (edge packages list shows the stored ones).",
    );
  const out: { name: string; file_name: string; removed: boolean }[] = [];
  for (const name of names) {
    const pkg = packageForName(lock, name);
    out.push({ name: pkg.name, file_name: pkg.file_name, removed: await store.remove(pkg.file_name) });
  }
  return out;
}
