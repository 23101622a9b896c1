// What a freeze needs to give a tools project its Python packages: the lock they are pinned by and
// the wheels already on this device (verified against the lock before they are returned). The Node
// adapter keeps wheels in $EDGE_DATA_DIR/packages (store-node.ts), the browser's in Cache Storage
// (store-cache.ts); fetching is a separate, explicit step (`edge packages add`, or the playground's
// Download, both add.ts), so a freeze never contacts any package source.
import type { PyodideLock } from "./lock.ts";

/** Where a pinned wheel comes from: Pyodide's own lock, or a package index (a project's pylock.toml). */
export type PackageOrigin = "pyodide-lock" | "pypi";

/** A wheel pinned by its sha256 (hex): an entry of Pyodide's lock, or of a project's pylock.toml. */
export interface WheelPin {
  name: string;
  version: string;
  file_name: string;
  sha256: string;
  /** Absent: Pyodide's lock. */
  source?: PackageOrigin;
}

export interface PackageProvider {
  /** The lock (Pyodide's own, or the one EDGE_PACKAGE_LOCK names), read once. */
  lock(): Promise<PyodideLock>;
  /** Where the lock came from, for messages ("Pyodide 314.0.7's pyodide-lock.json"). */
  readonly lockName: string;
  /** A package's wheel bytes, already checked against the lock's sha256; undefined when not on this
   *  device. A stored wheel whose bytes differ is python_package_hash_mismatch (never used). */
  cached(pin: WheelPin): Promise<Uint8Array | undefined>;
  /** What puts these packages on this device, for python_package_missing: the exact command where
   *  there is one (the CLI), and the sentence that tells a person what to do. */
  addStep(names: readonly string[]): { command?: string; advice: string };
  /** What locks a project's declared dependencies and fetches what its pylock.toml pins (the
   *  tools file as the person named it), for python_lock_missing/stale and missing pinned wheels. */
  lockStep(toolsFile: string): { command?: string; advice: string };
}
