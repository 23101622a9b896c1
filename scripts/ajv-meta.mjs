// The source of src/contract/ajv-meta.ts in the CLI's build: ajv's standalone code of its default
// meta-schema (JSON Schema draft-07), compiled with the options of src/contract/ajv.ts
// (AJV_OPTIONS; test/ajv-meta.test.ts checks they are the same and that the code gives the same
// verdicts and messages as ajv's own check).
import AjvModule from "ajv";
import standaloneModule from "ajv/dist/standalone/index.js";

const Ajv = AjvModule.default ?? AjvModule;
const standaloneCode = standaloneModule.default ?? standaloneModule;

export const AJV_OPTIONS = { strict: true, allowUnionTypes: true, allErrors: true };
const META_SCHEMA_ID = "http://json-schema.org/draft-07/schema";

/** An ES module exporting `precompiledMetaValidator` (it imports ajv's runtime helpers). */
export function metaValidatorSource() {
  const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true, esm: true } });
  const validate = ajv.getSchema(META_SCHEMA_ID);
  if (!validate) throw new Error(`ajv has no meta-schema ${META_SCHEMA_ID}`);
  return `${standaloneCode(ajv, validate)}\nexport { validate0 as precompiledMetaValidator };\n`;
}
