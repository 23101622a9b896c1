// The one ajv set-up: strict mode, union types allowed, compiled validators cached by the
// schema's sha256 (canonical JSON), so a schema compiled once for a session is reused by every
// call. Used for tool arguments (chat loop) and for declared output_schema (runner host).
// ajv's class by its name: ajv ships CommonJS whose default export is the class under Node but
// the module under some bundlers' interop; the named export is the class under both.
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { precompiledMetaValidator } from "./ajv-meta.ts";
import { canonicalJson } from "./hash.ts";
import { unsafeIntegerMessage, withSafeIntegerBounds } from "./safe-integers.ts";

/** The options of every validator (scripts/ajv-meta.mjs compiles the meta-schema with the same). */
export const AJV_OPTIONS = { strict: true, allowUnionTypes: true, allErrors: true } as const;

/** Cache key: the canonical JSON text itself (exact, and cheaper than hashing synchronously). */
const cache = new Map<string, ValidateFunction>();
const CACHE_LIMIT = 256;
const compileNew = schemaCompiler(precompiledMetaValidator);

/** Compile (or reuse) a validator. Throws ajv's error when the schema is invalid in strict mode. */
export function compileSchema(schema: object): ValidateFunction {
  const key = canonicalJson(schema);
  let validate = cache.get(key);
  if (!validate) {
    validate = compileNew(schema);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, validate);
  }
  return validate;
}

/**
 * ajv.compile: the schema checked against the meta-schema (an invalid one throws "schema is
 * invalid: …"), then compiled in strict mode. Given the meta-schema's validator compiled ahead of
 * time (`meta`: the built CLI's, ajv-meta.ts), that first check runs on it, with ajv's own message,
 * for a schema that names no `$schema` or `$id` of its own (those take ajv's path, whatever they
 * name). The instances are made on first use, not at import: a command that starts runners first
 * (edge tools call) is not held up by ajv's set-up before it has spawned them.
 */
export function schemaCompiler(meta: ValidateFunction | undefined): (schema: object) => ValidateFunction {
  let ajv: Ajv | undefined;
  let checkedApart: Ajv | undefined;
  return (schema) => {
    if (!meta || Array.isArray(schema) || "$schema" in schema || "$id" in schema) {
      ajv ??= new Ajv(AJV_OPTIONS);
      return ajv.compile(schema);
    }
    checkedApart ??= new Ajv({ ...AJV_OPTIONS, validateSchema: false });
    if (!meta(schema)) throw new Error(`schema is invalid: ${checkedApart.errorsText(meta.errors)}`);
    return checkedApart.compile(schema);
  };
}

export interface SchemaCheck {
  valid: boolean;
  /** ajv's errors, trimmed to what a person needs. */
  errors: SchemaError[];
}

export interface SchemaError {
  instancePath: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

/** Set ajv up now (its first compile also compiles the JSON Schema meta-schema, ≈ 20–30 ms of CPU,
 *  unless it was compiled ahead of time), for a caller that has idle time before its first check: a
 *  CLI command while its runner discovers. */
export function warmSchemaChecks(): void {
  compileSchema({ type: "object" });
}

/** Validate a value; a schema that does not compile is reported as one error (keyword "schema"). */
export function validateAgainst(schema: object, value: unknown): SchemaCheck {
  let validate: ValidateFunction;
  try {
    validate = compileSchema(schema);
  } catch (err) {
    return {
      valid: false,
      errors: [{ instancePath: "", keyword: "schema", message: String((err as Error).message ?? err), params: {} }],
    };
  }
  if (validate(value)) return { valid: true, errors: [] };
  return { valid: false, errors: (validate.errors ?? []).map(toSchemaError) };
}

function toSchemaError(e: ErrorObject): SchemaError {
  return { instancePath: e.instancePath, keyword: e.keyword, message: e.message ?? e.keyword, params: { ...e.params } };
}

/** Why `schema` does not compile in strict mode, or null when it does. */
export function schemaCompileError(schema: object): string | null {
  try {
    compileSchema(schema);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** One line per problem, for messages a person reads. */
export function describeSchemaErrors(errors: readonly SchemaError[]): string {
  return errors
    .map((e) => {
      const p = e.params as {
        additionalProperty?: string;
        missingProperty?: string;
        allowedValues?: unknown[];
        allowedValue?: unknown;
      };
      // The allowed values are the fix for an enum or const miss: name them.
      const extra = p.additionalProperty
        ? ` (${p.additionalProperty})`
        : p.missingProperty
          ? ` (${p.missingProperty})`
          : Array.isArray(p.allowedValues)
            ? `: ${p.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`
            : "allowedValue" in p
              ? `: ${JSON.stringify(p.allowedValue)}`
              : "";
      return `${e.instancePath || "/"} ${e.message}${extra}`;
    })
    .join("; ");
}

/**
 * Why `args` are not valid for a tool with this parameters schema, or null when they are: the
 * schema (ajv, cached validator), integers JSON carries exactly at integer positions
 * (safe-integers.ts), and canonical JSON (lone surrogates have no UTF-8 form, so they could be
 * neither hashed nor passed to Python faithfully).
 */
export function argsProblem(parameters: object, args: unknown): { detail: string; problems?: unknown } | null {
  const check = validateAgainst(parameters, args);
  if (!check.valid) return { detail: describeSchemaErrors(check.errors), problems: check.errors };
  // The schema passed, so a bound error here is the ±(2^53−1) bound (the schema's own were met).
  const unsafe = validateAgainst(withSafeIntegerBounds(parameters), args).errors.filter(
    (e) => e.keyword === "minimum" || e.keyword === "maximum",
  );
  if (unsafe.length > 0) {
    const paths = [...new Set(unsafe.map((e) => e.instancePath))];
    return { detail: paths.map(unsafeIntegerMessage).join("; "), problems: unsafe };
  }
  try {
    canonicalJson(args);
  } catch {
    return { detail: "the arguments contain text that is not valid Unicode (a lone surrogate)" };
  }
  return null;
}
