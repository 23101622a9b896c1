// Checks on what a runner worker sent back. Everything a worker sends is untrusted (it ran tool
// code): shape, job id, the HMAC over (call id + result hash), and a result hash recomputed here
// with the host's own canonical JSON. Only then the result rules of docs/contract.md §4.6 (object, size,
// declared output_schema). Environment-neutral; pure apart from WebCrypto.
import { describeSchemaErrors, validateAgainst } from "../contract/ajv.ts";
import { errorJson, isErrorCode, type ErrorCode, type ErrorJson } from "../contract/errors.ts";
import { canonicalSize, hmacSha256Hex, isSha256, sha256Json, timingSafeEqual, type Sha256 } from "../contract/hash.ts";
import {
  EXECUTION_LEVELS,
  isObj,
  SCHEMA_GENERATOR_VERSION,
  type DiscoveredTool,
  type JsonObject,
} from "../contract/types.ts";
import { MAX_REPLY_CHARS } from "../../workers/protocol.ts";
import type { CallOutcome, DiscoverOutcome } from "./host.ts";

export const DEFAULT_MAX_RESULT_BYTES = 65_536;
export const DEFAULT_STDERR_LIMIT = 16_384;

/** A call outcome before the host adds callId and duration. */
export type CallVerdict = Omit<CallOutcome, "callId" | "duration_ms">;
export type DiscoverVerdict = Omit<DiscoverOutcome, "duration_ms">;

type Obj = Record<string, unknown>;

/** Join and bound captured output (what edge_runner captured + what reached Pyodide's callbacks). */
function boundStderr(parts: readonly unknown[], limit = DEFAULT_STDERR_LIMIT): string {
  const text = parts.filter((p): p is string => typeof p === "string" && p.length > 0).join("");
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n[… ${text.length - limit} more characters of output not kept]`;
}

/** The `done` message's fields, or undefined when the message is not a well-formed reply to this job. */
function readDone(message: unknown, jobId: string): { reply: string; hmac?: string; stderr?: string } | undefined {
  if (!isObj(message) || message.type !== "done") return undefined;
  if (typeof message.jobId !== "string" || !timingSafeEqual(message.jobId, jobId)) return undefined;
  if (typeof message.reply !== "string" || message.reply.length > MAX_REPLY_CHARS) return undefined;
  if (message.hmac !== undefined && typeof message.hmac !== "string") return undefined;
  if (message.stderr !== undefined && typeof message.stderr !== "string") return undefined;
  return {
    reply: message.reply,
    hmac: message.hmac as string | undefined,
    stderr: message.stderr as string | undefined,
  };
}

function parseObject(text: string): Obj | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObj(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function unverifiedCall(reason: string, stderr = "", verified = false): CallVerdict {
  return {
    ok: false,
    tools_file_sha256_verified: verified,
    runner_secret_verified: false,
    stderr,
    error: errorJson("runner_reply_unverified"),
    diagnostics: { reason },
  };
}

export interface CallReplyContext {
  jobId: string;
  callId: string;
  secret: string;
  outputSchema: JsonObject | null;
  maxResultBytes?: number;
  stderrLimit?: number;
}

/** Verify the worker's `done` message for a call job and apply the result rules. */
export async function verifyCallReply(message: unknown, ctx: CallReplyContext): Promise<CallVerdict> {
  const done = readDone(message, ctx.jobId);
  if (!done) return unverifiedCall("the runner's message is not a reply to this job");
  const reply = parseObject(done.reply);
  if (!reply) return unverifiedCall("the runner's reply is not a JSON object");
  const stderr = boundStderr([reply.stderr, done.stderr], ctx.stderrLimit);
  const fileVerified = reply.tools_file_sha256_verified === true;

  if (reply.ok === false) {
    const err = reply.error;
    if (!isObj(err) || !isErrorCode(err.code))
      return unverifiedCall("the runner's error has no known code", stderr, fileVerified);
    const out: CallVerdict = {
      ok: false,
      tools_file_sha256_verified: fileVerified,
      runner_secret_verified: false,
      stderr,
      error: pythonError(err.code, err),
    };
    if (isObj(reply.diagnostics)) out.diagnostics = reply.diagnostics;
    return out;
  }
  if (reply.ok !== true) return unverifiedCall("the runner's reply has no ok flag", stderr, fileVerified);
  if (!fileVerified) return unverifiedCall("a successful reply must confirm the tools file hash", stderr);

  // Trust first: recompute the result hash ourselves, then check the HMAC over it.
  const result = reply.result;
  let recomputed: Sha256;
  try {
    recomputed = await sha256Json(result);
  } catch {
    return unverifiedCall("the reply's result is not canonical JSON", stderr, fileVerified);
  }
  const claimed = reply.result_sha256;
  const expectedMac = await hmacSha256Hex(ctx.secret, ctx.callId + recomputed);
  const hashOk = isSha256(claimed) && timingSafeEqual(claimed, recomputed);
  const macOk = typeof done.hmac === "string" && timingSafeEqual(done.hmac, expectedMac);
  if (!hashOk || !macOk) {
    return unverifiedCall(
      !macOk ? "HMAC does not match this call's secret" : "result_sha256 does not match the result",
      stderr,
      fileVerified,
    );
  }

  const base = { tools_file_sha256_verified: true, runner_secret_verified: true, stderr };
  if (!isObj(result)) {
    return {
      ok: false,
      ...base,
      error: errorJson("unsupported_tool_result"),
      diagnostics: { reason: "the result is not a JSON object" },
    };
  }
  const size = canonicalSize(result);
  const max = ctx.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  if (size > max) {
    return {
      ok: false,
      ...base,
      result_sha256: recomputed,
      error: errorJson("tool_result_oversized"),
      diagnostics: { size_bytes: size, max_bytes: max },
    };
  }
  if (ctx.outputSchema) {
    const check = validateAgainst(ctx.outputSchema, result);
    if (!check.valid) {
      return {
        ok: false,
        ...base,
        result_sha256: recomputed,
        // Which fields are wrong is the fix: name them in the message, not only in diagnostics.
        error: errorJson("tool_result_schema_mismatch", {
          message: `The tool's real result does not match its declared output_schema: ${describeSchemaErrors(check.errors)}. It was not delivered; fix the tool or its schema.`,
        }),
        diagnostics: { schema_errors: check.errors },
      };
    }
  }
  return { ok: true, ...base, result: result as JsonObject, result_sha256: recomputed };
}

function pythonError(code: ErrorCode, err: Obj): ErrorJson {
  const extra: Partial<ErrorJson> = {};
  if (typeof err.message === "string" && err.message) extra.message = err.message;
  if (typeof err.tool === "string") extra.tool = err.tool;
  if (typeof err.parameter === "string") extra.parameter = err.parameter;
  if (typeof err.line === "number") extra.line = err.line;
  if (typeof err.file === "string") extra.file = err.file;
  return errorJson(code, extra);
}

// ── discovery ───────────────────────────────────────────────────────────────────────────

export function failedDiscovery(
  code: ErrorCode,
  expectedSha256: string,
  stderr = "",
  extra: Partial<ErrorJson> = {},
): DiscoverVerdict {
  return {
    ok: false,
    tools_file_sha256: expectedSha256,
    schema_generator_version: "",
    tools: [],
    errors: [errorJson(code, extra)],
    warnings: [],
    stderr,
  };
}

/** Verify the worker's `done` message for a discover job: shape, codes, and the hash it claims. */
export function verifyDiscoverReply(
  message: unknown,
  jobId: string,
  expectedSha256: string,
  stderrLimit?: number,
): DiscoverVerdict {
  const bad = (reason: string, stderr = ""): DiscoverVerdict =>
    failedDiscovery("runner_reply_unverified", expectedSha256, stderr, {
      message: `The runner's discovery reply was not trusted: ${reason}.`,
    });
  const done = readDone(message, jobId);
  if (!done) return bad("not a reply to this job");
  const reply = parseObject(done.reply);
  if (!reply) return bad("not a JSON object");
  const stderr = boundStderr([reply.stderr, done.stderr], stderrLimit);
  if (typeof reply.ok !== "boolean") return bad("no ok flag", stderr);
  const errors = readErrors(reply.errors);
  const warnings = readErrors(reply.warnings ?? []);
  if (typeof errors === "string") return bad(`errors: ${errors}`, stderr);
  if (typeof warnings === "string") return bad(`warnings: ${warnings}`, stderr);
  if (!Array.isArray(reply.tools)) return bad("tools is not a list", stderr);
  const tools: DiscoveredTool[] = [];
  for (const [i, t] of reply.tools.entries()) {
    const tool = readTool(t);
    if (typeof tool === "string") return bad(`tools[${i}]: ${tool}`, stderr);
    tools.push(tool);
  }
  const sha = typeof reply.tools_file_sha256 === "string" ? reply.tools_file_sha256 : "";
  if (reply.ok && sha !== expectedSha256) return bad("it reports a different tools_file_sha256", stderr);
  // The schemas are this generator's or none: a runner that claims another version (a stale or
  // tampered runner image) is not believed.
  if (reply.ok && reply.schema_generator_version !== SCHEMA_GENERATOR_VERSION) {
    return bad(
      `it names schema generator ${JSON.stringify(String(reply.schema_generator_version)).slice(0, 80)}, not ${SCHEMA_GENERATOR_VERSION}`,
      stderr,
    );
  }
  return {
    ok: reply.ok && errors.length === 0,
    tools_file_sha256: sha || expectedSha256,
    schema_generator_version: typeof reply.schema_generator_version === "string" ? reply.schema_generator_version : "",
    tools,
    errors,
    warnings,
    stderr,
  };
}

function readErrors(value: unknown): ErrorJson[] | string {
  if (!Array.isArray(value)) return "not a list";
  const out: ErrorJson[] = [];
  for (const e of value) {
    if (!isObj(e)) return "an entry is not an object";
    if (!isErrorCode(e.code)) return `unknown code ${JSON.stringify(e.code)}`;
    const item = pythonError(e.code, e);
    // Keep extra context Python attached (annotation, file, …) for people.
    for (const [k, v] of Object.entries(e)) if (!(k in item) && k !== "code") item[k] = v;
    out.push(item);
  }
  return out;
}

function readTool(value: unknown): DiscoveredTool | string {
  if (!isObj(value)) return "not an object";
  const s = value.schema;
  if (!isObj(s)) return "no schema";
  if (typeof s.name !== "string" || typeof s.description !== "string") return "name/description";
  if (!isObj(s.parameters)) return "parameters";
  if (typeof s.execution_level !== "string" || !(EXECUTION_LEVELS as readonly string[]).includes(s.execution_level))
    return "execution_level";
  if (typeof s.return_direct !== "boolean") return "return_direct";
  if (s.output_schema !== null && !isObj(s.output_schema)) return "output_schema";
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
  const tags = value.intent_tags ?? [];
  const perms = value.permissions ?? [];
  if (!strings(tags) || !strings(perms)) return "intent_tags/permissions";
  const tool: DiscoveredTool = {
    schema: {
      name: s.name,
      description: s.description,
      parameters: s.parameters as JsonObject,
      execution_level: s.execution_level as DiscoveredTool["schema"]["execution_level"],
      return_direct: s.return_direct,
      output_schema: (s.output_schema ?? null) as JsonObject | null,
    },
    intent_tags: tags,
    permissions: perms,
  };
  if (typeof value.line === "number") tool.line = value.line;
  return tool;
}
