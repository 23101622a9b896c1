// Types of scripts/ajv-meta.mjs for the TypeScript that imports it (test/ajv-meta.test.ts).
export declare const AJV_OPTIONS: { strict: boolean; allowUnionTypes: boolean; allErrors: boolean };
export declare function metaValidatorSource(): string;
