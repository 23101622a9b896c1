// The Node commands' kept discoveries (discovery-cache.ts) on disk: `<cache>.discoveries/<key>.json`,
// beside the snapshot cache's folder (which holds snapshots only, node-snapshot.ts),
// written only by the CLI (runners write no file and cannot read this folder), 0600 in a 0700
// folder. Trusted like the snapshot index (node-snapshot.ts): each entry carries an HMAC under the
// host key, which lives outside $EDGE_DATA_DIR, so an entry that anyone else wrote (a shared or
// synced data folder, a restored CI cache) is a miss, not a discovery. At most MAX_ENTRIES are
// kept; a new one removes the oldest.
import { readdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { ensurePrivateDir, writeFileAtomic } from "../platform/node-files.ts";
import type { DiscoveryStore } from "./discovery-cache.ts";
import { hostKey, macMatches, macOf, snapshotKeyFile } from "./node-snapshot.ts";

const FORMAT = "edge-discovery-entry.v1";
const KEY_RE = /^[0-9a-f]{64}$/;
/** Entries kept (each a few KiB: one tools file's schemas). */
const MAX_ENTRIES = 256;

interface Entry {
  format: typeof FORMAT;
  key: string;
  reply: string;
}

export function nodeDiscoveryStore(cacheDir: string, keyFile = snapshotKeyFile()): DiscoveryStore {
  const dir = `${cacheDir}.discoveries`;
  // Keys are sha256 hex (discoveryKey); anything else names no file.
  const fileOf = (key: string): string | undefined => (KEY_RE.test(key) ? join(dir, `${key}.json`) : undefined);
  const signingKey = (): Promise<string> => hostKey(keyFile, cacheDir);
  return {
    async get(key) {
      const file = fileOf(key);
      if (!file) return undefined;
      const value = JSON.parse(await readFile(file, "utf8")) as Partial<Entry> & { mac?: unknown };
      const { mac, ...entry } = value;
      if (entry.format !== FORMAT || entry.key !== key || typeof entry.reply !== "string") return undefined;
      return macMatches(await signingKey(), entry, mac) ? entry.reply : undefined;
    },
    async put(key, reply) {
      const file = fileOf(key);
      if (!file) return;
      const entry: Entry = { format: FORMAT, key, reply };
      const text = `${JSON.stringify({ ...entry, mac: macOf(await signingKey(), entry) })}\n`;
      await ensurePrivateDir(dir, { narrow: true });
      // Not synced: an entry lost in a crash is a miss.
      await writeFileAtomic(file, text, { durable: false });
      await prune(dir);
    },
    async delete(key) {
      const file = fileOf(key);
      if (file) await rm(file, { force: true });
    },
  };
}

/** Keep the MAX_ENTRIES most recently written entries. */
async function prune(dir: string): Promise<void> {
  const names = (await readdir(dir)).filter((n) => n.endsWith(".json"));
  if (names.length <= MAX_ENTRIES) return;
  const dated = await Promise.all(
    names.map(async (name) => ({ name, mtime: (await stat(join(dir, name)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  dated.sort((a, b) => a.mtime - b.mtime);
  await Promise.all(dated.slice(0, dated.length - MAX_ENTRIES).map(({ name }) => rm(join(dir, name), { force: true })));
}
