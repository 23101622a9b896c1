// A receipt's shape, checked field by field against types.ts: what parseJsonLines runs on each line
// before it hands out Receipt objects. Each table below is typed by the interface it checks, so a
// field added to, removed from or retyped in types.ts fails to compile here until the check follows.
// Fields the type does not name are left alone: a newer Edge's receipts still read (and
// verifyReceipts' hash covers every field a receipt has).
import { isErrorCode, type ErrorCode } from "../contract/errors.ts";
import { isSha256, type Sha256 } from "../contract/hash.ts";
import { EXECUTION_LEVELS, isObj } from "../contract/types.ts";
import type { ModelFingerprint } from "../engines/engine.ts";
import type { FrozenPackage } from "../packages/lock.ts";
import {
  RECEIPT_VERSION,
  type CallCheck,
  type CallReceipt,
  type ContextReceipt,
  type EngineStats,
  type PrefixStartReceipt,
  type Receipt,
  type ReceiptClient,
  type RefusedCall,
} from "./types.ts";

/** What is wrong with the value at `at` (a path such as "calls[0].status"), or null. `T` ties the
 *  check to the type it stands for; it exists for the compiler only. */
interface Check<T> {
  (value: unknown, at: string): string | null;
  readonly _type?: T;
}
/** A field the type marks optional: absent is fine, present must pass the check. */
interface Optional<T> {
  readonly optional: Check<T>;
}
// biome-ignore lint/complexity/noBannedTypes: `{} extends Pick<T, K>` is how a mapped type asks whether K is optional
type Shape<T> = { readonly [K in keyof T]-?: {} extends Pick<T, K> ? Optional<Exclude<T[K], undefined>> : Check<T[K]> };

const optional = <T>(check: Check<T>): Optional<T> => ({ optional: check });
const when =
  <T>(test: (value: unknown) => boolean, what: string): Check<T> =>
  (value, at) =>
    test(value) ? null : `${at} must be ${what}`;

const string = when<string>((v) => typeof v === "string", "a string");
const number = when<number>((v) => typeof v === "number" && Number.isFinite(v), "a number");
const boolean = when<boolean>((v) => typeof v === "boolean", "true or false");
const sha256 = when<Sha256>(isSha256, "a sha256: hash");
const errorCode = when<ErrorCode>(isErrorCode, "a code of the error table");
const plainObject = when<Record<string, unknown>>(isObj, "an object");
const anything: Check<unknown> = () => null;
const oneOf = <const T extends string | boolean>(...values: readonly T[]): Check<T> =>
  when<T>(
    (v) => values.includes(v as T),
    values.length === 1 ? JSON.stringify(values[0]) : `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`,
  );

function nullable<T>(check: Check<T>): Check<T | null> {
  return (value, at) => (value === null ? null : check(value, at));
}

function arrayOf<T>(check: Check<T>): Check<T[]> {
  return (value, at) => {
    if (!Array.isArray(value)) return `${at} must be an array`;
    for (let i = 0; i < value.length; i++) {
      const problem = check(value[i], `${at}[${i}]`);
      if (problem) return problem;
    }
    return null;
  };
}

function recordOf<T>(check: Check<T>): Check<Record<string, T>> {
  return (value, at) => {
    if (!isObj(value)) return `${at} must be an object`;
    for (const [key, item] of Object.entries(value)) {
      const problem = check(item, `${at}.${key}`);
      if (problem) return problem;
    }
    return null;
  };
}

function object<T>(shape: Shape<T>): Check<T> {
  const fields = Object.entries(shape) as [string, Check<unknown> | Optional<unknown>][];
  return (value, at) => {
    if (!isObj(value)) return `${at || "the receipt"} must be an object`;
    for (const [key, field] of fields) {
      const path = at ? `${at}.${key}` : key;
      const present = Object.hasOwn(value, key);
      if (!present && typeof field === "function") return `${path} is missing`;
      const problem = present ? (typeof field === "function" ? field : field.optional)(value[key], path) : null;
      if (problem) return problem;
    }
    return null;
  };
}

const positiveInteger = when<number>((v) => Number.isSafeInteger(v) && (v as number) >= 1, "a positive integer");
const codeAndReason = object<{ code: ErrorCode; reason: string }>({ code: errorCode, reason: string });

const CALL: Shape<CallReceipt> = {
  call_id: string,
  tool_name: string,
  execution_level: nullable(oneOf(...EXECUTION_LEVELS)),
  args_sha256: nullable(sha256),
  result_sha256: nullable(sha256),
  tool_schema_sha256: nullable(sha256),
  tools_file_sha256_verified: boolean,
  runner_secret_verified: boolean,
  network_used_by_edge: oneOf(false),
  status: oneOf("ok", "failed_closed", "pending_confirmation", "aborted"),
  code: optional(errorCode),
  duration_ms: number,
  rows: optional(number),
  workspace_sha256: optional(sha256),
  arguments: optional(anything),
};

const REFUSED: Shape<RefusedCall> = {
  tool_name: nullable(string),
  code: errorCode,
  args_sha256: nullable(sha256),
  turn: number,
  then: oneOf("repair_turn", "failed_closed"),
  arguments: optional(anything),
};

const CHECKED: Shape<CallCheck> = {
  turn: number,
  tool_name: string,
  verdict: oneOf("yes", "no", "repeat", "cut_off", "no_call"),
  score: optional(number),
  threshold: optional(number),
};

const FINGERPRINT: Shape<ModelFingerprint> = {
  modelId: string,
  sha256: optional(string),
  runtime: optional(string),
  modelLib: optional(string),
  modelUrl: optional(string),
  integrity: optional(
    object<NonNullable<ModelFingerprint["integrity"]>>({
      config: optional(string),
      model_lib: optional(string),
      tokenizer: optional(recordOf(string)),
    }),
  ),
  runtimeVersion: optional(string),
  shaderF16: optional(boolean),
};

const PACKAGE: Shape<FrozenPackage> = {
  name: string,
  version: string,
  file_name: string,
  sha256,
  source: optional(oneOf("pyodide-lock", "pypi")),
};

const STATS: Shape<EngineStats> = {
  generations: number,
  time_to_first_token_ms: optional(number),
  decode_tokens_per_s: optional(number),
  prefill_tokens_per_s: optional(number),
  first_prompt_tokens_evaluated: optional(number),
  prompt_tokens_evaluated: optional(number),
  completion_tokens: optional(number),
};

const CONTEXT: Shape<ContextReceipt> = {
  window: number,
  trained_window: optional(number),
  max_tokens: number,
  prompt_tokens: optional(number),
  turns_dropped: number,
  counted_by: oneOf("engine", "estimate"),
};

const PREFIX_START: Shape<PrefixStartReceipt> = {
  prefix_cache: oneOf("state_file", "state_saved", "engine", "none"),
  prefix_tokens: optional(number),
  prefix_tokens_evaluated: optional(number),
  state_fallback: optional(codeAndReason),
  state_save_failed: optional(codeAndReason),
  prompt_tokens: optional(number),
  prompt_tokens_evaluated: optional(number),
};

const CLIENT: Shape<ReceiptClient> = { name: string, version: string };

const RECEIPT: Shape<Receipt> = {
  receipt_version: oneOf(RECEIPT_VERSION),
  id: string,
  kind: oneOf("chat", "tool_call", "confirm", "learn"),
  created_at: string,
  model_id: nullable(string),
  engine: nullable(string),
  model_fingerprint: optional(object(FINGERPRINT)),
  prompt_sha256: nullable(sha256),
  answer_sha256: nullable(sha256),
  tools_file_sha256: nullable(sha256),
  tools_bundle_sha256: optional(sha256),
  python_packages: optional(arrayOf(object(PACKAGE))),
  python_lock_sha256: optional(sha256),
  tools_manifest_sha256: optional(nullable(sha256)),
  tool_surface: optional(oneOf("tools_file", "tools_manifest", "facts_store")),
  facts_store: optional(string),
  active_set_sha256: nullable(sha256),
  schema_generator_version: nullable(string),
  tool_instruction_mode: oneOf("contract", "imprint", "imprint_with_contract", "none"),
  tool_instruction_sha256: nullable(sha256),
  imprint_id: nullable(string),
  outcome: oneOf("answered", "return_direct", "pending_confirmation", "failed_closed"),
  code: nullable(errorCode),
  network_used_by_edge: oneOf(false),
  calls: arrayOf(object(CALL)),
  refused_calls: optional(arrayOf(object(REFUSED))),
  call_checks: optional(arrayOf(object(CHECKED))),
  text: optional(object<NonNullable<Receipt["text"]>>({ prompt: optional(string), answer: optional(string) })),
  extra: optional(plainObject),
  surface: optional(oneOf("mcp")),
  client: optional(object(CLIENT)),
  confirmed_via: optional(oneOf("terminal", "page", "elicitation")),
  finish_reason: optional(oneOf("stop", "length")),
  engine_stats: optional(object(STATS)),
  context: optional(object(CONTEXT)),
  imprint_restore: optional(oneOf("state", "prefix")),
  imprint_prefix: optional(object(PREFIX_START)),
  contract_prefix: optional(object(PREFIX_START)),
  seq: positiveInteger,
  prev_receipt_sha256: nullable(sha256),
  receipt_sha256: sha256,
};

const checkReceipt = object(RECEIPT);

/** The value as a Receipt when every field is what types.ts says, else the first problem (naming its field). */
export function readReceipt(value: unknown): { ok: true; receipt: Receipt } | { ok: false; problem: string } {
  const problem = checkReceipt(value, "");
  return problem === null ? { ok: true, receipt: value as Receipt } : { ok: false, problem };
}
