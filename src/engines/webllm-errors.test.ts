// The messages below are web-llm 0.2.86's own (copied from node_modules/@mlc-ai/web-llm/lib/
// index.js, as its worker posts them: `err.toString()`), plus what Chromium's fetch and Cache API
// throw. Each test also checks that the quoted phrase still exists in web-llm's source, so an
// upgrade that rewords a message fails here instead of silently mapping to the fallback code.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import { mapWebLLMError } from "./webllm-errors.ts";

const require = createRequire(import.meta.url);
const webllmSource = readFileSync(
  path.join(path.dirname(require.resolve("@mlc-ai/web-llm/package.json")), "lib", "index.js"),
  "utf8",
);

interface Case {
  name: string;
  /** What reaches the page (a string from the worker). */
  thrown: string;
  /** A phrase that must be present in web-llm's source (absent for browser-made messages). */
  inSource?: string;
  code: string;
  stage?: "load" | "chat";
}

const CASES: Case[] = [
  {
    name: "no adapter (detectGPUDevice)",
    thrown:
      "Error: Unable to find a compatible GPU. This issue might be because your computer doesn't have a GPU, or your system settings are not configured properly. Please check if your device has a GPU properly set up and if your your browser supports WebGPU.",
    inSource: "Unable to find a compatible GPU. This issue might be because your computer doesn't have a GPU",
    code: "webgpu_unavailable",
  },
  {
    name: "WebGPUNotAvailableError",
    thrown:
      "WebGPUNotAvailableError: WebGPU is not supported in your current environment, but it is necessary to run the WebLLM engine. Please make sure that your browser supports WebGPU",
    inSource: "WebGPU is not supported in your current environment, but it is necessary to run the WebLLM engine. ",
    code: "webgpu_unavailable",
  },
  {
    name: "WebGPUNotFoundError",
    thrown: "WebGPUNotFoundError: Cannot find WebGPU in the environment",
    inSource: "Cannot find WebGPU in the environment",
    code: "webgpu_unavailable",
  },
  { name: "offline / DNS failure (fetch)", thrown: "TypeError: Failed to fetch", code: "model_fetch_failed" },
  {
    name: "HTTP 404 while caching (Cache.add)",
    thrown: "TypeError: Failed to execute 'add' on 'Cache': Request failed",
    code: "model_fetch_failed",
  },
  {
    name: "self-hosting server answers index.html for a missing config (seen in e2e with Vite)",
    thrown: `SyntaxError: Unexpected token '<', "<!doctype "... is not valid JSON`,
    code: "model_fetch_failed",
  },
  {
    name: "ArtifactCache: not in cache after add",
    thrown:
      "Error: Cannot fetch https://huggingface.co/mlc-ai/Qwen2.5-1.5B-Instruct-q4f32_1-MLC/resolve/main/mlc-chat-config.json",
    inSource: 'throw Error("Cannot fetch " + url)',
    code: "model_fetch_failed",
  },
  {
    name: "IndexedDB cache backend",
    thrown: "Error: ArtifactIndexedDBCache failed to fetch: https://example.org/model/resolve/main/tokenizer.json",
    inSource: "ArtifactIndexedDBCache failed to fetch: ",
    code: "model_fetch_failed",
  },
  {
    name: "OPFS cache with HTTP status",
    thrown: "Error: ArtifactOPFSCache: Unable to fetch https://example.org/params_shard_0.bin, received status 404",
    inSource: "ArtifactOPFSCache: Unable to fetch ${url}, received status ${response.status}",
    code: "model_fetch_failed",
  },
  {
    name: "SRI pin mismatch",
    thrown:
      "IntegrityError: Integrity verification failed for https://example.org/mlc-chat-config.json\n  Expected: sha256-AAAA\n  Actual: sha256-BBBB\nThis may indicate file corruption or tampering.",
    inSource: "Integrity verification failed for ${url}",
    code: "model_integrity_failed",
  },
  {
    name: "shader-f16 missing",
    thrown:
      'ShaderF16SupportError: This model requires WebGPU extension shader-f16, which is not enabled in this browser. You can try to launch Chrome Canary in command line with flag "--enable-dawn-features=allow_unsafe_apis".',
    inSource: "This model requires WebGPU extension shader-f16, which is not enabled in this browser.",
    code: "model_load_failed",
  },
  {
    name: "device lost (OOM)",
    thrown:
      "DeviceLostError: The WebGPU device was lost while loading the model. This issue often occurs due to running out of memory (OOM).",
    inSource: "The WebGPU device was lost while loading the model.",
    code: "model_load_failed",
  },
  {
    name: "adapter limits too small",
    thrown:
      "Error: Cannot initialize runtime because of requested maxStorageBufferBindingSize exceeds limit. requested=128MB, limit=64MB. ",
    inSource: "Cannot initialize runtime because of requested maxStorageBufferBindingSize ",
    code: "model_load_failed",
  },
  {
    name: "unknown model id",
    thrown:
      "ModelNotFoundError: Cannot find model record in appConfig for Nope-1B. Please check if the model ID is correct and included in the model_list configuration.",
    inSource: "Cannot find model record in appConfig for ",
    code: "model_load_failed",
  },
  {
    name: "chat before load",
    thrown:
      "ModelNotLoadedError: Model not loaded before trying to complete ChatCompletionRequest. Please ensure you have called ",
    inSource: "Model not loaded before trying to complete ",
    code: "engine_not_loaded",
    stage: "chat",
  },
  {
    name: "worker engine not loaded",
    thrown:
      "WorkerEngineModelNotLoadedError: WebWorkerMLCEngine is not loaded with a model. Did you call `engine.reload()`?",
    inSource: "is not loaded with a model. Did you call",
    code: "engine_not_loaded",
    stage: "chat",
  },
  {
    name: "context window exceeded",
    thrown:
      "ContextWindowSizeExceededError: Prompt tokens exceed context window size: number of prompt tokens: 5000; context window size: 4096",
    inSource: "Prompt tokens exceed context window size: number of prompt tokens: ",
    code: "context_window_exceeded",
    stage: "chat",
  },
  {
    name: "grammar does not compile",
    thrown:
      "GrammarMatcherInitError: Failed to initialize the grammar matcher for response format `structural_tag`: bad regex",
    inSource: "Failed to initialize the grammar matcher for response format ",
    code: "generation_failed",
    stage: "chat",
  },
  {
    name: "template lacks a role",
    thrown: "Error: Role is not supported: tool",
    inSource: 'throw Error("Role is not supported: " + role)',
    code: "generation_failed",
    stage: "chat",
  },
];

describe("mapWebLLMError", () => {
  for (const c of CASES) {
    it(`${c.name} → ${c.code}`, () => {
      if (c.inSource) expect(webllmSource).toContain(c.inSource);
      const err = mapWebLLMError(c.thrown, c.stage ?? "load");
      expect(err).toBeInstanceOf(EdgeError);
      expect(err.code).toBe(c.code);
      expect(err.details.original).toBe(c.thrown);
      expect(err.message.length).toBeGreaterThan(10);
    });
  }

  it("a real web-llm IntegrityError object maps the same as its string form", async () => {
    const webllm = await import("@mlc-ai/web-llm");
    const e = new webllm.IntegrityError("https://example.org/x.wasm", "sha256-AAA", "sha256-BBB");
    const err = mapWebLLMError(e);
    expect(err.code).toBe("model_integrity_failed");
    expect(err.details.original).toContain("Integrity verification failed for https://example.org/x.wasm");
    expect(mapWebLLMError(e.toString()).code).toBe("model_integrity_failed");
  });

  it("unrecognized text falls back by stage, keeping the original", () => {
    const load = mapWebLLMError("Error: something odd", "load");
    expect(load.code).toBe("model_load_failed");
    expect(load.details).toEqual({ original: "Error: something odd", stage: "load" });
    expect(mapWebLLMError("Error: something odd", "chat").code).toBe("generation_failed");
    expect(mapWebLLMError(undefined, "chat").details.original).toBe("undefined");
  });

  it("an EdgeError passes through unchanged", () => {
    const original = new EdgeError("webgpu_unavailable", { reason: "no_adapter" }, "custom sentence");
    expect(mapWebLLMError(original)).toBe(original);
  });

  it("specific, actionable sentences replace the generic ones where web-llm's text helps", () => {
    expect(mapWebLLMError("ShaderF16SupportError: This model requires WebGPU extension shader-f16").message).toMatch(
      /f32/,
    );
    expect(
      mapWebLLMError("ContextWindowSizeExceededError: Prompt tokens exceed context window size", "chat").message,
    ).toMatch(/context window/);
  });
});
