// Test page for e2e/imprint.spec.ts: learn from the example sample with the scripted engine, store
// the imprint in the app's IndexedDB, and restore it (after a reload) into a chat whose tool calls
// run in the real browser runner (sandboxed Pyodide). Driven through window.edgeImprintTest.
import { createChatSession } from "../../src/chat/session.ts";
import type { Receipt, ReceiptBody } from "../../src/receipts/types.ts";
import { EdgeError } from "../../src/contract/errors.ts";
import { ScriptedEngine } from "../../src/engines/scripted.ts";
import { createIdbImprintStore } from "../../src/imprint/store-idb.ts";
import {
  exportImprint,
  importImprint,
  imprintBinding,
  learn,
  parseLearnSampleText,
  type ImprintEvaluation,
  type ImprintListing,
} from "../../src/imprint/index.ts";
import { createBrowserRunnerHost, type BrowserRunnerHost } from "../../src/runner/browser/index.ts";
import { openEdgeDb } from "../../src/idb/open.ts";
import { createIdbReceiptStore } from "../../src/receipts/store-idb.ts";
import type { EdgeDb } from "../../src/idb/schema.ts";
import { freezeToolset } from "../../src/toolset/freeze.ts";
import { memorySource } from "../../src/toolset/inspect.ts";

type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; code: string; message: string; details: Record<string, unknown> };
async function outcome<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    if (err instanceof EdgeError)
      return { ok: false, code: err.code, message: err.message, details: JSON.parse(JSON.stringify(err.details)) };
    return { ok: false, code: "raw_error", message: String(err), details: {} };
  }
}

let db: EdgeDb | undefined;
let host: BrowserRunnerHost | undefined;
const text = (url: string) => fetch(url).then((r) => r.text());
async function database(name: string): Promise<EdgeDb> {
  db ??= await openEdgeDb({ name });
  return db;
}
async function runner(): Promise<BrowserRunnerHost> {
  host ??= await createBrowserRunnerHost();
  return host;
}
async function engine(script: string[], modelId?: string) {
  const e = new ScriptedEngine(script, { chunkSize: 64, ...(modelId ? { modelId } : {}) });
  await e.load();
  return e;
}

const api = {
  /** Learn from /examples/learn_sample.json + /examples/tools.py; store in IndexedDB. */
  learn: (dbName: string, evalScript: string[]) =>
    outcome(async () => {
      const d = await database(dbName);
      const toolset = await freezeToolset(memorySource("tools.py", await text("/examples/tools.py")), await runner());
      const sample = parseLearnSampleText(await text("/examples/learn_sample.json"));
      const r = await learn({
        sample,
        toolset,
        engine: await engine(evalScript),
        store: createIdbImprintStore(d),
        receipts: createIdbReceiptStore(d),
      });
      return {
        imprint_id: r.imprint_id,
        prefix_sha256: r.prefix_sha256,
        active_set_sha256: r.active_set_sha256,
        evaluation: r.evaluation as ImprintEvaluation,
        warnings: r.warnings.map((w) => w.code),
        receipt: r.receipt as Receipt,
      };
    }),
  list: (dbName: string): Promise<Outcome<ImprintListing[]>> =>
    outcome(async () => createIdbImprintStore(await database(dbName)).list()),
  /** Restore by id from IndexedDB and chat once. `edit` rewrites tools.py first (from → to). */
  chat: (
    dbName: string,
    id: string,
    prompt: string,
    script: string[],
    opts: { edit?: [string, string]; modelId?: string; noTools?: boolean } = {},
  ) =>
    outcome(async () => {
      const d = await database(dbName);
      const imprint = await createIdbImprintStore(d).get(id);
      let tools = await text("/examples/tools.py");
      if (opts.edit) {
        if (!tools.includes(opts.edit[0])) throw new Error(`tools.py lacks ${opts.edit[0]}`);
        tools = tools.replace(opts.edit[0], opts.edit[1]);
      }
      const e = await engine(script, opts.modelId);
      const session = await createChatSession({
        engine: e,
        ...(opts.noTools
          ? {}
          : { host: await runner(), tools: { kind: "file", source: memorySource("tools.py", tools) } }),
        store: createIdbReceiptStore(d),
        imprint: imprintBinding(imprint),
      });
      const run = await session.chat(prompt);
      return {
        ok: run.ok,
        outcome: run.outcome,
        answer: run.answer,
        receipt: run.receipt as Receipt | ReceiptBody,
        system: e.calls[0]!.messages[0]!,
        prefix: imprint.prefix,
      };
    }),
  /** Damage the stored record in place (what a bad extension or disk error would do). */
  tamper: (dbName: string, id: string) =>
    outcome(async () => {
      const d = await database(dbName);
      const rec = (await d.get("imprints", id))!;
      await d.put("imprints", { ...rec, prefix: String(rec["prefix"]).replace("Never submit", "Always submit") });
      return true;
    }),
  exportImport: (dbName: string, id: string, otherDb: string) =>
    outcome(async () => {
      const fileText = await exportImprint(createIdbImprintStore(await database(dbName)), id);
      const other = await openEdgeDb({ name: otherDb });
      try {
        return (await importImprint(createIdbImprintStore(other), fileText)).id;
      } finally {
        other.close();
      }
    }),
  delete: (dbName: string, id: string) => outcome(async () => createIdbImprintStore(await database(dbName)).delete(id)),
};

declare global {
  interface Window {
    edgeImprintTest: typeof api;
  }
}
window.edgeImprintTest = api;
document.getElementById("status")!.textContent = "ready";
