// Test page for e2e/llamacpp.spec.ts: the engine conformance suite in Chromium (the scripted engine
// and the llama.cpp engine — wllama in its worker — on the generated test model, with the real
// sandboxed runner), and the browser's model store, driven through window.__llama.
import { createChatSession } from "../../src/chat/session.ts";
import type { ImprintPrefixReceipt } from "../../src/chat/receipt-types.ts";
import { EdgeError } from "../../src/contract/errors.ts";
import { imprintBinding, learn, parseLearnSampleText } from "../../src/imprint/index.ts";
import type { ModelSource } from "../../src/engines/llamacpp/backend.ts";
import { createBrowserLlamaBackend } from "../../src/engines/llamacpp/browser/backend.ts";
import { deleteStoredModel, listStoredModels } from "../../src/engines/llamacpp/browser/model-store.ts";
import { LlamaCppEngine } from "../../src/engines/llamacpp/engine.ts";
import { createBrowserRunnerHost } from "../../src/runner/browser/index.ts";
import { memorySource } from "../../src/toolset/inspect.ts";
import { CONFORMANCE_TOOLS } from "../../test/fixtures/conformance-tools.ts";
import { CHECKS, type EngineSubject } from "../../test/engines/conformance.ts";
import { llamacppSubject } from "../../test/engines/llamacpp-subject.ts";
import { scriptedSubject } from "../../test/engines/scripted-subject.ts";

const host = await createBrowserRunnerHost();
const env = { host, tools: memorySource("tools.py", CONFORMANCE_TOOLS) };
const backend = createBrowserLlamaBackend({ device: "cpu" });
/** The same engine with the worker of a browser without JSPI (wllama's compat build). */
const compatBackend = createBrowserLlamaBackend({
  device: "cpu",
  createWorker: () => new Worker(new URL("./llamacpp-compat.worker.ts", import.meta.url), { type: "module" }),
});

export interface CheckResult {
  name: string;
  status: "passed" | "failed" | "skipped";
  error?: string;
}

const codeOf = (e: unknown) => (e instanceof EdgeError ? e.code : `not an EdgeError: ${String(e)}`);

const api = {
  /** Run every conformance check for a subject ("scripted", or "llamacpp" with the model URLs). */
  async conformance(which: "scripted" | "llamacpp", urls?: { model: string; small: string }): Promise<CheckResult[]> {
    const subject: EngineSubject =
      which === "scripted"
        ? scriptedSubject
        : llamacppSubject({
            name: "llama.cpp (wllama worker)",
            backend,
            model: { kind: "url", url: urls!.model },
            smallModel: { kind: "url", url: urls!.small },
            notGguf: { kind: "blob", blob: new Blob(["These are my notes, not a model.\n".repeat(20)]), name: "notes.gguf" },
            keepsEarlierPrompts: true,
          });
    const results: CheckResult[] = [];
    for (const check of CHECKS) {
      if (check.needs && !subject.capabilities[check.needs]) {
        results.push({ name: check.name, status: "skipped" });
        continue;
      }
      try {
        await check.run(subject, env);
        results.push({ name: check.name, status: "passed" });
      } catch (e) {
        results.push({ name: check.name, status: "failed", error: e instanceof Error ? `${e.message}\n${e.stack}` : String(e) });
      }
    }
    return results;
  },
  /** Load a model; resolve with its fingerprint, or the error code. A tiny answer proves it runs. */
  async load(source: ModelSource | { kind: "file-blob"; text: string; name: string }, abortAfterProgress?: number, compat = false): Promise<{ code?: string; sha256?: string; answer?: string; progress: number[] }> {
    const model: ModelSource = source.kind === "file-blob" ? { kind: "blob", blob: new Blob([source.text]), name: source.name } : source;
    const engine = new LlamaCppEngine({ backend: compat ? compatBackend : backend, model });
    const controller = new AbortController();
    const progress: number[] = [];
    try {
      await engine.load((p) => {
        progress.push(p.progress);
        if (abortAfterProgress !== undefined && p.progress > abortAfterProgress) controller.abort();
      }, controller.signal);
      const r = await engine.chat({ messages: [{ role: "user", content: "hi" }], responseFormat: { type: "grammar", grammar: 'root ::= "ok"' } });
      const sha256 = engine.info().fingerprint?.sha256;
      await engine.unload();
      return { ...(sha256 ? { sha256 } : {}), answer: r.text, progress };
    } catch (e) {
      return { code: codeOf(e), progress };
    }
  },
  /** An imprint learned with the model, then restored in one new conversation per prompt (no saved
   *  state in the browser): each run's receipt fields on how the prefix reached the model. */
  async imprintConversations(url: string, prompts: string[]): Promise<Array<{ restore?: string; prefix?: ImprintPrefixReceipt }>> {
    const engine = new LlamaCppEngine({ backend, model: { kind: "url", url } });
    await engine.load();
    try {
      const sample = parseLearnSampleText(await (await fetch("/examples/learn_sample.json")).text());
      const { imprint } = await learn({ sample, engine, evaluate: false });
      const out = [];
      for (const prompt of prompts) {
        const run = await (await createChatSession({ engine, imprint: imprintBinding(imprint), maxTokens: 4 })).chat(prompt);
        out.push({ ...(run.receipt.imprint_restore ? { restore: run.receipt.imprint_restore } : {}), ...(run.receipt.imprint_prefix ? { prefix: run.receipt.imprint_prefix } : {}) });
      }
      return out;
    } finally {
      await engine.unload();
    }
  },
  stored: () => listStoredModels(),
  remove: (key: string) => deleteStoredModel(key),
  /** Every file in the model folder (to see that nothing partial stays). */
  async files(): Promise<string[]> {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle("edge-models", { create: true });
    const names: string[] = [];
    for await (const name of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) names.push(name);
    return names.sort();
  },
};

declare global {
  interface Window {
    __llama?: typeof api;
  }
}
window.__llama = api;
document.getElementById("status")!.textContent = "ready";
