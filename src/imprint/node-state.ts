// An imprint's saved model state in Node: <dataDir>/imprints/<id>.state beside <id>.json — private
// (0600), written atomically and never replaced, only by the CLI process. At learn time the engine
// evaluates the prefix once and saves its state; at chat time every binding is checked (model
// file, runtime, context size, prefix, tokens — see state.ts), then the file's size, sha256 and
// header, and only then is a private copy of exactly the checked bytes given to llama.cpp. Any
// problem is a fallback (the session evaluates the prefix as text), never a foreign state loaded.
// The same save and load paths keep `edge chat`'s conversation starts (start-states-node.ts).
import { open, readFile, unlink } from "node:fs/promises";
import path from "node:path";
import { EdgeError } from "../contract/errors.ts";
import { randomHex, sha256Text } from "../contract/hash.ts";
import type { Engine, PrefixStateCapability } from "../engines/engine.ts";
import type { StateRestore, StateRestorer } from "../chat/imprint-restore.ts";
import { unlinkIfExists, writeFileAtomic } from "../platform/node-files.ts";
import type { SavedState } from "./learn.ts";
import type { NodeImprintStore } from "./store-node.ts";
import type { Imprint } from "./record.ts";
import {
  artifactProblem,
  bindingProblem,
  integrityProblem,
  sameTokens,
  stateBinding,
  tokensProblem,
  type ImprintState,
  type StateProblem,
} from "./state.ts";

/** Where the state's bytes come from: the stored file, or an exported file already read (null:
 *  exported without its state). */
export type StateSource = { file: string } | { bytes: Uint8Array | null };

const system = (content: string) => [{ role: "system" as const, content }];

/** A new private (0600) file in `dir` that the runtime then writes or reads by path. */
async function privateTemp(dir: string, name: string, bytes?: Uint8Array): Promise<string> {
  const file = path.join(dir, `.${name}.${randomHex(6)}.tmp`);
  const fh = await open(file, "wx", 0o600);
  try {
    if (bytes) await fh.writeFile(bytes);
  } finally {
    await fh.close();
  }
  return file;
}

/** A private folder the runtime's files go to while they are written or read (a NodeImprintStore is one). */
export interface StateWorkDir {
  readonly dir: string;
  ensureDir(): Promise<void>;
}

/** Evaluate the prefix and save its state (into a private temp file named for `name`), read back
 *  and bound; null when the engine cannot save states or does not identify its model and window. */
export async function evaluateAndSaveState(
  engine: Engine,
  prefix: string,
  work: StateWorkDir,
  name: string,
): Promise<{ state: ImprintState; bytes: Uint8Array } | null> {
  const capability = engine.prefixState;
  if (!capability) return null;
  await work.ensureDir();
  // The runtime writes the state by path: into a file created private first (it keeps the mode).
  const tmp = await privateTemp(work.dir, name);
  try {
    const { tokens } = await capability.savePrefixState(system(prefix), tmp);
    const bytes = new Uint8Array(await readFile(tmp));
    const state = await stateBinding(engine.info(), capability.readStateHeader, {
      bytes,
      tokens,
      prefixSha256: await sha256Text(prefix),
    });
    return state ? { state, bytes } : null;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** learn's `saveState` for the Node store: evaluate the prefix, save its state, bind it, keep it. */
export function nodeStateSaver(
  engine: Engine,
  store: NodeImprintStore,
): (id: string, prefix: string) => Promise<SavedState | null> {
  return async (id, prefix) => {
    const saved = await evaluateAndSaveState(engine, prefix, store, `${id}.state`);
    if (!saved) return null;
    const file = store.stateFile(id);
    await writeFileAtomic(file, saved.bytes, { noClobber: true });
    return { state: saved.state, discard: () => unlinkIfExists(file, "delete imprint state") };
  };
}

/** The stored state's bytes, or null when the file is missing or unreadable. */
async function readStateFile(file: string): Promise<Uint8Array | null> {
  try {
    return new Uint8Array(await readFile(file));
  } catch {
    return null;
  }
}

/** The stored state of an imprint, checked against the record (size, sha256): the bytes, or the problem. */
export async function storedState(
  store: NodeImprintStore,
  imprint: Imprint,
): Promise<{ bytes: Uint8Array } | { problem: StateProblem } | null> {
  const state = imprint.state;
  if (!state) return null;
  const bytes = await readStateFile(store.stateFile(imprint.id));
  if (!bytes) return { problem: { code: "imprint_state_corrupted", reason: "missing" } };
  const problem = await integrityProblem(state, bytes);
  return problem ? { problem } : { bytes };
}

/** Import an exported imprint with its state: the state file first, then the record (so a stored
 *  record never lacks its state); a failure removes what was written. */
export async function importWithState(store: NodeImprintStore, imprint: Imprint, bytes: Uint8Array): Promise<void> {
  await store.ensureDir();
  const file = store.stateFile(imprint.id);
  await writeFileAtomic(file, bytes, { noClobber: true });
  try {
    await store.put(imprint);
  } catch (err) {
    await unlinkIfExists(file, "delete imprint state").catch(() => undefined);
    throw err;
  }
}

const fallback = (p: StateProblem): StateRestore => ({ loaded: false, code: p.code, reason: p.reason });

/** Every check that needs no file: the engine can load states, the bindings, the tokens it renders. */
async function preflight(
  state: ImprintState,
  engine: Engine,
  text: string,
): Promise<{ tokens: number[]; capability: PrefixStateCapability } | StateProblem> {
  const capability = engine.prefixState;
  if (!capability) return { code: "imprint_state_mismatch", reason: "engine_cannot_load_state" };
  const bound = bindingProblem(state, engine.info(), await sha256Text(text));
  if (bound) return bound;
  const tokens = await capability.prefixTokens(system(text));
  return (await tokensProblem(state, tokens)) ?? { tokens, capability };
}

/**
 * Load a bound state into the engine after every check — the bindings and tokens first, then the
 * bytes (`readBytes`, read only then): size, sha256, header — from a private copy of exactly the
 * checked bytes (named for `name`), not a path that could change meanwhile. Any problem is a
 * fallback (imprint_state_* and its reason), never a foreign state loaded.
 */
export async function loadCheckedState(
  engine: Engine,
  text: string,
  state: ImprintState,
  readBytes: () => Promise<Uint8Array | null>,
  work: StateWorkDir,
  name: string,
): Promise<StateRestore> {
  const checked = await preflight(state, engine, text);
  if ("code" in checked) return fallback(checked);
  const { tokens, capability } = checked;
  const bytes = await readBytes();
  if (!bytes) return fallback({ code: "imprint_state_corrupted", reason: "missing" });
  const problem = await artifactProblem(state, bytes, tokens, capability.readStateHeader);
  if (problem) return fallback(problem);
  await work.ensureDir();
  const copy = await privateTemp(work.dir, name, bytes);
  try {
    const loaded = await capability.loadPrefixState(copy);
    if (!sameTokens(loaded, tokens)) return fallback({ code: "imprint_state_mismatch", reason: "loaded_tokens" });
    return { loaded: true, tokens: loaded.length };
  } catch (e) {
    if (e instanceof EdgeError && (e.code === "imprint_state_mismatch" || e.code === "imprint_state_corrupted"))
      return { loaded: false, code: e.code, reason: String(e.details["reason"] ?? "runtime") };
    throw e;
  } finally {
    await unlink(copy).catch(() => undefined);
  }
}

/** The session's StateRestorer for an imprint with a saved state (undefined without one). */
export function nodeStateRestorer(
  imprint: Imprint,
  source: StateSource,
  store: NodeImprintStore,
): StateRestorer | undefined {
  const state = imprint.state;
  if (!state) return undefined;
  const readBytes = async () => ("bytes" in source ? source.bytes : readStateFile(source.file));
  return (engine, text) => loadCheckedState(engine, text, state, readBytes, store, `${imprint.id}.load`);
}
