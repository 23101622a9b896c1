// The Node runner's memory-snapshot cache on disk. Edge's own files: written only by the host
// process (runners cannot write files at all), 0600 files in a 0700 folder, atomically.
//
// The snapshot boots every later runner, so what it contains decides what a later run sees
// (edge_runner itself, hence every schema and execution_level). It is trusted only through its
// index (`<cache>.runner-snapshot.json`: key, file, sha256, size), and the index only through its
// HMAC, keyed by a secret that lives OUTSIDE $EDGE_DATA_DIR (snapshotKeyFile: the user's config
// folder, 0600 in a 0700 folder). Whoever can write the data folder — another program, a shared or
// synced folder, a CI cache restored from an untrusted branch — can replace the snapshot and the
// index, but cannot sign an index: a forged or stale one is not booted, and the pool makes a fresh
// snapshot that this store puts in its place. Nothing stored beside the snapshot is believed.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readFile, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path, { basename, dirname, join } from "node:path";
import { canonicalJson } from "../contract/hash.ts";
import {
  dataDir,
  ensurePrivateDir,
  listDirIfExists,
  readTextIfExists,
  writeFileAtomic,
} from "../platform/node-files.ts";
import type { SnapshotStore } from "./pool-snapshot.ts";

const INDEX_FORMAT = "edge-runner-snapshot-index.v2";
const FILE_RE = /^runner-[0-9a-f]{32}-[0-9a-f]{16}\.snapshot$/;
const KEY_RE = /^[0-9a-f]{64}$/;

interface IndexRecord {
  format: typeof INDEX_FORMAT;
  key: string;
  file: string;
  sha256: string;
  size: number;
  /** HMAC-SHA256 (hex) of the canonical JSON of the other fields, keyed by the host key. */
  mac: string;
}

/** Where the index of a cache folder lives: beside the folder, not in it. */
export function snapshotIndexFile(cacheDir: string): string {
  return join(dirname(cacheDir), `${basename(cacheDir)}.runner-snapshot.json`);
}

/**
 * The key that signs snapshot indexes: in the user's configuration folder ($XDG_CONFIG_HOME or
 * ~/.config, %LOCALAPPDATA% on Windows), never under $EDGE_DATA_DIR, where the snapshots are.
 */
export function snapshotKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === "win32")
    return path.win32.join(
      env.LOCALAPPDATA || path.win32.join(homedir(), "AppData", "Local"),
      "edge-web",
      "keys",
      "runner-snapshot.key",
    );
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && path.isAbsolute(xdg) ? xdg : join(homedir(), ".config"), "edge-web", "runner-snapshot.key");
}

const inside = (file: string, dir: string): boolean => {
  const rel = path.relative(path.resolve(dir), path.resolve(file));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

/** The stored host key: a private regular file of this user holding 64 hex digits, else undefined. */
async function readKey(file: string): Promise<string | undefined> {
  try {
    const st = await stat(file);
    if (!st.isFile() || (process.platform !== "win32" && ((st.mode & 0o077) !== 0 || st.uid !== process.getuid?.())))
      return undefined;
    const text = (await readFile(file, "utf8")).trim();
    return KEY_RE.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The host key, made on first use. Where it cannot be kept (a read-only home, or a key file that
 * would lie inside the snapshot's own folders) it lives in this process only: snapshots are then
 * trusted by the process that made them and made again by the next one.
 */
export function hostKey(file: string, cacheDir: string): Promise<string> {
  const id = `${file}\0${cacheDir}`;
  let key = hostKeys.get(id);
  if (!key) hostKeys.set(id, (key = readOrMakeHostKey(file, cacheDir)));
  return key;
}

/** One read of the key per process and folder: the snapshot store and the discovery store share it. */
const hostKeys = new Map<string, Promise<string>>();

async function readOrMakeHostKey(file: string, cacheDir: string): Promise<string> {
  const ephemeral = (): string => randomBytes(32).toString("hex");
  if (inside(file, cacheDir) || inside(file, dataDir())) return ephemeral();
  const stored = await readKey(file);
  if (stored) return stored;
  const made = ephemeral();
  try {
    await ensurePrivateDir(dirname(file), { narrow: true });
    await writeFileAtomic(file, `${made}\n`, { noClobber: !(await stat(file).catch(() => undefined)) });
  } catch {
    // another process made it meanwhile, or the folder is not writable
  }
  return (await readKey(file)) ?? made;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** HMAC-SHA256 (hex) of a record's canonical JSON under the host key. */
export function macOf(key: string, record: object): string {
  return createHmac("sha256", Buffer.from(key, "hex")).update(canonicalJson(record)).digest("hex");
}

/** Whether `mac` is the record's HMAC under the host key (compared in constant time). */
export function macMatches(key: string, record: object, mac: unknown): boolean {
  const expected = macOf(key, record);
  return (
    typeof mac === "string" &&
    mac.length === expected.length &&
    timingSafeEqual(Buffer.from(mac), Buffer.from(expected))
  );
}

/** The snapshot files of `dir` (FILE_RE's prefix): what names a cache in a keeper's identity
 *  (keeper-wire.ts). Never a permission grant: runners read only a private copy of the file the
 *  signed index names (node-snapshot-file.ts), so nothing planted in the data folder reaches them. */
export function snapshotFilesPattern(dir: string): string {
  return join(dir, "runner-*");
}

/** A snapshot in `dir` for `key`, checked against the signed index's sha256 on every read. */
export function diskSnapshotStore(
  dir: string,
  key: string,
  indexFile = snapshotIndexFile(dir),
  keyFile = snapshotKeyFile(),
): SnapshotStore {
  const signingKey = (): Promise<string> => hostKey(keyFile, dir);
  const readIndex = async (): Promise<IndexRecord | undefined> => {
    try {
      const value = JSON.parse(
        (await readTextIfExists(indexFile, "read snapshot index")) ?? "null",
      ) as Partial<IndexRecord> | null;
      if (!value || value.format !== INDEX_FORMAT || value.key !== key) return undefined;
      if (
        typeof value.file !== "string" ||
        !FILE_RE.test(value.file) ||
        typeof value.sha256 !== "string" ||
        typeof value.size !== "number"
      )
        return undefined;
      const { mac, ...record } = value as IndexRecord;
      if (!macMatches(await signingKey(), record, mac)) return undefined;
      return value as IndexRecord;
    } catch {
      return undefined;
    }
  };
  return {
    // The file the signed index names, with the sha256 it signs: a runner that reads the file
    // itself checks that (workers/runner.node-process.ts), so bytes written after this look are
    // never booted either.
    async reference() {
      const record = await readIndex();
      return record ? { path: join(dir, record.file), size: record.size, sha256: record.sha256 } : undefined;
    },
    async get() {
      const record = await readIndex();
      if (!record) return undefined;
      try {
        const bytes = await readFile(join(dir, record.file));
        if (bytes.byteLength !== record.size || sha256Hex(bytes) !== record.sha256) return undefined;
        return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      } catch {
        return undefined;
      }
    },
    async put(bytes) {
      const sha256 = sha256Hex(bytes);
      // The file name carries its own hash: two hosts storing at once never leave an index that
      // names the other's bytes.
      const file = `runner-${key.slice(0, 32)}-${sha256.slice(0, 16)}.snapshot`;
      await ensurePrivateDir(dir, { narrow: true });
      await ensurePrivateDir(dirname(indexFile));
      await writeFileAtomic(join(dir, file), bytes);
      const record = { format: INDEX_FORMAT, key, file, sha256, size: bytes.byteLength } as const;
      const signed: IndexRecord = { ...record, mac: macOf(await signingKey(), record) };
      await writeFileAtomic(indexFile, `${JSON.stringify(signed)}\n`);
      // Anything else named runner-* is stale (another key) or was replaced (tampered, older format).
      for (const name of await listDirIfExists(dir, "list snapshot cache")) {
        if (name.startsWith("runner-") && name !== file)
          await rm(join(dir, name), { force: true }).catch(() => undefined);
      }
    },
    async discard() {
      const record = await readIndex();
      if (record) await rm(join(dir, record.file), { force: true });
      await rm(indexFile, { force: true });
    },
  };
}
