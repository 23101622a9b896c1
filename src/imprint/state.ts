// An imprint's saved model state: the engine's evaluated prefix — llama.cpp's KV cache
// and tokens after reading the imprint's system message — kept as a file beside the record, so a
// chat starts from it instead of evaluating the prefix again. The record binds the file by sha256
// to everything that makes such a state valid: the model file, the runtime (its version), the
// context size, the prefix text and the exact tokens. Loading a state made for anything else can
// crash llama.cpp, so every binding is checked here, before the runtime sees the file; any
// mismatch falls back to evaluating the prefix as text (never to loading a foreign state).
import { EdgeError, type ErrorCode } from "../contract/errors.ts";
import { isSha256, sha256Bytes, sha256Json, type Sha256 } from "../contract/hash.ts";
import { isObj } from "../contract/types.ts";
import type { EngineInfo, PrefixStateCapability } from "../engines/engine.ts";
import type { ImprintState } from "../idb/records.ts";

// The saved state's binding is part of the stored imprint record (idb/records.ts).
export type { ImprintState };

type ReadHeader = PrefixStateCapability["readStateHeader"];

/** Why a state was not used: a code of the table, a short reason, and what differed. */
export interface StateProblem {
  code: Extract<ErrorCode, "imprint_state_mismatch" | "imprint_state_corrupted">;
  reason: string;
  expected?: unknown;
  actual?: unknown;
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** The shape verifyImprint requires of a record's `state` (the seal covers its values). */
export function isImprintState(value: unknown): value is ImprintState {
  if (!isObj(value)) return false;
  return (
    typeof value["format"] === "string" &&
    isCount(value["format_version"]) &&
    isSha256(value["artifact_sha256"]) &&
    isCount(value["artifact_bytes"]) &&
    isSha256(value["model_sha256"]) &&
    typeof value["runtime"] === "string" &&
    isCount(value["context_size"]) &&
    isSha256(value["prefix_sha256"]) &&
    isCount(value["prefix_tokens"]) &&
    isSha256(value["tokens_sha256"])
  );
}

/** The same token ids, in the same order. */
export function sameTokens(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

export function tokensSha256(tokens: readonly number[]): Promise<Sha256> {
  return sha256Json([...tokens]);
}

/** The binding for a state just saved by this engine (learn time). Null when the engine does not
 *  identify its model file, runtime or window: such a state could never be checked, so none is kept. */
export async function stateBinding(
  info: EngineInfo,
  readHeader: ReadHeader,
  saved: { bytes: Uint8Array; tokens: readonly number[]; prefixSha256: Sha256 },
): Promise<ImprintState | null> {
  const fp = info.fingerprint;
  if (!fp?.sha256 || !fp.runtime || !info.contextWindow) return null;
  const header = readHeader(saved.bytes);
  if (!header || !sameTokens(header.tokens, saved.tokens)) {
    throw new EdgeError(
      "imprint_state_corrupted",
      { reason: "written" },
      "The model state just saved does not read back as the prefix's state; nothing was kept. Learn again.",
    );
  }
  return {
    format: header.format,
    format_version: header.version,
    artifact_sha256: await sha256Bytes(saved.bytes),
    artifact_bytes: saved.bytes.byteLength,
    model_sha256: fp.sha256 as Sha256,
    runtime: fp.runtime,
    context_size: info.contextWindow,
    prefix_sha256: saved.prefixSha256,
    prefix_tokens: saved.tokens.length,
    tokens_sha256: await tokensSha256(saved.tokens),
  };
}

/** The bindings an engine can be compared with before anything is read: model file, runtime,
 *  context size, and the system message this chat starts with. */
export function bindingProblem(state: ImprintState, info: EngineInfo, systemSha256: Sha256): StateProblem | null {
  const checks: Array<[string, unknown, unknown]> = [
    ["model_sha256", state.model_sha256, info.fingerprint?.sha256 ?? null],
    ["runtime", state.runtime, info.fingerprint?.runtime ?? null],
    ["context_size", state.context_size, info.contextWindow ?? null],
    // Another system message: a profile-only imprint joined with a facts surface's contract.
    ["prefix_sha256", state.prefix_sha256, systemSha256],
  ];
  for (const [reason, expected, actual] of checks) {
    if (expected !== actual) return { code: "imprint_state_mismatch", reason, expected, actual };
  }
  return null;
}

/** The tokens this engine renders for the system message must be the ones the state holds. */
export async function tokensProblem(state: ImprintState, tokens: readonly number[]): Promise<StateProblem | null> {
  const actual = await tokensSha256(tokens);
  if (tokens.length === state.prefix_tokens && actual === state.tokens_sha256) return null;
  return {
    code: "imprint_state_mismatch",
    reason: "prefix_tokens",
    expected: { tokens: state.prefix_tokens, sha256: state.tokens_sha256 },
    actual: { tokens: tokens.length, sha256: actual },
  };
}

/** The artifact's bytes against the record: the size and sha256 it sealed. */
export async function integrityProblem(state: ImprintState, bytes: Uint8Array): Promise<StateProblem | null> {
  if (bytes.byteLength !== state.artifact_bytes) {
    return {
      code: "imprint_state_corrupted",
      reason: bytes.byteLength < state.artifact_bytes ? "truncated" : "size",
      expected: state.artifact_bytes,
      actual: bytes.byteLength,
    };
  }
  const sha = await sha256Bytes(bytes);
  return sha === state.artifact_sha256
    ? null
    : { code: "imprint_state_corrupted", reason: "sha256", expected: state.artifact_sha256, actual: sha };
}

/** Integrity, then the header's format and tokens (a record re-sealed around a state of other
 *  tokens — another prefix, template or tokenizer — is caught here, before the runtime reads it). */
export async function artifactProblem(
  state: ImprintState,
  bytes: Uint8Array,
  expectedTokens: readonly number[],
  readHeader: ReadHeader,
): Promise<StateProblem | null> {
  const integrity = await integrityProblem(state, bytes);
  if (integrity) return integrity;
  const header = readHeader(bytes);
  if (!header || header.format !== state.format || header.version !== state.format_version) {
    return {
      code: "imprint_state_corrupted",
      reason: "header",
      expected: `${state.format} v${state.format_version}`,
      actual: header ? `${header.format} v${header.version}` : null,
    };
  }
  if (!sameTokens(header.tokens, expectedTokens)) {
    return {
      code: "imprint_state_mismatch",
      reason: "state_tokens",
      expected: expectedTokens.length,
      actual: header.tokens.length,
    };
  }
  return null;
}
