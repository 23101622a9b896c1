// The JSON Schema meta-schema's validator (draft-07, ajv's default), compiled ahead of time, or
// undefined. Here, in the sources, it is undefined: ajv compiles the meta-schema itself on its first
// compile, ≈ 20–30 ms of CPU. The CLI's build (scripts/build-cli.mjs) replaces this module with
// ajv's own standalone code for the same meta-schema under the same options (scripts/ajv-meta.mjs),
// so a one-shot `edge` command does not pay that at every start. contract/ajv.ts uses it to make
// the check ajv.compile makes first; test/ajv-meta.test.ts checks both ways give the same verdicts
// and messages.
import type { ValidateFunction } from "ajv";

export const precompiledMetaValidator: ValidateFunction | undefined = undefined;
