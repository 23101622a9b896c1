export * from "./errors.ts";
export * from "./hash.ts";
export * from "./types.ts";
export * from "./selection.ts";
export * from "./ajv.ts";
export * from "./abort.ts";
