// Test page for e2e/facts.spec.ts: the real IndexedDB facts store and workspace VFS, the
// built-in tools and a scripted-engine chat, driven from Playwright through window.edgeFactsTest.
import { createBuiltins } from "./facts-builtins.ts";
import { createChatSession } from "../../src/chat/session.ts";
import { EdgeError } from "../../src/contract/errors.ts";
import { ScriptedEngine } from "../../src/engines/scripted.ts";
import { importFacts } from "../../src/facts/import.ts";
import { createIdbFactsStore } from "../../src/facts/store-idb.ts";
import { factsStoreSurface, toolsManifestSurface } from "../../src/facts/surface.ts";
import { createToolRuntime } from "../../src/runtime/index.ts";
import { openEdgeDb } from "../../src/idb/open.ts";
import { createIdbReceiptStore } from "../../src/receipts/store-idb.ts";
import type { EdgeDb } from "../../src/idb/schema.ts";

type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; code: string; message: string; details: Record<string, unknown> };

async function outcome<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    if (err instanceof EdgeError)
      return {
        ok: false,
        code: err.code,
        message: err.message,
        details: JSON.parse(JSON.stringify(err.details)) as Record<string, unknown>,
      };
    return { ok: false, code: "raw_error", message: String(err), details: {} };
  }
}

let db: EdgeDb | undefined;
const database = async (): Promise<EdgeDb> => (db ??= await openEdgeDb());

async function scripted(outputs: string[]): Promise<ScriptedEngine> {
  const e = new ScriptedEngine(outputs);
  await e.load();
  return e;
}

const api = {
  /** Fetch a file of the app (e.g. /examples/facts.json) and import it into IndexedDB. */
  importUrl: (url: string, store?: string) =>
    outcome(async () => {
      const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
      return importFacts(createIdbFactsStore(await database()), bytes, store ? { store } : {});
    }),
  importText: (text: string) => outcome(async () => importFacts(createIdbFactsStore(await database()), text)),
  listStores: () => outcome(async () => createIdbFactsStore(await database()).list()),
  exportStore: (store: string) => outcome(async () => createIdbFactsStore(await database()).export(store)),
  deleteStore: (store: string) => outcome(async () => createIdbFactsStore(await database()).delete(store)),
  /** One scripted chat over a facts store (or the example manifest); the receipt is stored in IndexedDB. */
  chatFacts: (source: { store: string } | { manifestUrl: string }, prompt: string, outputs: string[]) =>
    outcome(async () => {
      const facts = createIdbFactsStore(await database());
      const surface =
        "store" in source
          ? await factsStoreSurface(facts, source.store)
          : await toolsManifestSurface(facts, new Uint8Array(await (await fetch(source.manifestUrl)).arrayBuffer()));
      const session = await createChatSession({
        tools: { kind: "surface", surface },
        engine: await scripted(outputs),
        store: createIdbReceiptStore(await database()),
      });
      const events: unknown[] = [];
      const run = await session.chat(prompt, { onEvent: (e) => e.type === "tool_result" && events.push(e.result) });
      return { outcome: run.outcome, answer: run.answer, receipt: run.receipt, results: events };
    }),
  /** One scripted chat with the built-in tools on the persistent VFS (host allows writes). */
  chatBuiltins: (prompt: string, outputs: string[], allowWrites = true) =>
    outcome(async () => {
      const runtime = createToolRuntime();
      const { vfs } = await createBuiltins(await database(), runtime, allowWrites);
      const session = await createChatSession({
        engine: await scripted(outputs),
        runtime,
        store: createIdbReceiptStore(await database()),
      });
      const results: unknown[] = [];
      const run = await session.chat(prompt, {
        onEvent: (e) => e.type === "tool_result" && results.push(e.result ?? e.error),
      });
      await vfs.flush();
      return { outcome: run.outcome, answer: run.answer, code: run.receipt.code, calls: run.receipt.calls, results };
    }),
  /** Read a workspace file through a freshly opened VFS (what a reloaded page sees). */
  readWorkspace: (path: string) =>
    outcome(async () => {
      const { vfs } = await createBuiltins(await database(), createToolRuntime(), false);
      return vfs.readFile(path);
    }),
  receipts: () =>
    outcome(async () =>
      (await createIdbReceiptStore(await database()).list()).map((r) => ({
        id: r.id,
        outcome: r.outcome,
        calls: r.calls.map((c) => [c.tool_name, c.status, c.rows ?? null]),
      })),
    ),
};

declare global {
  interface Window {
    edgeFactsTest: typeof api;
  }
}
window.edgeFactsTest = api;
document.getElementById("status")!.textContent = "ready";
