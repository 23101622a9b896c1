// Test page for e2e/llamacpp.spec.ts: the engine conformance suite in Chromium (the scripted engine
// and the llama.cpp engine — wllama in its worker — on the generated test model, with the real
// sandboxed runner), and the browser's model store, driven through window.__llama.
import { createChatSession } from "../../src/chat/session.ts";
import type { ImprintPrefixReceipt } from "../../src/receipts/types.ts";
import { EdgeError } from "../../src/contract/errors.ts";
import { imprintBinding, learn, parseLearnSampleText } from "../../src/imprint/index.ts";
import type { ModelSource } from "../../src/engines/llamacpp/backend.ts";
import { createBrowserLlamaBackend } from "../../src/engines/llamacpp/browser/backend.ts";
import {
  deleteStoredModel,
  downloadModel,
  listStoredModels,
  type StoredModel,
} from "../../src/engines/llamacpp/browser/model-store.ts";
import type { ChatMessage, ChoiceRequest, ChoiceScores, ResponseFormat } from "../../src/engines/engine.ts";
import { LlamaCppEngine } from "../../src/engines/llamacpp/engine.ts";
import { createIdbBlobStore } from "../../src/blobs/store-idb.ts";
import { createBrowserRunnerHost } from "../../src/runner/browser/index.ts";
import { memorySource } from "../../src/toolset/inspect.ts";
import { CONFORMANCE_TOOLS } from "../../test/fixtures/conformance-tools.ts";
import { CHECKS, type EngineSubject } from "../../test/engines/conformance.ts";
import { llamacppSubject } from "../../test/engines/llamacpp-subject.ts";
import { scriptedSubject } from "../../test/engines/scripted-subject.ts";

const host = await createBrowserRunnerHost();
const env = { host, tools: memorySource("tools.py", CONFORMANCE_TOOLS) };
const backend = createBrowserLlamaBackend({ device: "cpu" });
/** The same engine as a browser without JSPI runs it (wllama's compat build). */
const compatBackend = createBrowserLlamaBackend({ device: "cpu", wllamaBuild: "compat" });

export interface CheckResult {
  name: string;
  status: "passed" | "failed" | "skipped";
  error?: string;
}

/** The entry records and byte chunks in an IndexedDB blob store's database (store-idb.ts). */
async function idbCounts(name: string): Promise<{ records: number; chunks: number }> {
  const db = await new Promise<IDBDatabase>((res, rej) => {
    const r = indexedDB.open(name);
    r.onsuccess = () => res(r.result);
    r.onerror = () => rej(r.error);
  });
  const count = (store: string) =>
    new Promise<number>((res, rej) => {
      const q = db.transaction(store).objectStore(store).count();
      q.onsuccess = () => res(q.result);
      q.onerror = () => rej(q.error);
    });
  try {
    return { records: await count("entries"), chunks: await count("chunks") };
  } finally {
    db.close();
  }
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
            notGguf: {
              kind: "blob",
              blob: new Blob(["These are my notes, not a model.\n".repeat(20)]),
              name: "notes.gguf",
            },
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
        results.push({
          name: check.name,
          status: "failed",
          error: e instanceof Error ? `${e.message}\n${e.stack}` : String(e),
        });
      }
    }
    return results;
  },
  /** Load a model; resolve with its fingerprint, or the error code. A tiny answer proves it runs. */
  async load(
    source: ModelSource | { kind: "file-blob"; text: string; name: string },
    abortAfterProgress?: number,
    compat = false,
  ): Promise<{ code?: string; sha256?: string; answer?: string; progress: number[] }> {
    const model: ModelSource =
      source.kind === "file-blob" ? { kind: "blob", blob: new Blob([source.text]), name: source.name } : source;
    const engine = new LlamaCppEngine({ backend: compat ? compatBackend : backend, model });
    const controller = new AbortController();
    const progress: number[] = [];
    try {
      await engine.load((p) => {
        progress.push(p.progress);
        if (abortAfterProgress !== undefined && p.progress > abortAfterProgress) controller.abort();
      }, controller.signal);
      const r = await engine.chat({
        messages: [{ role: "user", content: "hi" }],
        responseFormat: { type: "grammar", grammar: 'root ::= "ok"' },
      });
      const sha256 = engine.info().fingerprint?.sha256;
      await engine.unload();
      return { ...(sha256 ? { sha256 } : {}), answer: r.text, progress };
    } catch (e) {
      return { code: codeOf(e), progress };
    }
  },
  /** An imprint learned with the model, then restored in one new conversation per prompt (no saved
   *  state in the browser): each run's receipt fields on how the prefix reached the model. */
  async imprintConversations(
    url: string,
    prompts: string[],
  ): Promise<Array<{ restore?: string; prefix?: ImprintPrefixReceipt }>> {
    const engine = new LlamaCppEngine({ backend, model: { kind: "url", url } });
    await engine.load();
    try {
      const sample = parseLearnSampleText(await (await fetch("/examples/learn_sample.json")).text());
      const { imprint } = await learn({ sample, engine, evaluate: false });
      const out = [];
      for (const prompt of prompts) {
        const run = await (await createChatSession({ engine, imprint: imprintBinding(imprint), maxTokens: 4 })).chat(
          prompt,
        );
        out.push({
          ...(run.receipt.imprint_restore ? { restore: run.receipt.imprint_restore } : {}),
          ...(run.receipt.imprint_prefix ? { prefix: run.receipt.imprint_prefix } : {}),
        });
      }
      return out;
    } finally {
      await engine.unload();
    }
  },
  /** On this page: is it cross-origin isolated, how many threads does llama.cpp run with, and does
   *  a guided tool call still run through the sandboxed runner? */
  async isolatedCall(
    url: string,
    threads?: number,
  ): Promise<{
    isolated: boolean;
    threads?: number;
    outcome: string;
    code?: string;
    calls: Array<{ tool_name: string; status: string; runner_secret_verified: boolean }>;
  }> {
    const engine = new LlamaCppEngine({
      backend,
      model: { kind: "url", url },
      ...(threads !== undefined ? { threads } : {}),
    });
    await engine.load();
    try {
      const session = await createChatSession({
        engine,
        host: env.host,
        tools: { kind: "file", source: env.tools },
        toolChoice: "required",
        maxTokens: 200,
      });
      const run = await session.chat("How much is the fee for 1000 euros?");
      const used = engine.info().threads;
      return {
        isolated: crossOriginIsolated,
        ...(used !== undefined ? { threads: used } : {}),
        outcome: run.outcome,
        ...(run.receipt.code ? { code: run.receipt.code } : {}),
        calls: run.receipt.calls.map((c) => ({
          tool_name: c.tool_name,
          status: c.status,
          runner_secret_verified: c.runner_secret_verified,
        })),
      };
    } finally {
      await engine.unload();
    }
  },
  /** Engine.scoreChoices on wllama: each request's scores (null where the engine has none). */
  async choiceScores(url: string, requests: readonly ChoiceRequest[]): Promise<(ChoiceScores | null)[]> {
    const engine = new LlamaCppEngine({ backend, model: { kind: "url", url } });
    await engine.load();
    try {
      const scores: (ChoiceScores | null)[] = [];
      for (const r of requests) scores.push(engine.scoreChoices ? await engine.scoreChoices(r) : null);
      return scores;
    } finally {
      await engine.unload();
    }
  },
  /** A real-vocabulary model (test/fixtures/real-shape.ts): the prompt tokens wllama evaluates for
   *  each conversation (its template and tokenizer at work), and the raw text of each steered reply. */
  async realVocab(
    url: string,
    conversations: ChatMessage[][],
    formats: ResponseFormat[],
  ): Promise<{ promptTokens: number[]; replies: string[] }> {
    const engine = new LlamaCppEngine({ backend, model: { kind: "url", url } });
    await engine.load();
    try {
      const promptTokens: number[] = [];
      for (const messages of conversations) {
        const r = await engine.chat({
          messages,
          maxTokens: 4,
          responseFormat: { type: "grammar", grammar: 'root ::= "ok"' },
        });
        promptTokens.push(r.usage?.promptTokens ?? -1);
      }
      const replies: string[] = [];
      for (const responseFormat of formats)
        replies.push(
          (
            await engine.chat({
              messages: [{ role: "user", content: "Quote the fee for 12." }],
              responseFormat,
              temperature: 0.8,
              maxTokens: 64,
            })
          ).text,
        );
      return { promptTokens, replies };
    } finally {
      await engine.unload();
    }
  },
  /** The IndexedDB blob store (Safari's and WebKitGTK's model store) on its own: a 9 MB entry in
   *  3 chunks, read back whole; an aborted write and a deleted entry leave no record and no chunk. */
  async idbStore(): Promise<{
    roundTrip: boolean;
    listed: string[];
    afterAbort: string[];
    afterDelete: string[];
    records: number;
    chunks: number;
  }> {
    const store = createIdbBlobStore<{ note: string }>("edge-test-blobs");
    const bytes = new Uint8Array(9 * 1024 * 1024).map((_, i) => (i * 31) & 255);
    const w = await store.begin("a");
    for (let i = 0; i < bytes.length; i += 1 << 20) await w.write(bytes.subarray(i, i + (1 << 20)));
    const staged = await w.staged();
    const listedBefore = (await store.list()).map((e) => e.key);
    await w.commit({ note: "nine" });
    const got = await store.get("a");
    const roundTrip =
      listedBefore.length === 0 &&
      staged.size === bytes.length &&
      !!got &&
      got.entry.meta.note === "nine" &&
      new Uint8Array(await got.blob.arrayBuffer()).every((b, i) => b === bytes[i]);
    const listed = (await store.list()).map((e) => e.key);
    const w2 = await store.begin("b");
    await w2.write(bytes.subarray(0, 5 * 1024 * 1024));
    await w2.abort();
    const afterAbort = (await store.list()).map((e) => e.key);
    await store.delete("a");
    const afterDelete = (await store.list()).map((e) => e.key);
    return { roundTrip, listed, afterAbort, afterDelete, ...(await idbCounts("edge-test-blobs")) };
  },
  /** A download into the IndexedDB model store (the one Safari and WebKitGTK use; here forced,
   *  as Chromium has OPFS): the error code and its details, or the key; then what is stored —
   *  every model store's list, and the raw records and chunks of the IndexedDB one. */
  async idbDownload(url: string): Promise<{
    code?: string;
    details?: Record<string, unknown>;
    key?: string;
    listed: string[];
    records: number;
    chunks: number;
  }> {
    const outcome: { code?: string; details?: Record<string, unknown>; key?: string } = {};
    try {
      outcome.key = (
        await downloadModel(
          url,
          "big.gguf",
          undefined,
          () => undefined,
          undefined,
          createIdbBlobStore<StoredModel>("edge-models"),
        )
      ).meta.key;
    } catch (e) {
      Object.assign(
        outcome,
        e instanceof EdgeError ? { code: e.code, details: e.details } : { code: `not an EdgeError: ${String(e)}` },
      );
    }
    return { ...outcome, listed: (await listStoredModels()).map((m) => m.key), ...(await idbCounts("edge-models")) };
  },
  idbCounts,
  stored: () => listStoredModels(),
  remove: (key: string) => deleteStoredModel(key),
  /** Every file in the model folder (to see that nothing partial stays). */
  async files(): Promise<string[]> {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle("edge-models", { create: true });
    const names: string[] = [];
    for await (const name of dir.keys()) names.push(name);
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
