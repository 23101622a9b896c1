// The composition root in the browser: the one place the playground and the <edge-chat> widget
// (and any page that embeds Edge) get their parts from — the stores in the origin's IndexedDB (or
// memory, where a page may not keep any), purging expired pending actions, the sandboxed runner
// host, the confirmation broker and the confirm step, the engine and the tools. A front door
// translates its own inputs (panels, attributes) into a request here and renders what comes back.
// Engines and the feature stores are imported when first asked for: a page's entry script carries
// none of their code.
import type { ChatSession, PendingTicket } from "../chat/types.ts";
import { ScriptPlayer } from "../chat/script.ts";
import { createConfirmationBroker } from "../confirm/broker.ts";
import { confirm, reject, startPurging, type ConfirmContext } from "../confirm/confirm.ts";
import { createIdbPendingStore } from "../confirm/store-idb.ts";
import { createMemoryPendingStore } from "../confirm/store-memory.ts";
import type { PendingStore } from "../confirm/store.ts";
import type { ConfirmOutcome, PendingAction } from "../confirm/types.ts";
import { EdgeError } from "../contract/errors.ts";
import type { Engine } from "../engines/engine.ts";
import type { ModelSource } from "../engines/llamacpp/backend.ts";
import type { ScriptedEngineOptions } from "../engines/scripted.ts";
import type { WebLLMEngineOptions } from "../engines/webllm.ts";
import type { EdgeVfs } from "../builtins/vfs/core.ts";
import type { FactsStore } from "../facts/store.ts";
import type { ImprintStore } from "../imprint/store.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import { createIdbReceiptStore } from "../receipts/store-idb.ts";
import { createMemoryReceiptStore } from "../receipts/store-memory.ts";
import {
  createBrowserRunnerHost,
  type BrowserRunnerHost,
  type BrowserRunnerHostOptions,
} from "../runner/browser/index.ts";
import type { ToolSource } from "../runner/host.ts";
import { openEdgeDb } from "../idb/open.ts";
import type { EdgeDb } from "../idb/schema.ts";
import { assembleSession, type SessionRequest, type SessionTools } from "./session.ts";

/** Where a page's records live: the origin's IndexedDB, or (when the browser refuses it, e.g. a
 *  cross-site iframe, and the page allows it) memory for the page's lifetime. */
export interface BrowserStorage {
  kind: "indexeddb" | "memory";
  db: EdgeDb | null;
  receipts: ReceiptStore;
  pending: PendingStore;
  /** Why IndexedDB was not used (kind "memory"). */
  reason?: string;
}

export interface BrowserEdgeOptions {
  /** The IndexedDB database (default: Edge's). */
  dbName?: string;
  /** "memory": keep records for the page's lifetime when IndexedDB is refused (the widget on any
   *  site); "fail" (default): refuse (the playground, whose records must outlive the page). */
  whenStorageRefused?: "memory" | "fail";
  /** The database was closed under the page (another tab upgraded it, or the browser closed it). */
  onDbClose?: () => void;
  /** The runner's sandbox frame and Pyodide's files. */
  runner?: BrowserRunnerHostOptions;
}

/** A session's tools in the browser: a tools source, a frozen toolset, a surface, or a facts
 *  store of this origin (by name). */
export type BrowserTools = SessionTools | { kind: "facts"; store: string };

export interface BrowserSessionRequest extends Omit<SessionRequest, "tools"> {
  tools?: BrowserTools;
  /** A commit tool's pending action was created (the page shows its card; the ticket's token is
   *  shown once). */
  onPending?: (record: PendingAction, ticket: PendingTicket) => void;
}

/** The engine: llama.cpp (GGUF, wasm), web-llm (WebGPU), or the scripted replay of a model's outputs. */
export type BrowserEngineChoice =
  | { kind: "llamacpp"; model: ModelSource; createWorker?: () => Worker }
  | ({ kind: "webllm" } & WebLLMEngineOptions)
  | { kind: "scripted"; outputs: () => readonly string[]; options?: ScriptedEngineOptions };

export interface BrowserEngine {
  engine: Engine;
  /** Call before each prompt: the scripted replay starts again from its first output. */
  beforePrompt(): void;
  /** Whether a model is loaded (the scripted replay has none to load). */
  loaded(): boolean;
}

export interface BrowserEdge {
  /** The stores, opened once (IndexedDB, or the memory fallback the options allow). */
  storage(): Promise<BrowserStorage>;
  /** This origin's facts stores, imprints and workspace files (IndexedDB only; their code is
   *  imported on first use). */
  facts(): Promise<FactsStore>;
  imprints(): Promise<ImprintStore>;
  workspace(): Promise<EdgeVfs>;
  /** The sandboxed runner host, started once on first use (a failed start is tried again next time). */
  runnerHost(): Promise<BrowserRunnerHost>;
  /** Make an engine (its code imported now; the model loads on engine.load()). */
  engine(choice: BrowserEngineChoice): Promise<BrowserEngine>;
  session(request: BrowserSessionRequest): Promise<ChatSession>;
  /** Run a pending action once, re-reading `source` (its token, binding, expiry, a fresh runner). */
  confirm(
    id: string,
    token: string,
    source: ToolSource,
    options?: Pick<ConfirmContext, "signal" | "workspace" | "timeoutMs">,
  ): Promise<ConfirmOutcome>;
  reject(id: string): Promise<ConfirmOutcome>;
  close(): Promise<void>;
}

export function createBrowserEdge(options: BrowserEdgeOptions = {}): BrowserEdge {
  let storage: Promise<BrowserStorage> | undefined;
  let host: Promise<BrowserRunnerHost> | undefined;
  let stopPurging: (() => void) | undefined;

  const openStorage = (): Promise<BrowserStorage> =>
    (storage ??= openEdgeDb({
      ...(options.dbName ? { name: options.dbName } : {}),
      ...(options.onDbClose ? { onClose: options.onDbClose } : {}),
    }).then(
      (db): BrowserStorage =>
        purged({ kind: "indexeddb", db, receipts: createIdbReceiptStore(db), pending: createIdbPendingStore(db) }),
      (err: unknown): BrowserStorage => {
        if (options.whenStorageRefused !== "memory") throw err;
        const reason = (err as Error)?.message ?? String(err);
        return purged({
          kind: "memory",
          db: null,
          receipts: createMemoryReceiptStore(),
          pending: createMemoryPendingStore(),
          reason,
        });
      },
    ));
  const purged = (s: BrowserStorage): BrowserStorage => {
    stopPurging = startPurging(s.pending, { onError: (err) => console.warn("pending purge failed", err) });
    return s;
  };

  const runnerHost = (): Promise<BrowserRunnerHost> =>
    (host ??= createBrowserRunnerHost(options.runner ?? {}).catch((err: unknown) => {
      host = undefined;
      throw new EdgeError(
        "runner_boot_failed",
        { reason: String(err) },
        `The Python runner could not start: ${(err as Error)?.message ?? String(err)}`,
      );
    }));

  /** The database, for a store that has no memory fallback. */
  const database = async (what: string): Promise<EdgeDb> => {
    const s = await openStorage();
    if (!s.db)
      throw new EdgeError(
        "storage_failed",
        { reason: s.reason },
        `${what} need IndexedDB, which this browser refuses here (${s.reason ?? "unavailable"}). Leave private mode, or let this site store data, to use them.`,
      );
    return s.db;
  };
  const lazy = <T>(load: () => Promise<T>): (() => Promise<T>) => {
    let value: Promise<T> | undefined;
    return () => (value ??= load());
  };
  const factsStore = lazy(async () =>
    (await import("../facts/store-idb.ts")).createIdbFactsStore(await database("Local facts")),
  );
  const imprints = lazy(async () =>
    (await import("../imprint/store-idb.ts")).createIdbImprintStore(await database("Imprints")),
  );
  const workspace = lazy(async () =>
    (await import("../builtins/vfs/store-idb.ts")).openIdbVfs(await database("Workspace files")),
  );

  const toolsOf = async (tools: BrowserTools): Promise<SessionTools> => {
    if (tools.kind !== "facts") return tools;
    const { factsStoreSurface } = await import("../facts/surface.ts");
    return { kind: "surface", surface: await factsStoreSurface(await factsStore(), tools.store) };
  };

  return {
    storage: openStorage,
    facts: factsStore,
    imprints,
    workspace,
    runnerHost,
    engine: browserEngine,
    async session(request) {
      const { tools, onPending, ...rest } = request;
      const s = await openStorage();
      return assembleSession(
        {
          receipts: s.receipts,
          runnerHost,
          broker: (source, selection) =>
            createConfirmationBroker({
              store: s.pending,
              toolsFile: source.name,
              ...(selection ? { selection } : {}),
              ...(onPending ? { onCreated: onPending } : {}),
            }),
        },
        { ...rest, ...(tools ? { tools: await toolsOf(tools) } : {}) },
      );
    },
    async confirm(id, token, source, o = {}) {
      const s = await openStorage();
      return confirm(id, token, {
        ...o,
        store: s.pending,
        host: await runnerHost(),
        source,
        receipts: s.receipts,
        confirmedVia: "page",
      });
    },
    async reject(id) {
      return reject(id, { store: (await openStorage()).pending });
    },
    async close() {
      stopPurging?.();
      const h = host;
      host = undefined;
      await h?.then((x) => x.close()).catch(() => undefined);
      (await storage?.catch(() => undefined))?.db?.close();
    },
  };
}

async function browserEngine(choice: BrowserEngineChoice): Promise<BrowserEngine> {
  const plain = (engine: Engine & { readonly loaded: boolean }): BrowserEngine => ({
    engine,
    beforePrompt: () => undefined,
    loaded: () => engine.loaded,
  });
  if (choice.kind === "scripted") {
    const player = new ScriptPlayer(choice.outputs, choice.options);
    return { engine: player.engine, beforePrompt: () => player.startPrompt(), loaded: () => true };
  }
  if (choice.kind === "llamacpp") {
    const [{ LlamaCppEngine }, { createBrowserLlamaBackend }] = await Promise.all([
      import("../engines/llamacpp/engine.ts"),
      import("../engines/llamacpp/browser/backend.ts"),
    ]);
    return plain(
      new LlamaCppEngine({
        backend: createBrowserLlamaBackend(choice.createWorker ? { createWorker: choice.createWorker } : {}),
        model: choice.model,
      }),
    );
  }
  const { kind: _kind, ...webllm } = choice;
  const { WebLLMEngine } = await import("../engines/webllm.ts");
  return plain(new WebLLMEngine(webllm));
}
