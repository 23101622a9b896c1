// web-llm errors → our table. Errors thrown inside web-llm's worker reach the page as STRINGS
// (the handler posts `err.toString()`, e.g. "Error: Unable to find a compatible GPU…"), so the
// mapping is by content. The patterns below are taken from web-llm 0.2.86's own messages
// (lib/index.js: error classes, detectGPUDevice, the artifact caches) and from what Chromium's
// fetch / Cache API throw. The original text is always kept in details.original.
import { EdgeError, isErrorCode, type ErrorCode } from "../contract/errors.ts";

export type WebLLMStage = "load" | "chat";

interface Rule {
  code: ErrorCode;
  test: RegExp;
  /** A more specific sentence than the table's, when the original says something actionable. */
  message?: string;
}

const RULES: readonly Rule[] = [
  // ── no GPU ────────────────────────────────────────────────────────────────────────────
  { code: "webgpu_unavailable", test: /WebGPUNotAvailableError|WebGPU is not supported in your current environment/ },
  { code: "webgpu_unavailable", test: /WebGPUNotFoundError|Cannot find WebGPU in the environment/ },
  { code: "webgpu_unavailable", test: /Unable to find a compatible GPU/ },
  // ── pinned hashes did not match (before "fetch" rules: the URL in it may contain anything) ──
  { code: "model_integrity_failed", test: /IntegrityError|Integrity verification failed for/ },
  // ── downloads ──────────────────────────────────────────────────────────────────────────
  { code: "model_fetch_failed", test: /Failed to fetch|NetworkError|Load failed|net::ERR_/ },
  { code: "model_fetch_failed", test: /Failed to execute 'add' on 'Cache'|Request failed/ },
  { code: "model_fetch_failed", test: /Cannot fetch https?:|failed to fetch: |Unable to fetch .*received status/i },
  { code: "model_fetch_failed", test: /\bCORS\b|Access-Control-Allow-Origin/ },
  {
    // A server that answers a missing file with its index.html (SPA fallback) instead of a 404.
    code: "model_fetch_failed",
    test: /Unexpected token '<'|"<!doctype|<html/i,
    message:
      "The model URL answered with a web page instead of the model's files (a wrong URL, or a server that falls back to index.html). Check the appConfig's model URL, then clear this model from the cache before retrying.",
  },
  { code: "model_fetch_failed", test: /\b(?:status|HTTP)(?: code)?\s*:?\s*(?:40[134]|5\d\d)\b/i },
  // ── this device cannot run this model ────────────────────────────────────────────────
  {
    code: "model_load_failed",
    test: /ShaderF16SupportError|requires WebGPU extension shader-f16/,
    message: "This model needs the WebGPU feature shader-f16, which this GPU lacks; pick an f32 (q4f32) variant.",
  },
  { code: "model_load_failed", test: /FeatureSupportError|This model requires feature / },
  {
    code: "model_load_failed",
    test: /DeviceLostError|device was lost|Device was lost/i,
    message: "The GPU ran out of memory (device lost) while loading the model; pick a smaller model.",
  },
  { code: "model_load_failed", test: /Cannot initialize runtime because of requested/ },
  {
    code: "model_load_failed",
    test: /MissingModelError|Missing `model_lib`|ModelNotFoundError|Cannot find model record/,
  },
  {
    code: "model_load_failed",
    test: /QuotaExceededError|quota/i,
    message:
      "The browser's storage quota is full, so the model could not be cached; free space (or clear old models) and try again.",
  },
  { code: "model_load_failed", test: /CompileError|LinkError|Aborted\(/ },
  // ── asked to chat before a model is loaded ──────────────────────────────────────────────
  {
    code: "engine_not_loaded",
    test: /ModelNotLoadedError|Model not loaded before|is not loaded with a model|EngineNotLoadedError/,
  },
  // ── generation ───────────────────────────────────────────────────────────────────────
  {
    // The loop fits prompts to the window before asking (src/chat/context.ts); web-llm's own check
    // is the backstop when a count was off.
    code: "context_window_exceeded",
    test: /ContextWindowSizeExceededError|Prompt tokens exceed context window size/,
    message:
      "The conversation is longer than the model's context window (web-llm refused the prompt); reset the conversation or shorten the prompt.",
  },
  {
    code: "generation_failed",
    test: /GrammarMatcherInitError|Failed to initialize the grammar matcher/,
    message:
      "The guided-decoding grammar for the active tools could not be compiled; the tools' schemas may use an unsupported JSON Schema feature. Remove that feature from the tools' parameter schemas, then ask again.",
  },
  { code: "generation_failed", test: /MessageOrderError|SystemMessageOrderError|Role is not supported/ },
];

/** The text of whatever web-llm rejected with: a string from the worker, an Error, or else. */
function originalText(e: unknown): string {
  if (typeof e === "string") return e;
  if (e instanceof Error) return e.message.startsWith(e.name) ? e.message : `${e.name}: ${e.message}`;
  if (e && typeof e === "object" && "message" in e && typeof (e as { message: unknown }).message === "string") {
    return (e as { message: string }).message;
  }
  return String(e);
}

/**
 * Map anything web-llm throws to an EdgeError from the table. An EdgeError passes through
 * unchanged. Unrecognized text becomes `model_load_failed` during load and `generation_failed`
 * during chat.
 */
export function mapWebLLMError(e: unknown, stage: WebLLMStage = "load"): EdgeError {
  if (e instanceof EdgeError) return e;
  if (e && typeof e === "object" && "code" in e && isErrorCode((e as { code: unknown }).code)) {
    const obj = e as { code: ErrorCode; message?: unknown; details?: unknown };
    return new EdgeError(
      obj.code,
      (obj.details && typeof obj.details === "object" ? obj.details : {}) as Record<string, unknown>,
      typeof obj.message === "string" ? obj.message : undefined,
    );
  }
  const original = originalText(e);
  for (const rule of RULES) {
    if (rule.test.test(original)) {
      return new EdgeError(rule.code, { original, stage }, rule.message);
    }
  }
  return new EdgeError(stage === "load" ? "model_load_failed" : "generation_failed", { original, stage });
}
