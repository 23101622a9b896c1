// The Node runner's memory-snapshot cache on disk. Edge's own files: written only by the host
// process (runners cannot write files at all), 0600 files in a 0700 folder, atomically.
//
// The snapshot boots every later runner, so what it contains decides what a later run sees
// (edge_runner itself, hence schema_generator_version and every schema). It is trusted only
// through its sha256, kept in an index file OUTSIDE the cache folder (`<cache>.runner-snapshot.json`);
// nothing stored beside the snapshot is believed. A snapshot whose bytes do not match is not
// booted: the pool makes a fresh one and this store replaces it.
import { createHash } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ensurePrivateDir, listDirIfExists, readTextIfExists, writeFileAtomic } from "../store/node-files.ts";
import type { SnapshotStore } from "./pool.ts";

const INDEX_FORMAT = "edge-runner-snapshot-index.v1";
const FILE_RE = /^runner-[0-9a-f]{32}-[0-9a-f]{16}\.snapshot$/;

interface IndexRecord {
  format: typeof INDEX_FORMAT;
  key: string;
  file: string;
  sha256: string;
  size: number;
}

/** Where the index of a cache folder lives: beside the folder, not in it. */
export function snapshotIndexFile(cacheDir: string): string {
  return join(dirname(cacheDir), `${basename(cacheDir)}.runner-snapshot.json`);
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A snapshot in `dir` for `key`, checked against the index's sha256 on every read. */
export function diskSnapshotStore(dir: string, key: string, indexFile = snapshotIndexFile(dir)): SnapshotStore {
  const readIndex = async (): Promise<IndexRecord | undefined> => {
    try {
      const value = JSON.parse((await readTextIfExists(indexFile, "read snapshot index")) ?? "null") as Partial<IndexRecord> | null;
      if (!value || value.format !== INDEX_FORMAT || value.key !== key) return undefined;
      if (typeof value.file !== "string" || !FILE_RE.test(value.file) || typeof value.sha256 !== "string" || typeof value.size !== "number") return undefined;
      return value as IndexRecord;
    } catch {
      return undefined;
    }
  };
  return {
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
      const record: IndexRecord = { format: INDEX_FORMAT, key, file, sha256, size: bytes.byteLength };
      await writeFileAtomic(indexFile, `${JSON.stringify(record)}\n`);
      // Anything else named runner-* is stale (another key) or was replaced (tampered, older format).
      for (const name of await listDirIfExists(dir, "list snapshot cache")) {
        if (name.startsWith("runner-") && name !== file) await rm(join(dir, name), { force: true }).catch(() => undefined);
      }
    },
    async discard() {
      const record = await readIndex();
      if (record) await rm(join(dir, record.file), { force: true });
      await rm(indexFile, { force: true });
    },
  };
}
