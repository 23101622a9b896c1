// `edge chat --model`'s saved conversation starts. Without an imprint, a session's system
// message — the tool contract — is evaluated once and its llama.cpp state kept as
// $EDGE_DATA_DIR/start-states/<key>.state, so the next `edge chat` with the same model file,
// runtime, context size and contract loads it instead of evaluating the contract again. The key is
// sha256 of those four. An entry is one file, written atomically (temp + rename): a line of JSON —
// the binding an imprint's state carries (state.ts: model, runtime, context size, prefix, tokens,
// the state's size and sha256), signed with the host key that signs the runner's caches
// (node-snapshot.ts, kept outside $EDGE_DATA_DIR: an entry anyone else wrote is not believed) —
// then the state's bytes. Loading goes through the imprint's checks (node-state.ts) on a private
// copy of the checked bytes. Any problem is a fallback: the start is evaluated and saved anew, and
// the receipt says why (contract_prefix). The entries take at most maxBytes together (default
// 256 MiB); the least recently used (written or loaded) go first.
import { readFile, rm, stat, utimes } from "node:fs/promises";
import path from "node:path";
import { EdgeError, type ErrorCode } from "../contract/errors.ts";
import { sha256Json, sha256Text } from "../contract/hash.ts";
import type { Engine, PrefixWarmth, StartPrimed, StartStateStore } from "../engines/engine.ts";
import { dataDir, ensurePrivateDir, listDirIfExists, writeFileAtomic } from "../platform/node-files.ts";
import { hostKey, macMatches, macOf, snapshotKeyFile } from "../runner/node-snapshot.ts";
import { evaluateAndSaveState, loadCheckedState, type StateWorkDir } from "./node-state.ts";
import { isImprintState, type ImprintState } from "./state.ts";

const FORMAT = "edge.start_state.v1";
/** The default cap on what the entries take together. */
export const START_STATES_MAX_BYTES = 256 * 1024 * 1024;
const ENTRY_RE = /^[0-9a-f]{64}\.state$/;
/** The JSON line before the state's bytes is never longer than this. */
const MAX_HEADER = 16 * 1024;
/** Temp files a crashed process left behind are removed this long after they were written. */
const STALE_TEMP_MS = 60 * 60 * 1000;

export interface NodeStartStatesOptions {
  /** The entries' folder (default $EDGE_DATA_DIR/start-states). */
  dir?: string;
  /** The most the entries may take together, in bytes (default START_STATES_MAX_BYTES). */
  maxBytes?: number;
  /** The host key's file (default the runner caches' key, outside $EDGE_DATA_DIR). */
  keyFile?: string;
}

interface EntryRecord {
  format: typeof FORMAT;
  key: string;
  state: ImprintState;
}

interface Cache extends StateWorkDir {
  readonly maxBytes: number;
  signingKey(): Promise<string>;
}

type Problem = { code: ErrorCode; reason: string };
type Found = { record: EntryRecord; bytes: Uint8Array } | { problem: Problem } | null;

/** Where the saved starts live by default. */
function startStatesDir(): string {
  return path.join(dataDir(), "start-states");
}

/** The saved starts of a loaded engine, or undefined when its runtime cannot save states. */
export function nodeStartStates(engine: Engine, options: NodeStartStatesOptions = {}): StartStateStore | undefined {
  if (!engine.prefixState) return undefined;
  const dir = options.dir ?? startStatesDir();
  const cache: Cache = {
    dir,
    maxBytes: options.maxBytes ?? START_STATES_MAX_BYTES,
    async ensureDir() {
      await ensurePrivateDir(path.dirname(dir));
      await ensurePrivateDir(dir, { narrow: true });
    },
    signingKey: () => hostKey(options.keyFile ?? snapshotKeyFile(), dir),
  };
  return { prime: (system) => prime(engine, cache, system) };
}

async function prime(engine: Engine, cache: Cache, system: string): Promise<StartPrimed> {
  const key = await entryKey(engine, system);
  if (!key)
    return {
      via: "none",
      tokens: 0,
      evaluated: 0,
      saveFailed: { code: "start_state_mismatch", reason: "engine_cannot_bind" },
    };
  const file = path.join(cache.dir, `${key}.state`);
  const restored = await restore(engine, cache, file, key, system).catch((e: unknown) => ({ problem: problemOf(e) }));
  if ("tokens" in restored) return { via: "state_file", tokens: restored.tokens, evaluated: 0 };
  const saved = await save(engine, cache, file, key, system);
  return restored.problem ? { ...saved, fallback: restored.problem } : saved;
}

/** sha256 (hex) of what an entry is for, or null when the engine does not say its model file, runtime or window. */
async function entryKey(engine: Engine, system: string): Promise<string | null> {
  const info = engine.info();
  const fp = info.fingerprint;
  if (!fp?.sha256 || !fp.runtime || !info.contextWindow) return null;
  const sha = await sha256Json({
    format: FORMAT,
    model_sha256: fp.sha256,
    runtime: fp.runtime,
    context_size: info.contextWindow,
    prefix_sha256: await sha256Text(system),
  });
  return sha.slice("sha256:".length);
}

/** The saved entry loaded into the engine (its token count), or why not (no problem: there was none). */
async function restore(
  engine: Engine,
  cache: Cache,
  file: string,
  key: string,
  system: string,
): Promise<{ tokens: number } | { problem?: Problem }> {
  const found = await readEntry(cache, file, key);
  if (!found) return {};
  if ("problem" in found) return found;
  const r = await loadCheckedState(engine, system, found.record.state, async () => found.bytes, cache, `${key}.load`);
  if (!r.loaded)
    return {
      problem: {
        code: r.code === "imprint_state_mismatch" ? "start_state_mismatch" : "start_state_corrupted",
        reason: r.reason,
      },
    };
  // Recently used: the cap evicts by this time.
  const now = new Date();
  await utimes(file, now, now).catch(() => undefined);
  return { tokens: r.tokens };
}

async function readEntry(cache: Cache, file: string, key: string): Promise<Found> {
  let raw: Uint8Array;
  try {
    raw = await readFile(file);
  } catch (e) {
    return (e as { code?: unknown }).code === "ENOENT"
      ? null
      : { problem: { code: "start_state_corrupted", reason: "unreadable" } };
  }
  const end = raw.subarray(0, MAX_HEADER).indexOf(0x0a);
  const parsed = end > 0 ? parseHeader(new TextDecoder().decode(raw.subarray(0, end))) : null;
  if (!parsed) return { problem: { code: "start_state_corrupted", reason: "header" } };
  if (!macMatches(await cache.signingKey(), parsed.record, parsed.mac))
    return { problem: { code: "start_state_corrupted", reason: "signature" } };
  if (parsed.record.key !== key) return { problem: { code: "start_state_mismatch", reason: "key" } };
  return { record: parsed.record, bytes: raw.subarray(end + 1) };
}

function parseHeader(text: string): { record: EntryRecord; mac: unknown } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  const { format, key, state, mac } = value as { [k: string]: unknown };
  if (format !== FORMAT || typeof key !== "string" || !isImprintState(state)) return null;
  return { record: { format, key, state }, mac };
}

/** Evaluate the start and save it; when saving fails the start stays evaluated (or not), and the result says why. */
async function save(engine: Engine, cache: Cache, file: string, key: string, system: string): Promise<StartPrimed> {
  let warm: PrefixWarmth | null = null;
  try {
    warm = engine.warmPrefix ? await engine.warmPrefix([{ role: "system", content: system }]) : null;
    const saved = await evaluateAndSaveState(engine, system, cache, key);
    if (!saved)
      return { ...evaluated(warm), saveFailed: { code: "start_state_mismatch", reason: "engine_cannot_bind" } };
    await writeEntry(cache, file, { format: FORMAT, key, state: saved.state }, saved.bytes);
    await prune(cache, file);
    return {
      via: "state_saved",
      tokens: saved.state.prefix_tokens,
      evaluated: warm?.evaluated ?? saved.state.prefix_tokens,
    };
  } catch (e) {
    // What cannot be evaluated or saved here (a start too long for the window, a full disk) is
    // not this feature's failure: the first prompt meets it, or runs as it would without it.
    return { ...evaluated(warm), saveFailed: problemOf(e) };
  }
}

/** A failure of loading or saving a start as the receipt records it (short, naming no path: a
 *  storage failure's fs code); an abort, and anything that is neither an EdgeError nor a file
 *  system's error, is rethrown. */
function problemOf(e: unknown): Problem {
  if (e instanceof EdgeError && e.code !== "aborted")
    return { code: e.code, reason: String(e.details["fs_code"] ?? e.details["reason"] ?? e.code) };
  const fsCode = (e as { code?: unknown } | null)?.code;
  if (!(e instanceof EdgeError) && typeof fsCode === "string") return { code: "storage_failed", reason: fsCode };
  throw e;
}

const evaluated = (warm: PrefixWarmth | null): StartPrimed =>
  warm ? { via: "engine", tokens: warm.tokens, evaluated: warm.evaluated } : { via: "none", tokens: 0, evaluated: 0 };

async function writeEntry(cache: Cache, file: string, record: EntryRecord, bytes: Uint8Array): Promise<void> {
  const head = new TextEncoder().encode(
    `${JSON.stringify({ ...record, mac: macOf(await cache.signingKey(), record) })}\n`,
  );
  const data = new Uint8Array(head.byteLength + bytes.byteLength);
  data.set(head);
  data.set(bytes, head.byteLength);
  await cache.ensureDir();
  // Not synced: every byte is checked against the signed size and sha256 before a load, so an
  // entry a crash cut short is a fallback, never loaded.
  await writeFileAtomic(file, data, { durable: false });
}

/** Keep the most recently used entries within the cap (the one just written always stays) and
 *  remove temp files a crashed process left. Best effort: a failure leaves more on disk, never less. */
async function prune(cache: Cache, keep: string): Promise<void> {
  try {
    const names = await listDirIfExists(cache.dir, "list start states");
    const files = await Promise.all(
      names.map(async (name) => ({ name, st: await stat(path.join(cache.dir, name)).catch(() => undefined) })),
    );
    const entries = files.filter((f) => f.st && ENTRY_RE.test(f.name)).sort((a, b) => b.st!.mtimeMs - a.st!.mtimeMs);
    let total = 0;
    const doomed: string[] = [];
    for (const { name, st } of entries) {
      total += st!.size;
      if (total > cache.maxBytes && path.join(cache.dir, name) !== keep) doomed.push(name);
    }
    const stale = files
      .filter((f) => f.st && f.name.endsWith(".tmp") && Date.now() - f.st.mtimeMs > STALE_TEMP_MS)
      .map((f) => f.name);
    await Promise.all([...doomed, ...stale].map((name) => rm(path.join(cache.dir, name), { force: true })));
  } catch {
    /* best effort */
  }
}
