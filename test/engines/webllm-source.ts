// The installed web-llm's source text (Node): quoted behaviours are checked against it, and the
// fake's error classes are taken from it (webllm-classes.ts).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { webllmErrors, type WebLLMErrors } from "./webllm-classes.ts";

const require = createRequire(import.meta.url);
let source: string | undefined;

export function webllmSource(): string {
  source ??= readFileSync(
    path.join(path.dirname(require.resolve("@mlc-ai/web-llm/package.json")), "lib", "index.js"),
    "utf8",
  );
  return source;
}

let errors: WebLLMErrors | undefined;
export function nodeWebllmErrors(): WebLLMErrors {
  errors ??= webllmErrors(webllmSource());
  return errors;
}
