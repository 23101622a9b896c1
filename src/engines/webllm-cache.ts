// After an integrity failure, forget what web-llm already cached. web-llm stores a file in its
// cache BEFORE verifying it (MLCEngine.reloadInternal: fetchWithCache, then verifyIntegrity), so
// without this every later load would fail on the same cached copy — or, with onFailure "warn",
// use it. The weights (tensor cache) are left alone: web-llm fetches them after these files, so a
// failed check means none were fetched in this load, and deleting a cached copy would cost a
// gigabyte for nothing.
import type { AppConfig, ModelRecord } from "@mlc-ai/web-llm";

type WebLLMCacheApi = Pick<typeof import("@mlc-ai/web-llm"), "deleteChatConfigInCache" | "deleteModelWasmInCache">;

/** The base URL web-llm fetches a model's files from (its cleanModelUrl: a trailing slash, and
 *  "resolve/main/" appended when the URL names no revision). */
export function modelBaseUrl(model: string, base = globalThis.location?.href): string {
  let url = model.endsWith("/") ? model : `${model}/`;
  if (!/.+\/resolve\/.+\//.test(url)) url += "resolve/main/";
  return new URL(url, base).href;
}

export async function forgetUnverifiedFiles(
  webllm: WebLLMCacheApi,
  record: ModelRecord,
  appConfig: AppConfig,
): Promise<void> {
  await webllm.deleteChatConfigInCache(record.model_id, appConfig).catch(() => undefined);
  await webllm.deleteModelWasmInCache(record.model_id, appConfig).catch(() => undefined);
  // The tokenizer shares web-llm's "webllm/model" cache with the weights and has no delete helper
  // of its own; with the Cache API backend it is removed here directly.
  const backend = appConfig.cacheBackend ?? "cache";
  if (backend !== "cache" || typeof caches === "undefined") return;
  try {
    const cache = await caches.open("webllm/model");
    const base = modelBaseUrl(record.model);
    for (const file of ["tokenizer.json", "tokenizer.model"]) await cache.delete(new URL(file, base).href);
  } catch {
    // Best effort: the error the person sees is the integrity failure itself.
  }
}
