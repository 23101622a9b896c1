// A wheel is used only when its bytes hash to the lock's sha256 (Pyodide's lock or a project's pylock.toml): checked when it is fetched (before
// it is stored), whenever it is read from the store, and again by the runner before it installs it.
import { EdgeError } from "../contract/errors.ts";
import { sha256Bytes, type Sha256 } from "../contract/hash.ts";
import type { WheelPin } from "./provider.ts";

/** The wheel's sha256 when it is the lock's; else python_package_hash_mismatch (`what` says where the bytes came from). */
export async function checkWheel(pkg: WheelPin, bytes: Uint8Array, what: string, fix: string): Promise<Sha256> {
  const found = await sha256Bytes(bytes);
  const expected = `sha256:${pkg.sha256}`;
  if (found !== expected) {
    throw new EdgeError(
      "python_package_hash_mismatch",
      { package: pkg.name, file: pkg.file_name, expected_sha256: expected, found_sha256: found },
      `${pkg.file_name} ${what} does not match the lock (expected ${expected}, found ${found}, ${bytes.byteLength} bytes), so it was not used; ${fix}`,
    );
  }
  return found;
}

/** Whether stored bytes are the lock's (no error: a stale or damaged copy is simply fetched again). */
export async function isIntact(pkg: WheelPin, bytes: Uint8Array | undefined): Promise<boolean> {
  if (!bytes) return false;
  return (await sha256Bytes(bytes)) === `sha256:${pkg.sha256}`;
}
