// The built CLI checks schemas against the JSON Schema meta-schema with a validator compiled at
// build time (scripts/ajv-meta.mjs → src/contract/ajv-meta.ts); the sources let ajv compile it on
// first use. Both must say the same thing about every schema: the same verdict, and for an invalid
// schema the same message, word for word.
import { build } from "esbuild";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ValidateFunction } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AJV_OPTIONS, schemaCompiler } from "../src/contract/ajv.ts";
import { AJV_OPTIONS as BUILD_OPTIONS, metaValidatorSource } from "../scripts/ajv-meta.mjs";

const ROOT = new URL("../", import.meta.url).pathname;

const SCHEMAS: [string, object][] = [
  ["an empty object schema", { type: "object" }],
  [
    "tool parameters",
    {
      type: "object",
      properties: {
        amount: { type: "number", default: 1 },
        tier: { type: ["string", "null"], enum: ["basic", "pro", null] },
        xs: { type: "array", items: { type: "integer" } },
      },
      required: ["amount"],
      additionalProperties: false,
    },
  ],
  [
    "a closed output schema",
    {
      type: "object",
      properties: { ok: { type: "boolean" }, id: { type: "string", maxLength: 40, pattern: "^D-" } },
      required: ["ok"],
      additionalProperties: false,
    },
  ],
  ["a misspelt type", { type: "strnig" }],
  ["a type list with a number", { type: ["string", 3] }],
  ["a minLength that is text", { type: "object", properties: { a: { type: "string", minLength: "x" } } }],
  ["enum not a list", { enum: 5 }],
  ["required not a list", { type: "object", required: "a" }],
  ["properties a list", { type: "object", properties: [] }],
  ["additionalProperties text", { type: "object", additionalProperties: "no" }],
  ["items a number", { type: "array", items: 5 }],
  [
    "several problems at once",
    { type: "object", properties: { a: { type: "nope", maximum: "9" }, b: { enum: [] } }, required: [1] },
  ],
  ["an unknown keyword (strict mode)", { type: "object", propertys: {} }],
  ["a $schema of its own", { $schema: "http://json-schema.org/draft-07/schema#", type: "object" }],
  ["an unknown $schema", { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" }],
  ["an $id", { $id: "https://example.org/s", type: "object", properties: { a: { type: "strnig" } } }],
];

/** What compiling says: "ok" or the error's message. */
function verdict(compile: (s: object) => ValidateFunction, schema: object): string {
  try {
    compile(schema);
    return "ok";
  } catch (err) {
    return (err as Error).message;
  }
}

describe("the meta-schema validator compiled at build time", () => {
  let dir: string;
  let meta: ValidateFunction;
  beforeAll(async () => {
    // Bundled as the CLI's build bundles it (the generated code requires ajv's runtime helpers).
    const out = await build({
      stdin: { contents: metaValidatorSource(), resolveDir: ROOT, loader: "js" },
      bundle: true,
      format: "esm",
      platform: "node",
      write: false,
      logLevel: "silent",
    });
    dir = await mkdtemp(join(tmpdir(), "edge-ajv-meta-"));
    const file = join(dir, "meta.mjs");
    await writeFile(file, out.outputFiles[0]!.text);
    meta = ((await import(pathToFileURL(file).href)) as { precompiledMetaValidator: ValidateFunction })
      .precompiledMetaValidator;
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("is compiled with the options the validators use", () => {
    expect(BUILD_OPTIONS).toEqual(AJV_OPTIONS);
  });

  it.each(SCHEMAS)("%s: the same verdict and message as ajv's own check", (_name, schema) => {
    const expected = verdict(schemaCompiler(undefined), schema);
    expect(verdict(schemaCompiler(meta), schema)).toBe(expected);
  });

  it("refuses what ajv refuses, with ajv's words", () => {
    expect(verdict(schemaCompiler(meta), { type: "strnig" })).toMatch(
      /^schema is invalid: data\/type must be equal to one of the allowed values/,
    );
  });
});
