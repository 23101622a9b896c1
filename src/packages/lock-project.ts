// `edge packages lock` as a library call, environment-neutral: a project's declared dependencies
// resolved against a package index into the text of its pylock.toml (kept as it is when it is
// still current, unless `upgrade`), then every wheel it pins fetched onto this device — each
// checked against the lock's sha256 before it is stored, one already stored and intact never
// fetched again. The caller writes the text (atomically) beside the tools file.
import { EdgeError, toErrorJson, type ErrorJson } from "../contract/errors.ts";
import type { ProjectSnapshot } from "../contract/project.ts";
import { declaredDependencies, type Declared } from "./declared.ts";
import { folderOf, PYLOCK_NAME } from "./declared-files.ts";
import type { PyodideLock } from "./lock.ts";
import type { PackageIndex } from "./pypi.ts";
import { declaredKey, readPylock, writePylock } from "./pylock.ts";
import { pyodideEnvironment } from "./requirement.ts";
import { resolveDependencies, type PinnedPackage } from "./resolve.ts";
import type { PackageSource } from "./source.ts";
import type { PackageStore } from "./store.ts";
import { checkWheel, isIntact } from "./verify.ts";
import type { WheelTarget } from "./wheel.ts";

export interface LockContext {
  index: PackageIndex;
  pyodideLock: PyodideLock;
  /** Where Pyodide's own wheels come from (a package the index has no installable wheel for). */
  pyodideSource: PackageSource;
  /** The URL a lock records for Pyodide's own wheels: its distribution of this version (source.ts). */
  pyodideUrl: string;
  /** Wheels pinned from the index, and Pyodide's own. */
  pypiStore: PackageStore;
  pyodideStore: PackageStore;
  /** Resolve again even when the lock is current (newest versions the declarations allow). */
  upgrade?: boolean;
  /** false: download nothing beyond what resolving needed (the playground asks before it downloads);
   *  wheels resolving downloaded anyway, to read their metadata, are stored. Default true. */
  fetch?: boolean;
}

export interface LockedRow {
  name: string;
  version: string;
  source: PinnedPackage["source"];
  file_name: string;
  sha256: string;
  /** "added": fetched now; "cached": already stored and intact; "failed": not fetched (error);
   *  "pinned": not on this device, left to the caller (`fetch: false`). */
  status: "added" | "cached" | "failed" | "pinned";
  bytes?: number;
  error?: ErrorJson;
}

export interface LockOutcome {
  /** The lock's path in the project ("shop/pylock.toml"). */
  path: string;
  declared: Declared;
  /** "written": resolved now (text holds the new lock); "current": the lock on disk still holds. */
  status: "written" | "current";
  text?: string;
  packages: LockedRow[];
}

function pyodideTarget(lock: PyodideLock): WheelTarget {
  const python = lock.info.python;
  if (typeof python !== "string" || typeof lock.info.abi_version !== "string") {
    throw new EdgeError(
      "python_package_lock_invalid",
      {},
      "Pyodide's lock names no Python version or ABI, so no wheel can be matched to it; run `npm ci` to install the pyodide package again.",
    );
  }
  return { python, abi: lock.info.abi_version };
}

export async function lockProject(
  snapshot: Pick<ProjectSnapshot, "files" | "entry">,
  ctx: LockContext,
): Promise<LockOutcome> {
  const declared = declaredDependencies(snapshot);
  const path = `${folderOf(snapshot.entry)}${PYLOCK_NAME}`;
  if (!declared.sources.length) {
    throw new EdgeError(
      "python_requirement_invalid",
      { file: snapshot.entry },
      `${snapshot.entry} declares no dependencies: add a "# /// script" block with dependencies = ["name>=version", …] (PEP 723) or a requirements.txt beside it, then lock.`,
    );
  }
  const target = pyodideTarget(ctx.pyodideLock);
  const current = await currentLock(snapshot.files[path], path, declared, target);
  let pins: PinnedPackage[];
  let text: string | undefined;
  const downloaded = new Map<string, Uint8Array>();
  if (current && !ctx.upgrade) pins = current;
  else {
    const env = pyodideEnvironment(target.python);
    const resolved = await resolveDependencies(declared, {
      index: ctx.index,
      pyodideLock: ctx.pyodideLock,
      pyodideSource: ctx.pyodideUrl,
      target,
      env,
    });
    pins = resolved.packages;
    for (const [k, v] of resolved.downloaded) downloaded.set(k, v);
    text = await writePylock(pins, declared, target, ctx.index.url);
  }
  const packages: LockedRow[] = [];
  for (const pin of pins)
    packages.push(
      ctx.fetch === false && !downloaded.has(pin.file_name)
        ? await storedPin(pin, ctx)
        : await fetchPin(pin, downloaded, ctx),
    );
  return {
    path,
    declared,
    status: text === undefined ? "current" : "written",
    ...(text !== undefined ? { text } : {}),
    packages,
  };
}

/** The pins of a lock that still holds for these declarations and this Pyodide; else undefined
 *  (missing, stale, made for another ABI, or damaged: all resolved again). */
async function currentLock(
  bytes: Uint8Array | undefined,
  path: string,
  declared: Declared,
  target: WheelTarget,
): Promise<PinnedPackage[] | undefined> {
  if (!bytes) return undefined;
  try {
    const lock = await readPylock(new TextDecoder().decode(bytes), path);
    const same =
      lock.abi === target.abi &&
      lock.python === target.python &&
      JSON.stringify(lock.requirements) === JSON.stringify(declaredKey(declared));
    return same ? lock.packages : undefined;
  } catch {
    return undefined;
  }
}

/** A pin as this device holds it, without fetching (`fetch: false`). */
async function storedPin(pin: PinnedPackage, ctx: LockContext): Promise<LockedRow> {
  const row = {
    name: pin.name,
    version: pin.version,
    source: pin.source,
    file_name: pin.file_name,
    sha256: `sha256:${pin.sha256}`,
  };
  const stored = await (pin.source === "pypi" ? ctx.pypiStore : ctx.pyodideStore).get(pin.file_name);
  if (stored && (await isIntact(pin, stored))) return { ...row, status: "cached", bytes: stored.byteLength };
  return { ...row, status: "pinned", ...(pin.size !== undefined ? { bytes: pin.size } : {}) };
}

async function fetchPin(pin: PinnedPackage, downloaded: Map<string, Uint8Array>, ctx: LockContext): Promise<LockedRow> {
  const row = {
    name: pin.name,
    version: pin.version,
    source: pin.source,
    file_name: pin.file_name,
    sha256: `sha256:${pin.sha256}`,
  };
  const store = pin.source === "pypi" ? ctx.pypiStore : ctx.pyodideStore;
  try {
    const stored = await store.get(pin.file_name);
    if (stored && (await isIntact(pin, stored))) return { ...row, status: "cached", bytes: stored.byteLength };
    // An index's wheel is checked against the pin's sha256 as it is downloaded (pypi.ts; the
    // resolver's downloads too); Pyodide's, fetched from a package source, here.
    const bytes =
      downloaded.get(pin.file_name) ??
      (pin.source === "pypi"
        ? await ctx.index.download({
            filename: pin.file_name,
            url: pin.url,
            sha256: pin.sha256,
            requiresPython: "",
            yanked: false,
            coreMetadata: false,
          })
        : await pyodideWheel(pin, ctx));
    await store.put(pin.file_name, bytes);
    return { ...row, status: "added", bytes: bytes.byteLength };
  } catch (err) {
    return { ...row, status: "failed", error: toErrorJson(err) };
  }
}

/** One of Pyodide's wheels from the package source, checked against the lock before it is kept. */
async function pyodideWheel(pin: PinnedPackage, ctx: LockContext): Promise<Uint8Array> {
  const bytes = await ctx.pyodideSource.fetch(pin.file_name);
  await checkWheel(pin, bytes, `from ${ctx.pyodideSource.location}`, "nothing was stored.");
  return bytes;
}
