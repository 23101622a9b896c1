import { llmWorkerScriptUrl, pyodideBaseUrl } from "./assets.ts";
console.log(llmWorkerScriptUrl(), pyodideBaseUrl());
export const x = () => import("../engines/webllm.ts");
